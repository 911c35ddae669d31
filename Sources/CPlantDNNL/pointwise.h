// 1×1 stride-1 convolutions on blocked maps (nChw8c / nChw16c) with float16 weights, with AVX2, FMA and F16C: the
// weights are widened a panel of 16 output channels at a time as the products use them, where oneDNN 2.6 needs the whole
// layer widened into float32 before it runs. Private to CPlantDNNL.
#ifndef PLANT_POINTWISE_H
#define PLANT_POINTWISE_H

#include <stddef.h>

/// One 1×1 stride-1 convolution: float16 weights in panels of 16 output channels, bias, and its epilogue.
typedef struct pg_pointwise pg_pointwise;

/// Takes IO weights (`[cin][cout]`) for maps blocked by `block` channels (8 or 16) and keeps them as float16. Channels
/// past `cin`/`cout` up to whole blocks are padding: zero weights in, zeros out. Returns NULL when out of memory or when
/// this CPU lacks AVX2, FMA or F16C (`pg_winograd_supported`).
pg_pointwise *pg_pointwise_create(int cin, int cout, int block, const float *weights, const float *bias, int relu, int accumulate);

/// Runs it on `batch`×`height`×`width` blocked maps with `threads` OpenMP threads: bias, then the previous
/// contents of `dst` when accumulating, then ReLU. Returns 0 on success, 2 when out of memory.
int pg_pointwise_run(pg_pointwise *conv, int batch, int height, int width, const float *src, float *dst, int threads);

/// Bytes of weights held.
size_t pg_pointwise_weight_bytes(const pg_pointwise *conv);

void pg_pointwise_destroy(pg_pointwise *conv);

#endif
