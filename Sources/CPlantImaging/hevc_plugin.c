// An HEVC decoder for libheif over libde265 that lets libde265 use worker threads. libheif's own libde265
// plugin starts one worker per decoder, so a photo stored as a single HEVC picture (not a grid of tiles, which
// libheif already decodes in parallel) is decoded on one core; libde265 can spread a picture's wavefront rows,
// deblocking and SAO over several.
#include "CPlantImaging.h"

#include <libde265/de265.h>
#include <libheif/heif.h>
#include <libheif/heif_plugin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/// Workers for decoders created on this thread; 0 decodes on the calling thread (libheif's tile threads).
static _Thread_local int pg_hevc_workers = 0;

typedef struct {
    de265_decoder_context *context;
} pg_hevc_decoder;

static const struct heif_error pg_heif_ok = {heif_error_Ok, heif_suberror_Unspecified, "Success"};

static struct heif_error pg_hevc_failure(enum heif_suberror_code subcode, const char *message) {
    struct heif_error error = {heif_error_Decoder_plugin_error, subcode, message};
    return error;
}

static const char *pg_hevc_name(void) { return "PlantGuide threaded libde265"; }

static int pg_hevc_supports(enum heif_compression_format format) {
    // Above the built-in libde265 plugin's default priority (100), so this one is chosen for HEVC.
    return format == heif_compression_HEVC ? 110 : 0;
}

static struct heif_error pg_hevc_new(void **out) {
    pg_hevc_decoder *decoder = calloc(1, sizeof(pg_hevc_decoder));
    if (decoder == NULL) {
        struct heif_error error = {heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory"};
        return error;
    }
    decoder->context = de265_new_decoder();
    if (decoder->context == NULL) {
        free(decoder);
        struct heif_error error = {heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory"};
        return error;
    }
    if (pg_hevc_workers > 0) de265_start_worker_threads(decoder->context, pg_hevc_workers);
    *out = decoder;
    return pg_heif_ok;
}

static void pg_hevc_free(void *opaque) {
    pg_hevc_decoder *decoder = opaque;
    if (decoder == NULL) return;
    de265_free_decoder(decoder->context);
    free(decoder);
}

// libheif hands over the parameter sets and then the picture's data, each NAL unit preceded by its length
// in four bytes, big-endian.
static struct heif_error pg_hevc_push(void *opaque, const void *data, size_t size) {
    pg_hevc_decoder *decoder = opaque;
    const uint8_t *bytes = data;
    size_t at = 0;
    while (at < size) {
        if (size - at < 4) return pg_hevc_failure(heif_suberror_End_of_data, "truncated NAL unit length");
        uint32_t length = (uint32_t)bytes[at] << 24 | (uint32_t)bytes[at + 1] << 16 | (uint32_t)bytes[at + 2] << 8
            | (uint32_t)bytes[at + 3];
        at += 4;
        if (length > size - at || length > INT32_MAX) return pg_hevc_failure(heif_suberror_End_of_data, "truncated NAL unit");
        de265_error pushed = de265_push_NAL(decoder->context, bytes + at, (int)length, 0, NULL);
        if (!de265_isOK(pushed)) return pg_hevc_failure(heif_suberror_Unspecified, de265_get_error_text(pushed));
        at += length;
    }
    return pg_heif_ok;
}

static struct heif_error pg_hevc_decode(void *opaque, struct heif_image **out) {
    pg_hevc_decoder *decoder = opaque;
    *out = NULL;
    de265_error status = de265_flush_data(decoder->context);
    if (!de265_isOK(status)) return pg_hevc_failure(heif_suberror_Unspecified, de265_get_error_text(status));
    // Decode until the picture is out, the data is used up, or libde265 reports an error.
    const struct de265_image *picture = NULL;
    int more = 0;
    do {
        more = 0;
        status = de265_decode(decoder->context, &more);
        if (status != DE265_OK) break;
        picture = de265_get_next_picture(decoder->context);
    } while (picture == NULL && more);
    if (picture == NULL) picture = de265_get_next_picture(decoder->context);
    if (picture == NULL) {
        return pg_hevc_failure(heif_suberror_Unspecified,
                               status != DE265_OK ? de265_get_error_text(status) : "the HEVC data holds no picture");
    }
    enum de265_chroma chroma = de265_get_chroma_format(picture);
    enum heif_chroma heifChroma;
    enum heif_colorspace colorspace = heif_colorspace_YCbCr;
    int planes = 3;
    switch (chroma) {
    case de265_chroma_mono: heifChroma = heif_chroma_monochrome; colorspace = heif_colorspace_monochrome; planes = 1; break;
    case de265_chroma_420: heifChroma = heif_chroma_420; break;
    case de265_chroma_422: heifChroma = heif_chroma_422; break;
    case de265_chroma_444: heifChroma = heif_chroma_444; break;
    default: return pg_hevc_failure(heif_suberror_Unspecified, "unsupported HEVC chroma format");
    }
    struct heif_image *image = NULL;
    struct heif_error created = heif_image_create(de265_get_image_width(picture, 0), de265_get_image_height(picture, 0),
                                                  colorspace, heifChroma, &image);
    if (created.code != heif_error_Ok) return created;
    const enum heif_channel channels[3] = {heif_channel_Y, heif_channel_Cb, heif_channel_Cr};
    for (int plane = 0; plane < planes; plane++) {
        int width = de265_get_image_width(picture, plane), height = de265_get_image_height(picture, plane);
        int bits = de265_get_bits_per_pixel(picture, plane);
        int sourceStride = 0;
        const uint8_t *source = de265_get_image_plane(picture, plane, &sourceStride);
        if (source == NULL || width <= 0 || height <= 0 || bits <= 0 || bits > 16) {
            heif_image_release(image);
            return pg_hevc_failure(heif_suberror_Unspecified, "the HEVC decoder returned no pixels");
        }
        struct heif_error added = heif_image_add_plane(image, channels[plane], width, height, bits);
        if (added.code != heif_error_Ok) {
            heif_image_release(image);
            return added;
        }
        int targetStride = 0;
        uint8_t *target = heif_image_get_plane(image, channels[plane], &targetStride);
        size_t rowBytes = (size_t)width * (bits > 8 ? 2 : 1);
        if (target == NULL || (size_t)targetStride < rowBytes || (size_t)sourceStride < rowBytes) {
            heif_image_release(image);
            return pg_hevc_failure(heif_suberror_Unspecified, "bad plane stride");
        }
        for (int row = 0; row < height; row++) {
            memcpy(target + (size_t)row * (size_t)targetStride, source + (size_t)row * (size_t)sourceStride, rowBytes);
        }
    }
    de265_release_next_picture(decoder->context);
    *out = image;
    return pg_heif_ok;
}

static void pg_hevc_strict(void *opaque, int flag) {
    (void)opaque;
    (void)flag;
}

static const struct heif_decoder_plugin pg_hevc_plugin = {
    .plugin_api_version = 3,
    .get_plugin_name = pg_hevc_name,
    .init_plugin = NULL,
    .deinit_plugin = NULL,
    .does_support_format = pg_hevc_supports,
    .new_decoder = pg_hevc_new,
    .free_decoder = pg_hevc_free,
    .push_data = pg_hevc_push,
    .decode_image = pg_hevc_decode,
    .set_strict_decoding = pg_hevc_strict,
    .id_name = "plantguide-libde265",
};

static pthread_once_t pg_hevc_once = PTHREAD_ONCE_INIT;
static int pg_hevc_registered = 0;

static void pg_hevc_register(void) {
    pg_hevc_registered = heif_register_decoder_plugin(&pg_hevc_plugin).code == heif_error_Ok;
}

int pg_heif_use_threaded_hevc(int workers) {
    pthread_once(&pg_hevc_once, pg_hevc_register);
    pg_hevc_workers = workers < 0 ? 0 : workers;
    return pg_hevc_registered;
}
