// Convolutions through oneDNN (JIT AVX2/AVX-512 kernels, float32), for the classifier's fast
// path on Linux. Everywhere oneDNN is missing the functions exist but report it unavailable, so the
// engine falls back to its own BLAS path.
#ifndef PLANT_DNNL_H
#define PLANT_DNNL_H

#include <stddef.h>
#include <stdint.h>

/// One folded convolution with its weights in oneDNN's preferred layout and its fused epilogue.
typedef struct pg_conv pg_conv;

/// Whether oneDNN is compiled in and its CPU engine starts.
int pg_dnnl_available(void);

/// The maps of every layer in NHWC order (channels last).
#define PG_LAYOUT_NHWC 0
/// The maps in oneDNN's blocked order, nChw8c or nChw16c (the `block` of `pg_conv_create`): channels in groups of
/// the block, each group a whole map with the block's channels innermost, channels padded to a whole block.
#define PG_LAYOUT_BLOCKED 1
/// Reads an NCHW input (the stem, from the caller's planar image) and writes the blocked order.
#define PG_LAYOUT_PLANAR_TO_BLOCKED 2

/// The channel block PlantGuide lays feature maps out in on this CPU, by its vector width: 16 (nChw16c) with
/// AVX-512F, 8 (nChw8c) with AVX2 and FMA, 0 (NHWC) otherwise or when oneDNN is unavailable. Our decision, not
/// oneDNN's preference (which differs between its releases and CPUs); either block runs on every x86-64 CPU.
int pg_dnnl_channel_block(void);

/// Creates a convolution for float32 maps of `batch`×`height`×`width`×`cin` laid out as `layout` (a
/// `PG_LAYOUT_*`; the blocked ones in blocks of `block` channels, 8 or 16, which NHWC ignores). `weights` are
/// `[kernel][kernel][cin][cout]` (HWIO) and are copied; `bias` (`cout` values) is copied. The output
/// gets bias, then the previous contents of the output when `accumulate` (the residual add), then
/// ReLU when `relu`. With `half`, the weights are kept as float16 in oneDNN's layout (see
/// `pg_conv_half_weights`). The primitive's work is split for `threads` OpenMP threads (run it with the
/// same count). With `own_kernels` (a `PG_OWN_*`), a layer `pg_conv_winograd_applies` to runs on our own Winograd kernels
/// (F(4×4, 3×3) or F(2×2, 3×3), as `pg_conv_winograd_tile` says for `height`×`width`; their products on AVX-512 with
/// `PG_OWN_AVX512`) and, with `PG_OWN_AVX2`, one `pg_conv_pointwise_applies` to on our own 1×1 kernels instead of a
/// oneDNN primitive. Returns NULL when oneDNN refuses, and for `PG_OWN_AVX512` on a layer no AVX-512 kernel runs.
pg_conv *pg_conv_create(int batch, int height, int width, int cin, int cout, int kernel, int stride, int pad,
                        const float *weights, const float *bias, int relu, int accumulate, int half, int layout, int block,
                        int threads, int own_kernels);

/// Whether a convolution of this shape can run on the Winograd kernels: 3×3, stride 1, padding 1, blocked maps, and a
/// CPU with AVX2 and FMA (and F16C for `half` weights, which the kernels keep as float16 and widen as they go).
int pg_conv_winograd_applies(int kernel, int stride, int pad, int half, int layout);

/// The largest map side (rows and columns) a Winograd layer with float32 weights runs on as F(2×2, 3×3) rather than
/// F(4×4, 3×3): the last two stages of a ResNet at 224×224. 14 and 7 are not whole 4×4 tiles (a 7×7 map pays for 8×8),
/// and their F(4×4) weights, 36 floats per channel pair, were too large to keep transformed at 256 channels; F(2×2)
/// keeps 16 per pair (4 MiB) transformed at load. On a 2-core AVX2 machine, alternating forward passes of ResNet50 from
/// a float32 file in one process: 3–4.5 % off, for 9 MiB more weights. Keeping the 7×7 layers' F(2×2) weights
/// transformed too (16 MiB each) bought ResNet50 another 1 % and ResNet18 5 %, for 15 and 22 MiB more: ResNet18 from a
/// float16 file (widened at load) would no longer identify a photo in under 150 MiB. With float16 weights F(2×2) was no
/// faster, so those layers stay on F(4×4).
#define PG_WINOGRAD_SMALL_TILE_SIDE 14

/// The outputs per tile side (2 or 4) of a Winograd layer planned for `height`×`width` maps with `half` weights or not.
int pg_conv_winograd_tile(int height, int width, int half);

/// Whether a convolution of this shape can run on the pointwise kernels: 1×1, stride 1, no padding, blocked maps,
/// `half` weights (which the kernels keep as float16 and widen a panel of 16 output channels at a time, instead of the
/// whole layer before it runs), and the CPU the Winograd kernels need.
int pg_conv_pointwise_applies(int kernel, int stride, int pad, int half, int layout);

/// Builds the primitive for `batch`×`height`×`width` input unless the last one was for that size
/// (which may move the weights into another layout). Returns 1 when ready.
int pg_conv_prepare(pg_conv *conv, int batch, int height, int width);

/// Runs the convolution on `batch`×`height`×`width` input (rebuilding the primitive when the size
/// differs from the last call) with `threads` OpenMP threads. oneDNN splits a primitive's work for the threads it was
/// created for; a run with one thread of a convolution created for more uses a second primitive split for one, built
/// by the first such run. A half-mode convolution needs
/// `widened`: its float16 weights widened to float32 by the caller; otherwise pass NULL. Returns 0 on
/// success.
int pg_conv_run(pg_conv *conv, int batch, int height, int width, const float *src, float *dst, int threads,
                float *widened);

/// The float16 weights of a half-mode convolution (`count` values, already in oneDNN's layout), or NULL.
const uint16_t *pg_conv_half_weights(const pg_conv *conv, size_t *count);

/// No own kernel: a oneDNN primitive (the `own_kernels` of `pg_conv_create`).
#define PG_OWN_NONE 0
/// Our own kernels with AVX2 and FMA.
#define PG_OWN_AVX2 1
/// Our own Winograd kernels with their products on AVX-512 registers (no pointwise kernel has an AVX-512 version).
#define PG_OWN_AVX512 2

/// Which of our kernels runs `conv`: `PG_OWN_NONE` (a oneDNN primitive), `PG_OWN_AVX2` or `PG_OWN_AVX512`.
int pg_conv_uses_own_kernel(const pg_conv *conv);

/// Whether a convolution of this shape can run on the AVX-512 Winograd kernels: as `pg_conv_winograd_applies`, on a CPU
/// with AVX-512F.
int pg_conv_winograd_avx512_applies(int kernel, int stride, int pad, int half, int layout);

/// Bytes of weights held by `conv`.
size_t pg_conv_weight_bytes(const pg_conv *conv);

void pg_conv_destroy(pg_conv *conv);

/// Makes glibc serve blocks of 1 MiB and more from their own pages, returned to the system when freed,
/// for the whole process (elsewhere a no-op). Loading a model allocates and frees a float32 copy of each
/// layer; from the heap those copies would leave holes that raise the process's peak memory by 10–25 MiB.
void pg_heap_map_large_blocks(void);

/// Frees the calling thread's loading scratch (the buffer each layer's float32 weights pass through on the way to
/// float16 or a Winograd layout) and hands freed heap memory back to the system (glibc's malloc_trim) after
/// loading, when the float32 copies made on the way would otherwise stay resident.
void pg_dnnl_trim(void);

/// Whether a run with one thread has built the convolution's primitive split for one thread (see `pg_conv_run`).
int pg_conv_runs_single(const pg_conv *conv);

/// Cores left idle by threads outside this caller's team: the machine's online CPUs less its runnable threads (Linux's
/// `/proc/loadavg`), not counting the calling thread and its OpenMP workers for `threads` (which spin for a while after
/// a region). The least of up to three readings 0.1 ms apart, so a thread that runs only for a moment is not counted.
/// -1 where this cannot be known: not Linux, `/proc` unreadable, or a process held to some of the CPUs (the count is
/// the whole machine's).
int pg_idle_cores(int threads);

#endif
