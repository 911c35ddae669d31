// Small numeric kernels for the classifier that Swift cannot express at full speed without
// target-specific code: widening float16 weights to float32 (F16C on x86-64, FCVTL on arm64), and checksumming
// the weights of a model file as they are read.
#ifndef PLANT_KERNELS_H
#define PLANT_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/// Widens `count` IEEE half-precision values (as bit patterns) to float32.
void pg_half_to_float(const uint16_t *source, float *destination, size_t count);

/// XXH64 of `length` bytes with `seed`: the checksum model files record for each tensor.
uint64_t pg_xxh64(const void *data, size_t length, uint64_t seed);

#endif
