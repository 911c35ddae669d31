// Winograd F(4×4, 3×3) and F(2×2, 3×3) convolutions on blocked maps (nChw8c / nChw16c), with AVX2 and FMA, for the 3×3
// stride-1 layers where oneDNN 2.6 offers only direct kernels on AVX2. Private to CPlantDNNL.
#ifndef PLANT_WINOGRAD_H
#define PLANT_WINOGRAD_H

#include <stddef.h>

/// One 3×3 stride-1 padding-1 convolution: transformed weights, bias, and its epilogue.
typedef struct pg_winograd pg_winograd;

/// Whether this CPU runs the kernels (x86-64 with AVX2 and FMA).
int pg_winograd_supported(void);

/// Whether this CPU also runs the AVX-512 version of the products (AVX-512F).
int pg_winograd_avx512_supported(void);

/// Takes HWIO weights (`[3][3][cin][cout]`) for maps blocked by `block` channels (8 or 16), for tiles of `tile` (4 or 2)
/// outputs a side: transformed now when that takes at most 4 MiB, otherwise kept as they are (as float16 with `half`,
/// which needs F16C) and transformed during each run. Channels past `cin`/`cout` up to whole
/// blocks are padding: zero weights in, zeros out. With `avx512`, the products of whole panels of 16 output channels
/// (the transforms stay AVX2) run on AVX-512 registers, 12 tiles a step instead of 6. Returns NULL when out of memory,
/// for another `tile`, or for `avx512` on a CPU without AVX-512F.
pg_winograd *pg_winograd_create(int cin, int cout, int block, const float *weights, const float *bias, int relu, int accumulate,
                                int half, int tile, int avx512);

/// Runs it on `batch`×`height`×`width` blocked maps with `threads` OpenMP threads: bias, then the previous
/// contents of `dst` when accumulating, then ReLU. Returns 0 on success.
int pg_winograd_run(pg_winograd *conv, int batch, int height, int width, const float *src, float *dst, int threads);

/// Whether its products run on the AVX-512 kernel.
int pg_winograd_uses_avx512(const pg_winograd *conv);

/// Bytes of transformed weights held.
size_t pg_winograd_weight_bytes(const pg_winograd *conv);

void pg_winograd_destroy(pg_winograd *conv);

#endif
