#include "CPlantImaging.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

// Progressive files can carry thousands of tiny scans that cost seconds each to process; no camera
// writes more than a few dozen.
#define PG_MAX_SCANS 500
// libjpeg's own allocations (e.g. whole-image coefficient buffers of progressive files) stay below this.
#define PG_MAX_LIBJPEG_MEMORY (768L * 1024 * 1024)

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    int hit_end_of_data;
    char *message;
    size_t message_size;
} pg_jpeg_error;

static void pg_jpeg_error_exit(j_common_ptr info) {
    pg_jpeg_error *error = (pg_jpeg_error *)info->err;
    if (error->message && error->message_size > 0) {
        char buffer[JMSG_LENGTH_MAX];
        info->err->format_message(info, buffer);
        snprintf(error->message, error->message_size, "%s", buffer);
    }
    longjmp(error->jump, 1);
}

static void pg_jpeg_emit_message(j_common_ptr info, int level) {
    pg_jpeg_error *error = (pg_jpeg_error *)info->err;
    // Level -1 is a warning about damaged data; libjpeg pads a short file with a fake end marker
    // and only warns, so remember it to report the file as truncated.
    if (level == -1) {
        info->err->num_warnings++;
        if (info->err->msg_code == JWRN_JPEG_EOF) error->hit_end_of_data = 1;
    }
}

static void pg_jpeg_output_message(j_common_ptr info) { (void)info; }

static void pg_jpeg_progress(j_common_ptr info) {
    if (info->is_decompressor) {
        j_decompress_ptr decompress = (j_decompress_ptr)info;
        if (decompress->input_scan_number > PG_MAX_SCANS) {
            pg_jpeg_error *error = (pg_jpeg_error *)info->err;
            if (error->message) snprintf(error->message, error->message_size, "too many progressive scans");
            longjmp(error->jump, 1);
        }
    }
}

static void pg_jpeg_install_errors(pg_jpeg_error *error, char *message, size_t message_size) {
    jpeg_std_error(&error->base);
    error->base.error_exit = pg_jpeg_error_exit;
    error->base.emit_message = pg_jpeg_emit_message;
    error->base.output_message = pg_jpeg_output_message;
    error->hit_end_of_data = 0;
    error->message = message;
    error->message_size = message_size;
    if (message && message_size > 0) message[0] = 0;
}

static int pg_jpeg_failure(pg_jpeg_error *error) {
    return error->hit_end_of_data ? PG_TRUNCATED : PG_CORRUPT;
}

static int pg_jpeg_color_model(J_COLOR_SPACE space) {
    switch (space) {
    case JCS_GRAYSCALE: return PG_JPEG_GRAY;
    case JCS_CMYK:
    case JCS_YCCK: return PG_JPEG_CMYK;
    default: return PG_JPEG_COLOR;
    }
}

int pg_jpeg_read_header(const uint8_t *data, size_t size, pg_jpeg_header *header, char *message, size_t message_size) {
    struct jpeg_decompress_struct info;
    pg_jpeg_error error;
    pg_jpeg_install_errors(&error, message, message_size);
    info.err = &error.base;
    if (setjmp(error.jump)) {
        int status = pg_jpeg_failure(&error);
        jpeg_destroy_decompress(&info);
        return status;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    header->width = (int)info.image_width;
    header->height = (int)info.image_height;
    header->components = info.num_components;
    header->color_model = pg_jpeg_color_model(info.jpeg_color_space);
    int status = error.hit_end_of_data ? PG_TRUNCATED : PG_OK;
    jpeg_destroy_decompress(&info);
    return status;
}

int pg_jpeg_scaled_size(const uint8_t *data, size_t size, int denominator, int *width, int *height,
                        char *message, size_t message_size) {
    struct jpeg_decompress_struct info;
    pg_jpeg_error error;
    pg_jpeg_install_errors(&error, message, message_size);
    info.err = &error.base;
    if (setjmp(error.jump)) {
        int status = pg_jpeg_failure(&error);
        jpeg_destroy_decompress(&info);
        return status;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    info.scale_num = 1;
    info.scale_denom = (unsigned int)denominator;
    jpeg_calc_output_dimensions(&info);
    *width = (int)info.output_width;
    *height = (int)info.output_height;
    jpeg_destroy_decompress(&info);
    return PG_OK;
}

int pg_jpeg_decode_rgb(const uint8_t *data, size_t size, int denominator, uint8_t *rgb, int width, int height,
                       char *message, size_t message_size) {
    struct jpeg_decompress_struct info;
    struct jpeg_progress_mgr progress;
    pg_jpeg_error error;
    JSAMPLE *volatile row = NULL;
    pg_jpeg_install_errors(&error, message, message_size);
    info.err = &error.base;
    if (setjmp(error.jump)) {
        int status = pg_jpeg_failure(&error);
        free(row);
        jpeg_destroy_decompress(&info);
        return status;
    }
    jpeg_create_decompress(&info);
    info.mem->max_memory_to_use = PG_MAX_LIBJPEG_MEMORY;
    memset(&progress, 0, sizeof progress);
    progress.progress_monitor = pg_jpeg_progress;
    info.progress = &progress;
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    int cmyk = pg_jpeg_color_model(info.jpeg_color_space) == PG_JPEG_CMYK;
    // Adobe applications write CMYK inverted (0 = full ink) and mark the file with an APP14 segment.
    int inverted = cmyk && info.saw_Adobe_marker;
    info.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    info.scale_num = 1;
    info.scale_denom = (unsigned int)denominator;
    jpeg_start_decompress(&info);
    if ((int)info.output_width != width || (int)info.output_height != height ||
        info.output_components != (cmyk ? 4 : 3)) {
        if (message) snprintf(message, message_size, "unexpected output geometry");
        jpeg_destroy_decompress(&info);
        return PG_CORRUPT;
    }
    if (cmyk) {
        row = malloc((size_t)width * 4);
        if (!row) {
            jpeg_destroy_decompress(&info);
            return PG_OUT_OF_MEMORY;
        }
    }
    while (info.output_scanline < info.output_height) {
        uint8_t *out = rgb + (size_t)info.output_scanline * (size_t)width * 3;
        if (!cmyk) {
            JSAMPROW rows[1] = {out};
            jpeg_read_scanlines(&info, rows, 1);
            continue;
        }
        JSAMPROW rows[1] = {row};
        jpeg_read_scanlines(&info, rows, 1);
        for (int x = 0; x < width; x++) {
            const JSAMPLE *p = row + x * 4;
            // Amount of paper showing through each ink, 0…255.
            unsigned c = inverted ? p[0] : 255u - p[0];
            unsigned m = inverted ? p[1] : 255u - p[1];
            unsigned y = inverted ? p[2] : 255u - p[2];
            unsigned k = inverted ? p[3] : 255u - p[3];
            out[x * 3 + 0] = (uint8_t)((c * k + 127) / 255);
            out[x * 3 + 1] = (uint8_t)((m * k + 127) / 255);
            out[x * 3 + 2] = (uint8_t)((y * k + 127) / 255);
        }
    }
    int status = error.hit_end_of_data ? PG_TRUNCATED : PG_OK;
    if (status == PG_OK) jpeg_finish_decompress(&info);
    status = error.hit_end_of_data ? PG_TRUNCATED : PG_OK;
    if (status == PG_TRUNCATED && message) snprintf(message, message_size, "the data ends before the image does");
    free(row);
    jpeg_destroy_decompress(&info);
    return status;
}

int pg_jpeg_encode_rgb(const uint8_t *rgb, int width, int height, int quality, uint8_t **output,
                       size_t *output_size, char *message, size_t message_size) {
    struct jpeg_compress_struct info;
    pg_jpeg_error error;
    unsigned char *volatile buffer = NULL;
    unsigned long buffer_size = 0;
    pg_jpeg_install_errors(&error, message, message_size);
    info.err = &error.base;
    if (setjmp(error.jump)) {
        jpeg_destroy_compress(&info);
        free(buffer);
        return PG_CORRUPT;
    }
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, (unsigned char **)&buffer, &buffer_size);
    info.image_width = (JDIMENSION)width;
    info.image_height = (JDIMENSION)height;
    info.input_components = 3;
    info.in_color_space = JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    info.optimize_coding = TRUE;
    jpeg_start_compress(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW rows[1] = {(JSAMPROW)(rgb + (size_t)info.next_scanline * (size_t)width * 3)};
        jpeg_write_scanlines(&info, rows, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    *output = buffer;
    *output_size = buffer_size;
    return PG_OK;
}

void pg_free(void *pointer) { free(pointer); }
