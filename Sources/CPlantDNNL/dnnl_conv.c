#include "PlantDNNL.h"
#include "PlantKernels.h"
#include "winograd.h"
#include "pointwise.h"
#include "load_scratch.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

void pg_heap_map_large_blocks(void) {
#if defined(__GLIBC__)
    /* A fixed threshold also turns off glibc's raising it (up to 32 MiB) each time a mapped block is freed,
       after which a model's per-layer float32 copies would come from the heap and fragment it. */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

#if defined(__linux__) && __has_include(<oneapi/dnnl/dnnl.h>)
#include <oneapi/dnnl/dnnl.h>
#include <pthread.h>
#include <stdlib.h>
#include <malloc.h>
#include <string.h>
#include <stdint.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

void omp_set_num_threads(int);
int omp_get_max_threads(void);

static dnnl_engine_t engine;
static int engine_ready;
static pthread_once_t engine_once = PTHREAD_ONCE_INIT;

static void start_engine(void) {
    if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success) return;
    engine_ready = 1;
}

int pg_dnnl_available(void) {
    pthread_once(&engine_once, start_engine);
    return engine_ready;
}

/* The blocked activation layout for a channel block: nChw8c (AVX2, SSE4.1) or nChw16c (AVX-512). */
static dnnl_format_tag_t blocked_tag(int block) { return block == 16 ? dnnl_nChw16c : dnnl_nChw8c; }

/* Our choice of channel block, from the CPU's vector width: 16 (one AVX-512 register of floats) where the CPU has
   AVX-512F, 8 (one AVX2 register) where it has AVX2 and FMA, otherwise none. oneDNN 2.6's own preference is not asked:
   with AVX-512 it prefers NHWC maps for its brgemm kernels, and the engine's layout and our kernels would then follow
   whatever a oneDNN release happens to like. oneDNN runs every layer on either block (its AVX2 kernels are native to
   nChw8c, its AVX-512 ones to nChw16c). */
int pg_dnnl_channel_block(void) {
    if (!pg_dnnl_available()) return 0;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx512f")) return 16;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 8;
#endif
    return 0;
}

struct pg_conv {
    int cin, cout, kernel, stride, pad, relu, accumulate;
    /* PG_LAYOUT_*, and the channel block of the blocked layouts. */
    int layout, block;
    /* Each convolution has its own stream, so models loaded or run on different threads share nothing
       but the engine (which is thread-safe). */
    dnnl_stream_t stream;
    /* Weights in the layout of `weights_md`, bias in `bias`. */
    dnnl_memory_desc_t weights_md;
    void *weights;
    size_t weights_bytes;
    /* Half mode: the weights (same layout) as float16 in `halves`, `weights` is NULL between builds and
       each run gets a widened copy from the caller. */
    uint16_t *halves;
    /* Whether `weights` is the loading thread's scratch (between a half-mode layer's first build and `halve`). */
    int weights_borrowed;
    float *bias;
    /* The primitive for the last size run, with memory objects whose handles are swapped per call. */
    int batch, height, width;
    dnnl_primitive_t primitive;
    /* The threads `primitive` splits its work for, those of `pg_conv_create` (oneDNN fixes that when it is created),
       and a second primitive for the same size split for one thread: built the first time a run asks for one thread,
       and only when it takes the weights in the same layout (`single_refused` otherwise). */
    int planned;
    dnnl_primitive_t single;
    int single_refused;
    dnnl_memory_t src_memory, weights_memory, bias_memory, dst_memory;
    /* A 3×3 stride-1 layer run by our Winograd kernels instead of a primitive (see winograd.h), or a 1×1 stride-1 one
       run by our pointwise kernels (see pointwise.h). */
    pg_winograd *winograd;
    pg_pointwise *pointwise;
};

static void release_primitive(pg_conv *conv) {
    if (conv->primitive) dnnl_primitive_destroy(conv->primitive);
    if (conv->single) dnnl_primitive_destroy(conv->single);
    conv->single = NULL;
    conv->single_refused = 0;
    if (conv->src_memory) dnnl_memory_destroy(conv->src_memory);
    if (conv->weights_memory) dnnl_memory_destroy(conv->weights_memory);
    if (conv->bias_memory) dnnl_memory_destroy(conv->bias_memory);
    if (conv->dst_memory) dnnl_memory_destroy(conv->dst_memory);
    conv->primitive = NULL;
    conv->src_memory = conv->weights_memory = conv->bias_memory = conv->dst_memory = NULL;
}

/* Copies `bytes` laid out as `from` at `source` into `to` at `target` with a reorder primitive. */
static int reorder(dnnl_stream_t stream, const dnnl_memory_desc_t *from, const void *source, const dnnl_memory_desc_t *to, void *target) {
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t primitive = NULL;
    dnnl_memory_t in = NULL, out = NULL;
    int ok = dnnl_reorder_primitive_desc_create(&pd, from, engine, to, engine, NULL) == dnnl_success
        && dnnl_primitive_create(&primitive, pd) == dnnl_success
        && dnnl_memory_create(&in, from, engine, (void *)source) == dnnl_success
        && dnnl_memory_create(&out, to, engine, target) == dnnl_success;
    if (ok) {
        dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, in}, {DNNL_ARG_TO, out}};
        ok = dnnl_primitive_execute(primitive, stream, 2, args) == dnnl_success && dnnl_stream_wait(stream) == dnnl_success;
    }
    if (in) dnnl_memory_destroy(in);
    if (out) dnnl_memory_destroy(out);
    if (primitive) dnnl_primitive_destroy(primitive);
    if (pd) dnnl_primitive_desc_destroy(pd);
    return ok;
}

/* Whether weights can be kept as float16 (narrowed and widened by CPlantKernels' converters): with F16C on x86-64,
   always on ARM64. */
#if defined(__x86_64__)
static int can_halve(void) { return __builtin_cpu_supports("f16c"); }
#elif defined(__aarch64__)
static int can_halve(void) { return 1; }
#else
static int can_halve(void) { return 0; }
#endif

/* The primitive descriptor for a size, weights in whatever layout oneDNN prefers. */
static dnnl_primitive_desc_t describe(const pg_conv *conv, int batch, int height, int width,
                                      dnnl_memory_desc_t *src_md, dnnl_memory_desc_t *bias_md, dnnl_memory_desc_t *dst_md) {
    int out_h = (height + 2 * conv->pad - conv->kernel) / conv->stride + 1;
    int out_w = (width + 2 * conv->pad - conv->kernel) / conv->stride + 1;
    dnnl_dims_t src_dims = {batch, conv->cin, height, width};
    dnnl_dims_t dst_dims = {batch, conv->cout, out_h, out_w};
    dnnl_dims_t weight_dims = {conv->cout, conv->cin, conv->kernel, conv->kernel};
    dnnl_dims_t bias_dims = {conv->cout};
    dnnl_dims_t strides = {conv->stride, conv->stride};
    dnnl_dims_t padding = {conv->pad, conv->pad};
    dnnl_memory_desc_t any_weights_md;
    dnnl_format_tag_t src_tag = conv->layout == PG_LAYOUT_NHWC ? dnnl_nhwc
        : conv->layout == PG_LAYOUT_PLANAR_TO_BLOCKED ? dnnl_nchw : blocked_tag(conv->block);
    dnnl_format_tag_t dst_tag = conv->layout == PG_LAYOUT_NHWC ? dnnl_nhwc : blocked_tag(conv->block);
    if (dnnl_memory_desc_init_by_tag(src_md, 4, src_dims, dnnl_f32, src_tag) != dnnl_success
        || dnnl_memory_desc_init_by_tag(dst_md, 4, dst_dims, dnnl_f32, dst_tag) != dnnl_success
        || dnnl_memory_desc_init_by_tag(&any_weights_md, 4, weight_dims, dnnl_f32, dnnl_format_tag_any) != dnnl_success
        || dnnl_memory_desc_init_by_tag(bias_md, 1, bias_dims, dnnl_f32, dnnl_x) != dnnl_success)
        return NULL;
    dnnl_convolution_desc_t desc;
    if (dnnl_convolution_forward_desc_init(&desc, dnnl_forward_inference, dnnl_convolution_direct, src_md, &any_weights_md,
                                           bias_md, dst_md, strides, padding, padding) != dnnl_success)
        return NULL;
    dnnl_post_ops_t post_ops = NULL;
    dnnl_primitive_attr_t attr = NULL;
    int ok = dnnl_post_ops_create(&post_ops) == dnnl_success && dnnl_primitive_attr_create(&attr) == dnnl_success;
    if (ok && conv->accumulate) ok = dnnl_post_ops_append_sum(post_ops, 1.0f) == dnnl_success;
    if (ok && conv->relu) ok = dnnl_post_ops_append_eltwise(post_ops, 1.0f, dnnl_eltwise_relu, 0.0f, 0.0f) == dnnl_success;
    if (ok) ok = dnnl_primitive_attr_set_post_ops(attr, post_ops) == dnnl_success;
    dnnl_primitive_desc_t pd = NULL;
    if (ok && dnnl_primitive_desc_create(&pd, &desc, attr, engine, NULL) != dnnl_success) pd = NULL;
    if (post_ops) dnnl_post_ops_destroy(post_ops);
    if (attr) dnnl_primitive_attr_destroy(attr);
    return pd;
}

/* Builds the primitive for a size from `pd`. The weights come from `source` laid out as `source_md`
   (the caller's HWIO copy, or the layout of an earlier size) unless that already is the layout wanted. With
   `temporary`, they are laid out in the loading thread's scratch, for `halve` to narrow right after. */
static int build_planned(pg_conv *conv, int batch, int height, int width, const dnnl_memory_desc_t *source_md,
                         const void *source, int temporary) {
    release_primitive(conv);
    dnnl_memory_desc_t src_md, bias_md, dst_md;
    dnnl_primitive_desc_t pd = describe(conv, batch, height, width, &src_md, &bias_md, &dst_md);
    if (!pd) return 0;
    const dnnl_memory_desc_t *wanted = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    if (!conv->weights || !dnnl_memory_desc_equal(wanted, source_md)) {
        size_t bytes = dnnl_memory_desc_get_size(wanted);
        void *moved = temporary ? (void *)pg_load_scratch(bytes / sizeof(float) + 1) : aligned_alloc(64, (bytes + 63) / 64 * 64);
        /* One thread for the weight reorder: on a shared machine a second OpenMP thread that has lost
           its core stalls the whole reorder. The primitive keeps the thread count it was described with. */
        int threads = omp_get_max_threads();
        omp_set_num_threads(1);
        int reordered = moved && reorder(conv->stream, source_md, source, wanted, moved);
        omp_set_num_threads(threads);
        if (!reordered) {
            if (!temporary) free(moved);
            dnnl_primitive_desc_destroy(pd);
            return 0;
        }
        if (!conv->weights_borrowed) free(conv->weights);
        conv->weights = moved;
        conv->weights_borrowed = temporary;
        conv->weights_bytes = bytes;
        conv->weights_md = *wanted;
    }
    int ok = dnnl_primitive_create(&conv->primitive, pd) == dnnl_success
        && dnnl_memory_create(&conv->src_memory, &src_md, engine, DNNL_MEMORY_NONE) == dnnl_success
        && dnnl_memory_create(&conv->weights_memory, &conv->weights_md, engine, conv->weights ? conv->weights : DNNL_MEMORY_NONE)
            == dnnl_success
        && dnnl_memory_create(&conv->bias_memory, &bias_md, engine, conv->bias) == dnnl_success
        && dnnl_memory_create(&conv->dst_memory, &dst_md, engine, DNNL_MEMORY_NONE) == dnnl_success;
    dnnl_primitive_desc_destroy(pd);
    if (!ok) {
        release_primitive(conv);
        return 0;
    }
    conv->batch = batch;
    conv->height = height;
    conv->width = width;
    return 1;
}

/* build_planned with the primitive split for the convolution's `planned` threads, whatever the caller's thread last
   asked OpenMP for (a pass on one thread may come before a size change). */
static int build(pg_conv *conv, int batch, int height, int width, const dnnl_memory_desc_t *source_md, const void *source,
                 int temporary) {
    int previous = omp_get_max_threads();
    omp_set_num_threads(conv->planned);
    int built = build_planned(conv, batch, height, width, source_md, source, temporary);
    omp_set_num_threads(previous);
    return built;
}

/* The primitive for a run with `threads`: the one split for one thread when that is asked for and the main one was
   split for more (built now the first time). */
static dnnl_primitive_t primitive_for(pg_conv *conv, int threads) {
    if (threads != 1 || conv->planned <= 1 || conv->single_refused) return conv->primitive;
    if (!conv->single) {
        int previous = omp_get_max_threads();
        omp_set_num_threads(1);
        dnnl_memory_desc_t src_md, bias_md, dst_md;
        dnnl_primitive_desc_t pd = describe(conv, conv->batch, conv->height, conv->width, &src_md, &bias_md, &dst_md);
        const dnnl_memory_desc_t *wanted = pd ? dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0) : NULL;
        if (!wanted || !dnnl_memory_desc_equal(wanted, &conv->weights_md) || dnnl_primitive_create(&conv->single, pd) != dnnl_success) {
            conv->single = NULL;
            conv->single_refused = 1;
        }
        if (pd) dnnl_primitive_desc_destroy(pd);
        omp_set_num_threads(previous);
    }
    return conv->single ? conv->single : conv->primitive;
}

int pg_conv_runs_single(const pg_conv *conv) { return conv && conv->single != NULL; }

/* Half mode: keeps the laid-out weights as float16 and drops the float32 copy. */
static int halve(pg_conv *conv) {
    size_t count = conv->weights_bytes / sizeof(float);
    conv->halves = malloc(count * sizeof(uint16_t));
    if (!conv->halves) return 0;
    pg_float_to_half(conv->weights, conv->halves, count);
    if (!conv->weights_borrowed) free(conv->weights);
    conv->weights = NULL;
    conv->weights_borrowed = 0;
    return dnnl_memory_set_data_handle(conv->weights_memory, DNNL_MEMORY_NONE) == dnnl_success;
}

pg_conv *pg_conv_create(int batch, int height, int width, int cin, int cout, int kernel, int stride, int pad,
                        const float *weights, const float *bias, int relu, int accumulate, int half, int layout, int block,
                        int threads, int own_kernels) {
    if (!pg_dnnl_available() || (half && !can_halve())) return NULL;
    if (layout == PG_LAYOUT_NHWC) block = 0;
    else if (block != 8 && block != 16) return NULL;
    int winograd = own_kernels && pg_conv_winograd_applies(kernel, stride, pad, half, layout);
    /* No AVX-512 version of the pointwise kernels (yet): such a layer is refused rather than run on something else. */
    if (own_kernels == PG_OWN_AVX512 && !winograd) return NULL;
    if (winograd || (own_kernels && pg_conv_pointwise_applies(kernel, stride, pad, half, layout))) {
        pg_conv *conv = calloc(1, sizeof(pg_conv));
        if (!conv) return NULL;
        if (winograd)
            conv->winograd = pg_winograd_create(cin, cout, block, weights, bias, relu, accumulate, half,
                                                pg_conv_winograd_tile(height, width, half), own_kernels == PG_OWN_AVX512);
        else conv->pointwise = pg_pointwise_create(cin, cout, block, weights, bias, relu, accumulate);
        if (!conv->winograd && !conv->pointwise) {
            free(conv);
            return NULL;
        }
        return conv;
    }
    pg_conv *conv = calloc(1, sizeof(pg_conv));
    if (!conv) return NULL;
    conv->layout = layout;
    conv->block = block;
    conv->cin = cin;
    conv->cout = cout;
    conv->kernel = kernel;
    conv->stride = stride;
    conv->pad = pad;
    conv->relu = relu;
    conv->accumulate = accumulate;
    conv->bias = malloc(sizeof(float) * (size_t)cout);
    dnnl_dims_t weight_dims = {cout, cin, kernel, kernel};
    dnnl_memory_desc_t hwio_md;
    if (!conv->bias || dnnl_stream_create(&conv->stream, engine, dnnl_stream_default_flags) != dnnl_success
        || dnnl_memory_desc_init_by_tag(&hwio_md, 4, weight_dims, dnnl_f32, dnnl_hwio) != dnnl_success) {
        pg_conv_destroy(conv);
        return NULL;
    }
    memcpy(conv->bias, bias, sizeof(float) * (size_t)cout);
    /* oneDNN splits the work of a primitive when it is described, for the threads allowed then (see build). */
    conv->planned = threads > 0 ? threads : 1;
    /* The first build reorders the caller's HWIO weights straight into the primitive's layout. */
    if (!build(conv, batch, height, width, &hwio_md, weights, half) || (half && !halve(conv))) {
        pg_conv_destroy(conv);
        return NULL;
    }
    return conv;
}

int pg_conv_winograd_applies(int kernel, int stride, int pad, int half, int layout) {
    return kernel == 3 && stride == 1 && pad == 1 && layout == PG_LAYOUT_BLOCKED && pg_dnnl_available()
        && pg_winograd_supported() && (!half || can_halve());
}

int pg_conv_winograd_tile(int height, int width, int half) {
    return !half && height <= PG_WINOGRAD_SMALL_TILE_SIDE && width <= PG_WINOGRAD_SMALL_TILE_SIDE ? 2 : 4;
}

int pg_conv_pointwise_applies(int kernel, int stride, int pad, int half, int layout) {
    return kernel == 1 && stride == 1 && pad == 0 && layout == PG_LAYOUT_BLOCKED && pg_dnnl_available()
        && pg_winograd_supported() && half && can_halve();
}

int pg_conv_prepare(pg_conv *conv, int batch, int height, int width) {
    if (!conv) return 0;
    if (conv->winograd || conv->pointwise) return batch > 0 && height > 0 && width > 0;
    if (!conv->primitive || conv->batch != batch || conv->height != height || conv->width != width) {
        dnnl_memory_desc_t stored_md = conv->weights_md;
        if (conv->halves) {
            /* Rebuild from a float32 copy, then keep the (possibly new) layout half-size again. */
            size_t count = conv->weights_bytes / sizeof(float);
            float *full = malloc(count * sizeof(float));
            if (!full) return 0;
            pg_half_to_float(conv->halves, full, count);
            free(conv->halves);
            conv->halves = NULL;
            conv->weights = full;
            if (!build(conv, batch, height, width, &stored_md, conv->weights, 0) || !halve(conv)) return 0;
        } else if (!build(conv, batch, height, width, &stored_md, conv->weights, 0)) {
            return 0;
        }
    }
    return 1;
}

int pg_conv_run(pg_conv *conv, int batch, int height, int width, const float *src, float *dst, int threads,
                float *widened) {
    if (!conv || (conv->halves && !widened)) return 1;
    if (conv->winograd) return pg_winograd_run(conv->winograd, batch, height, width, src, dst, threads) == 0 ? 0 : 6;
    if (conv->pointwise) return pg_pointwise_run(conv->pointwise, batch, height, width, src, dst, threads) == 0 ? 0 : 6;
    omp_set_num_threads(threads > 0 ? threads : 1);
    if (!pg_conv_prepare(conv, batch, height, width)) return 2;
    if (conv->halves && dnnl_memory_set_data_handle(conv->weights_memory, widened) != dnnl_success) return 3;
    if (dnnl_memory_set_data_handle(conv->src_memory, (void *)src) != dnnl_success
        || dnnl_memory_set_data_handle(conv->dst_memory, dst) != dnnl_success)
        return 3;
    dnnl_exec_arg_t args[4] = {
        {DNNL_ARG_SRC, conv->src_memory},
        {DNNL_ARG_WEIGHTS, conv->weights_memory},
        {DNNL_ARG_BIAS, conv->bias_memory},
        {DNNL_ARG_DST, conv->dst_memory},
    };
    if (dnnl_primitive_execute(primitive_for(conv, threads), conv->stream, 4, args) != dnnl_success) return 4;
    return dnnl_stream_wait(conv->stream) == dnnl_success ? 0 : 5;
}

void pg_dnnl_trim(void) {
    pg_load_scratch_release();
    malloc_trim(0);
}

int pg_conv_uses_own_kernel(const pg_conv *conv) {
    if (!conv || (!conv->winograd && !conv->pointwise)) return PG_OWN_NONE;
    return pg_winograd_uses_avx512(conv->winograd) ? PG_OWN_AVX512 : PG_OWN_AVX2;
}

int pg_conv_winograd_avx512_applies(int kernel, int stride, int pad, int half, int layout) {
    return pg_conv_winograd_applies(kernel, stride, pad, half, layout) && pg_winograd_avx512_supported();
}

size_t pg_conv_weight_bytes(const pg_conv *conv) {
    if (!conv) return 0;
    if (conv->winograd) return pg_winograd_weight_bytes(conv->winograd);
    if (conv->pointwise) return pg_pointwise_weight_bytes(conv->pointwise);
    return conv->halves ? conv->weights_bytes / 2 : conv->weights_bytes;
}

const uint16_t *pg_conv_half_weights(const pg_conv *conv, size_t *count) {
    if (!conv || !conv->halves) return NULL;
    if (count) *count = conv->weights_bytes / sizeof(float);
    return conv->halves;
}

void pg_conv_destroy(pg_conv *conv) {
    if (!conv) return;
    release_primitive(conv);
    pg_winograd_destroy(conv->winograd);
    pg_pointwise_destroy(conv->pointwise);
    if (!conv->weights_borrowed) free(conv->weights);
    free(conv->halves);
    free(conv->bias);
    if (conv->stream) dnnl_stream_destroy(conv->stream);
    free(conv);
}

#else

int pg_dnnl_available(void) { return 0; }

int pg_dnnl_channel_block(void) { return 0; }

pg_conv *pg_conv_create(int batch, int height, int width, int cin, int cout, int kernel, int stride, int pad,
                        const float *weights, const float *bias, int relu, int accumulate, int half, int layout, int block,
                        int threads, int own_kernels) {
    (void)threads; (void)layout; (void)block; (void)own_kernels;
    (void)batch; (void)height; (void)width; (void)cin; (void)cout; (void)kernel; (void)stride; (void)pad;
    (void)weights; (void)bias; (void)relu; (void)accumulate; (void)half;
    return NULL;
}

int pg_conv_winograd_applies(int kernel, int stride, int pad, int half, int layout) {
    (void)kernel; (void)stride; (void)pad; (void)half; (void)layout;
    return 0;
}

int pg_conv_winograd_tile(int height, int width, int half) {
    (void)height; (void)width; (void)half;
    return 4;
}

int pg_conv_runs_single(const pg_conv *conv) { (void)conv; return 0; }

int pg_conv_pointwise_applies(int kernel, int stride, int pad, int half, int layout) {
    (void)kernel; (void)stride; (void)pad; (void)half; (void)layout;
    return 0;
}

int pg_conv_prepare(pg_conv *conv, int batch, int height, int width) {
    (void)conv; (void)batch; (void)height; (void)width;
    return 0;
}

int pg_conv_run(pg_conv *conv, int batch, int height, int width, const float *src, float *dst, int threads,
                float *widened) {
    (void)conv; (void)batch; (void)height; (void)width; (void)src; (void)dst; (void)threads; (void)widened;
    return 1;
}

const uint16_t *pg_conv_half_weights(const pg_conv *conv, size_t *count) {
    (void)conv; (void)count;
    return NULL;
}

size_t pg_conv_weight_bytes(const pg_conv *conv) { (void)conv; return 0; }

int pg_conv_uses_own_kernel(const pg_conv *conv) { (void)conv; return 0; }

int pg_conv_winograd_avx512_applies(int kernel, int stride, int pad, int half, int layout) {
    (void)kernel; (void)stride; (void)pad; (void)half; (void)layout;
    return 0;
}

void pg_dnnl_trim(void) {}

void pg_conv_destroy(pg_conv *conv) { (void)conv; }

#endif
