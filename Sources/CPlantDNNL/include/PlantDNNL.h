// Convolutions through oneDNN (JIT AVX2/AVX-512 kernels, NHWC float32), for the classifier's fast
// path on Linux. Everywhere oneDNN is missing the functions exist but report it unavailable, so the
// engine falls back to its own BLAS path.
#ifndef PLANT_DNNL_H
#define PLANT_DNNL_H

#include <stddef.h>

/// One folded convolution with its weights in oneDNN's preferred layout and its fused epilogue.
typedef struct pg_conv pg_conv;

/// Whether oneDNN is compiled in and its CPU engine starts.
int pg_dnnl_available(void);

/// Creates a convolution for NHWC float32 maps of `batch`×`height`×`width`×`cin`. `weights` are
/// `[kernel][kernel][cin][cout]` (HWIO) and are copied; `bias` (`cout` values) is copied. The output
/// gets bias, then the previous contents of the output when `accumulate` (the residual add), then
/// ReLU when `relu`. Returns NULL when oneDNN refuses.
pg_conv *pg_conv_create(int batch, int height, int width, int cin, int cout, int kernel, int stride, int pad,
                        const float *weights, const float *bias, int relu, int accumulate);

/// Runs the convolution on `batch`×`height`×`width` input (rebuilding the primitive when the size
/// differs from the last call) with `threads` OpenMP threads. Returns 0 on success.
int pg_conv_run(pg_conv *conv, int batch, int height, int width, const float *src, float *dst, int threads);

/// Bytes of weights held by `conv`.
size_t pg_conv_weight_bytes(const pg_conv *conv);

void pg_conv_destroy(pg_conv *conv);

#endif
