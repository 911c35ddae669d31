// Small numeric kernels for the classifier that Swift cannot express at full speed without
// target-specific code: widening float16 weights to float32 (F16C on x86-64, FCVTL on arm64), narrowing embeddings
// to float16 for storage, pooling, and checksumming the weights of a model file as they are read.
#ifndef PLANT_KERNELS_H
#define PLANT_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/// Widens `count` IEEE half-precision values (as bit patterns) to float32.
void pg_half_to_float(const uint16_t *source, float *destination, size_t count);

/// Narrows `count` float32 values to IEEE half precision (round to nearest even; overflow becomes infinity).
void pg_float_to_half(const float *source, uint16_t *destination, size_t count);

/// Dot products of `rows` int8 vectors of `dimension` (row-major, densely packed) with one int8 `query`, as int32
/// (exact: |sum| < 2^31 for dimension < 2^17). Used to shortlist embeddings a quarter the size of float32.
void pg_int8_dot_rows(const int8_t *matrix, size_t rows, size_t dimension, const int8_t *query, int32_t *out);

/// 3×3 max pooling, stride 2, padding 1 (the ResNet stem) of NHWC maps, for output rows `[first_row, end_row)` of the
/// `batch · out_height` rows, so callers can split the work between threads.
void pg_max_pool_3x3s2(const float *source, float *target, int channels, int height, int width, int out_height,
                       int out_width, int first_row, int end_row);

/// Mean over height and width of NHWC maps: `target` gets `[batch][channels]`.
void pg_global_average_pool(const float *source, float *target, int batch, int channels, int height, int width);

/// XXH64 of `length` bytes with `seed`: the checksum model files record for each tensor.
uint64_t pg_xxh64(const void *data, size_t length, uint64_t seed);

#endif
