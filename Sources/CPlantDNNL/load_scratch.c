#include "load_scratch.h"

#include <stdlib.h>

/* Fresh memory for each layer's copies cost the kernel a page fault (and a page of zeros) per 4 KiB: with large
   blocks mapped on their own (pg_heap_map_large_blocks), half of a ResNet50's load time. */
static _Thread_local float *buffer;
static _Thread_local size_t capacity;

float *pg_load_scratch(size_t floats) {
    if (floats <= capacity) return buffer;
    float *grown = aligned_alloc(64, (floats * sizeof(float) + 63) / 64 * 64);
    if (!grown) return NULL;
    free(buffer);
    buffer = grown;
    capacity = floats;
    return buffer;
}

void pg_load_scratch_release(void) {
    free(buffer);
    buffer = NULL;
    capacity = 0;
}
