// A small C shim over libjpeg and libpng. Both libraries report errors by longjmp (or, by default, by
// calling exit()), which Swift cannot handle; every function here sets up its own setjmp, so a corrupt
// file comes back as a status code and a message instead of ending the process.
#ifndef CPLANTIMAGING_H
#define CPLANTIMAGING_H

#include <stddef.h>
#include <stdint.h>

/// Status codes returned by every shim function.
enum {
    PG_OK = 0,
    PG_CORRUPT = 1,
    PG_TRUNCATED = 2,
    PG_UNSUPPORTED = 3,
    PG_OUT_OF_MEMORY = 4,
};

/// JPEG colour model as stored in the file.
enum {
    PG_JPEG_GRAY = 0,
    PG_JPEG_COLOR = 1,
    PG_JPEG_CMYK = 2,
};

typedef struct {
    int width;
    int height;
    int components;
    int color_model;
} pg_jpeg_header;

typedef struct {
    uint32_t width;
    uint32_t height;
    int bit_depth;
    int color_type;
    int interlaced;
} pg_png_header;

/// Reads the JPEG header only (no pixel memory is allocated).
int pg_jpeg_read_header(const uint8_t *data, size_t size, pg_jpeg_header *header, char *message, size_t message_size);

/// Decodes a JPEG at 1/`denominator` scale (1, 2, 4 or 8) as 8-bit RGB into `rgb`, which holds
/// `width * height * 3` bytes; `width` and `height` must be the scaled size libjpeg reports.
int pg_jpeg_decode_rgb(const uint8_t *data, size_t size, int denominator, uint8_t *rgb, int width, int height,
                       char *message, size_t message_size);

/// Scaled output size of a JPEG for 1/`denominator`, as libjpeg computes it.
int pg_jpeg_scaled_size(const uint8_t *data, size_t size, int denominator, int *width, int *height,
                        char *message, size_t message_size);

/// Encodes 8-bit RGB as a baseline JPEG with no metadata besides the JFIF header. `*output` is
/// allocated with malloc; release it with `pg_free`.
int pg_jpeg_encode_rgb(const uint8_t *rgb, int width, int height, int quality, uint8_t **output,
                       size_t *output_size, char *message, size_t message_size);

/// Reads the PNG header (IHDR) only.
int pg_png_read_header(const uint8_t *data, size_t size, pg_png_header *header, char *message, size_t message_size);

/// Decodes a PNG as 8-bit RGB (palette and gray expanded, 16-bit reduced to the high byte, alpha
/// composited on white) into `rgb`, which holds `width * height * 3` bytes.
int pg_png_decode_rgb(const uint8_t *data, size_t size, uint8_t *rgb, uint32_t width, uint32_t height,
                      char *message, size_t message_size);

void pg_free(void *pointer);

/// Registers (once) an HEVC decoder plugin for libheif over libde265 that uses `workers` worker threads for the
/// decoders created on the calling thread from now on (0: decode on the calling thread). libheif's own plugin uses
/// one, so a HEIC stored as one picture, not a grid of tiles, would decode on one core. Returns 0 when libheif
/// refused the plugin (its own decoder is used then).
int pg_heif_use_threaded_hevc(int workers);

#endif
