// Memory for the float32 copies a layer's weights pass through while a model loads. Private to CPlantDNNL.
#ifndef PLANT_LOAD_SCRATCH_H
#define PLANT_LOAD_SCRATCH_H

#include <stddef.h>

/// Room for `floats` floats, 64-byte aligned: one buffer per loading thread that grows to the largest layer and is
/// reused, valid until the next call on this thread or `pg_load_scratch_release`. NULL when out of memory.
float *pg_load_scratch(size_t floats);

/// Frees this thread's buffer.
void pg_load_scratch_release(void);

#endif
