#include "CPlantImaging.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

typedef struct {
    const uint8_t *data;
    size_t size;
    size_t offset;
    int truncated;
    char *message;
    size_t message_size;
} pg_png_source;

static void pg_png_error(png_structp png, png_const_charp text) {
    pg_png_source *source = png_get_error_ptr(png);
    if (source->message && source->message_size > 0 && source->message[0] == 0) {
        snprintf(source->message, source->message_size, "%s", text);
    }
    png_longjmp(png, 1);
}

static void pg_png_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

static void pg_png_read(png_structp png, png_bytep out, size_t length) {
    pg_png_source *source = png_get_io_ptr(png);
    if (length > source->size - source->offset) {
        source->truncated = 1;
        if (source->message && source->message_size > 0) {
            snprintf(source->message, source->message_size, "the data ends before the image does");
        }
        png_longjmp(png, 1);
    }
    memcpy(out, source->data + source->offset, length);
    source->offset += length;
}

static png_structp pg_png_open(pg_png_source *source, png_infop *info) {
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, source, pg_png_error, pg_png_warning);
    if (!png) return NULL;
    *info = png_create_info_struct(png);
    if (!*info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return NULL;
    }
    png_set_read_fn(png, source, pg_png_read);
    // Text and ICC chunks are never used; bound what one chunk may allocate.
    png_set_chunk_malloc_max(png, 8 * 1024 * 1024);
    return png;
}

static void pg_png_source_init(pg_png_source *source, const uint8_t *data, size_t size, char *message,
                               size_t message_size) {
    source->data = data;
    source->size = size;
    source->offset = 0;
    source->truncated = 0;
    source->message = message;
    source->message_size = message_size;
    if (message && message_size > 0) message[0] = 0;
}

int pg_png_read_header(const uint8_t *data, size_t size, pg_png_header *header, char *message, size_t message_size) {
    pg_png_source source;
    pg_png_source_init(&source, data, size, message, message_size);
    png_infop info = NULL;
    png_structp png = pg_png_open(&source, &info);
    if (!png) return PG_OUT_OF_MEMORY;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return source.truncated ? PG_TRUNCATED : PG_CORRUPT;
    }
    png_read_info(png, info);
    header->width = png_get_image_width(png, info);
    header->height = png_get_image_height(png, info);
    header->bit_depth = png_get_bit_depth(png, info);
    header->color_type = png_get_color_type(png, info);
    header->interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
    png_destroy_read_struct(&png, &info, NULL);
    return PG_OK;
}

// Composites one row of RGBA on white into RGB.
static void pg_composite_row(const uint8_t *rgba, uint8_t *rgb, uint32_t width) {
    for (uint32_t x = 0; x < width; x++) {
        unsigned a = rgba[x * 4 + 3];
        for (int c = 0; c < 3; c++) {
            rgb[x * 3 + c] = (uint8_t)((rgba[x * 4 + c] * a + 255u * (255u - a) + 127u) / 255u);
        }
    }
}

int pg_png_decode_rgb(const uint8_t *data, size_t size, uint8_t *rgb, uint32_t width, uint32_t height,
                      char *message, size_t message_size) {
    pg_png_source source;
    pg_png_source_init(&source, data, size, message, message_size);
    png_infop info = NULL;
    uint8_t *volatile scratch = NULL;
    png_bytep *volatile rows = NULL;
    png_structp png = pg_png_open(&source, &info);
    if (!png) return PG_OUT_OF_MEMORY;
    if (setjmp(png_jmpbuf(png))) {
        free(scratch);
        free(rows);
        png_destroy_read_struct(&png, &info, NULL);
        return source.truncated ? PG_TRUNCATED : PG_CORRUPT;
    }
    png_read_info(png, info);
    if (png_get_image_width(png, info) != width || png_get_image_height(png, info) != height) {
        png_error(png, "unexpected image size");
    }
    int color_type = png_get_color_type(png, info);
    int bit_depth = png_get_bit_depth(png, info);
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (bit_depth == 16) png_set_strip_16(png);
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    int channels = png_get_channels(png, info);
    if ((channels != 3 && channels != 4) || png_get_rowbytes(png, info) != (size_t)width * (size_t)channels) {
        png_error(png, "unsupported pixel layout");
    }
    if (passes == 1) {
        if (channels == 4) {
            scratch = malloc((size_t)width * 4);
            if (!scratch) png_error(png, "out of memory");
        }
        for (uint32_t y = 0; y < height; y++) {
            uint8_t *out = rgb + (size_t)y * width * 3;
            png_read_row(png, channels == 4 ? scratch : out, NULL);
            if (channels == 4) pg_composite_row(scratch, out, width);
        }
    } else {
        // Interlaced images fill every row over several passes, so the whole image is held at once.
        uint8_t *target = rgb;
        if (channels == 4) {
            scratch = malloc((size_t)width * height * 4);
            if (!scratch) png_error(png, "out of memory");
            target = scratch;
        }
        rows = malloc(sizeof(png_bytep) * height);
        if (!rows) png_error(png, "out of memory");
        for (uint32_t y = 0; y < height; y++) rows[y] = target + (size_t)y * width * channels;
        png_read_image(png, rows);
        if (channels == 4) {
            for (uint32_t y = 0; y < height; y++) {
                pg_composite_row(scratch + (size_t)y * width * 4, rgb + (size_t)y * width * 3, width);
            }
        }
    }
    free(scratch);
    free(rows);
    scratch = NULL;
    rows = NULL;
    png_destroy_read_struct(&png, &info, NULL);
    return PG_OK;
}
