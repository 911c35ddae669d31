#include "pointwise.h"
#include "PlantKernels.h"
#include "load_scratch.h"
#include "winograd.h"

#if defined(__linux__) && defined(__x86_64__)
#include "own_kernels.h"
#include <immintrin.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Output channels in panels of 16 (two vectors), pixels 6 at a time: 12 accumulators, two weight vectors and a
   broadcast in the 16 AVX2 registers. A thread takes blocks of PIXEL_BLOCK pixels of one panel. */
enum { PANEL = 16, ROWS = 6, PIXEL_BLOCK = 48 };

struct pg_pointwise {
    /* Channels as stored: padded to whole blocks. */
    int cin, cout, block, relu, accumulate;
    /* Float16 weights per panel, widened a panel at a time during each run: the panel from c0 of width w at `c0·cin`,
       laid out [cin][w]. */
    uint16_t *w_half;
    float *bias;
};

static int panel_width(const pg_pointwise *conv, int c0) { return conv->cout - c0 < PANEL ? conv->cout - c0 : PANEL; }

size_t pg_pointwise_weight_bytes(const pg_pointwise *conv) {
    return conv ? (size_t)conv->cin * conv->cout * sizeof(uint16_t) : 0;
}

void pg_pointwise_destroy(pg_pointwise *conv) {
    if (!conv) return;
    free(conv->w_half);
    free(conv->bias);
    free(conv);
}

pg_pointwise *pg_pointwise_create(int cin, int cout, int block, const float *weights, const float *bias, int relu, int accumulate) {
    if ((block != 8 && block != 16) || !pg_winograd_supported()) return NULL;
    pg_pointwise *conv = calloc(1, sizeof(pg_pointwise));
    if (!conv) return NULL;
    conv->cin = pg_round_up(cin, block);
    conv->cout = pg_round_up(cout, block);
    conv->block = block;
    conv->relu = relu;
    conv->accumulate = accumulate;
    size_t pairs = (size_t)conv->cin * conv->cout;
    conv->bias = calloc((size_t)conv->cout, sizeof(float));
    /* The weights in panels, as float32 in the loading thread's scratch, then narrowed. */
    float *w = pg_load_scratch(pairs);
    conv->w_half = aligned_alloc(64, (pairs * sizeof(uint16_t) + 63) / 64 * 64);
    if (!conv->bias || !w || !conv->w_half) {
        pg_pointwise_destroy(conv);
        return NULL;
    }
    memcpy(conv->bias, bias, sizeof(float) * (size_t)cout);
    memset(w, 0, pairs * sizeof(float));
    for (int ci = 0; ci < cin; ci++) {
        for (int co = 0; co < cout; co++) {
            int c0 = co / PANEL * PANEL;
            w[(size_t)c0 * conv->cin + (size_t)ci * panel_width(conv, c0) + (co - c0)] = weights[(size_t)ci * cout + co];
        }
    }
    pg_float_to_half(w, conv->w_half, pairs);
    return conv;
}

struct job {
    const pg_pointwise *conv;
    int batch, pixels, pixel_blocks, panels;
    const float *src;
    float *dst;
    /* Room for a panel's widened weights per thread. */
    float *widened;
    /* The counter the threads take items from (see pg_take). */
    long *next;
};

#define INLINE static inline __attribute__((always_inline, target("avx2,fma,f16c")))
#define AVX2 __attribute__((target("avx2,fma,f16c")))

/* Output pixels [p, p+rows) of image n, channels [c0, c0+8·vectors): Σ over input channels of the pixels' inputs times
   the panel's weights `b` ([cin][8·vectors]), plus bias, the previous output when accumulating, then ReLU. */
INLINE void pointwise_block(const int rows, const int vectors, const int block, const struct job *job, int n, int p, int c0,
                            const float *b) {
    const pg_pointwise *conv = job->conv;
    const size_t plane = (size_t)job->pixels * block;
    const float *a = job->src + (size_t)n * (conv->cin / block) * plane + (size_t)p * block;
    __m256 acc[ROWS][2];
#pragma clang loop unroll(full)
    for (int r = 0; r < ROWS; r++) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    const int width = vectors * 8;
    for (int k0 = 0; k0 < conv->cin; k0 += block, a += plane) {
#pragma clang loop unroll(full)
        for (int j = 0; j < block; j++) {
            const float *row = b + (size_t)(k0 + j) * width;
            __m256 b0 = _mm256_loadu_ps(row);
            __m256 b1 = vectors > 1 ? _mm256_loadu_ps(row + 8) : b0;
#pragma clang loop unroll(full)
            for (int r = 0; r < rows; r++) {
                __m256 x = _mm256_broadcast_ss(a + r * block + j);
                acc[r][0] = _mm256_fmadd_ps(x, b0, acc[r][0]);
                if (vectors > 1) acc[r][1] = _mm256_fmadd_ps(x, b1, acc[r][1]);
            }
        }
    }
    const __m256 zero = _mm256_setzero_ps();
#pragma clang loop unroll(full)
    for (int v = 0; v < vectors; v++) {
        int c = c0 + v * 8;
        float *out = job->dst + ((size_t)n * (conv->cout / block) + c / block) * plane + (size_t)p * block + c % block;
        const __m256 bias = _mm256_loadu_ps(conv->bias + c);
#pragma clang loop unroll(full)
        for (int r = 0; r < rows; r++) {
            __m256 value = _mm256_add_ps(acc[r][v], bias);
            if (conv->accumulate) value = _mm256_add_ps(value, _mm256_loadu_ps(out + r * block));
            if (conv->relu) value = _mm256_max_ps(value, zero);
            _mm256_storeu_ps(out + r * block, value);
        }
    }
}

#define POINTWISE(R, V, B) \
    AVX2 static void pointwise_##R##_##V##_##B(const struct job *job, int n, int p, int c0, const float *b) { \
        pointwise_block(R, V, B, job, n, p, c0, b); \
    }
#define POINTWISE_ROWS(V, B) POINTWISE(1, V, B) POINTWISE(2, V, B) POINTWISE(3, V, B) POINTWISE(4, V, B) POINTWISE(5, V, B) POINTWISE(6, V, B)
POINTWISE_ROWS(1, 8) POINTWISE_ROWS(2, 8) POINTWISE_ROWS(1, 16) POINTWISE_ROWS(2, 16)

typedef void (*pointwise_fn)(const struct job *, int, int, int, const float *);
#define ROW_FUNCTIONS(V, B) {pointwise_1_##V##_##B, pointwise_2_##V##_##B, pointwise_3_##V##_##B, pointwise_4_##V##_##B, \
                             pointwise_5_##V##_##B, pointwise_6_##V##_##B}
/* [block is 16][vectors − 1][rows − 1] */
static const pointwise_fn kernels[2][2][ROWS] = {
    {ROW_FUNCTIONS(1, 8), ROW_FUNCTIONS(2, 8)},
    {ROW_FUNCTIONS(1, 16), ROW_FUNCTIONS(2, 16)},
};

static void work(void *data) {
    const struct job *job = data;
    const pg_pointwise *conv = job->conv;
    long begin, end;
    float *widened = job->widened + (size_t)omp_get_thread_num() * conv->cin * PANEL;
    int last_panel = -1;
    /* Panel by panel: a thread keeps one panel's weights in cache over the pixel blocks it takes. */
    while (pg_take(job->next, (long)job->batch * job->panels * job->pixel_blocks, &begin, &end)) {
        for (long item = begin; item < end; item++) {
            int panel = (int)(item / ((long)job->batch * job->pixel_blocks));
            long rest = item % ((long)job->batch * job->pixel_blocks);
            int n = (int)(rest / job->pixel_blocks), block_index = (int)(rest % job->pixel_blocks);
            int c0 = panel * PANEL, width = panel_width(conv, c0);
            if (panel != last_panel) pg_half_to_float(conv->w_half + (size_t)c0 * conv->cin, widened, (size_t)conv->cin * width);
            last_panel = panel;
            int p1 = (block_index + 1) * PIXEL_BLOCK < job->pixels ? (block_index + 1) * PIXEL_BLOCK : job->pixels;
            const pointwise_fn *row_kernels = kernels[conv->block == 16][width / 8 - 1];
            for (int p = block_index * PIXEL_BLOCK; p < p1; p += ROWS) {
                int rows = p1 - p < ROWS ? p1 - p : ROWS;
                row_kernels[rows - 1](job, n, p, c0, widened);
            }
        }
    }
}

int pg_pointwise_run(pg_pointwise *conv, int batch, int height, int width, const float *src, float *dst, int threads) {
    if (!conv || batch <= 0 || height <= 0 || width <= 0) return 1;
    if (threads < 1) threads = 1;
    struct job job = {.conv = conv, .batch = batch, .pixels = height * width, .src = src, .dst = dst};
    job.pixel_blocks = (job.pixels + PIXEL_BLOCK - 1) / PIXEL_BLOCK;
    job.panels = (conv->cout + PANEL - 1) / PANEL;
    job.widened = aligned_alloc(64, (size_t)threads * conv->cin * PANEL * sizeof(float));
    if (!job.widened) return 2;
    long next = 0;
    job.next = &next;
    GOMP_parallel(work, &job, (unsigned)threads, 0);
    free(job.widened);
    return 0;
}

#else

pg_pointwise *pg_pointwise_create(int cin, int cout, int block, const float *weights, const float *bias, int relu, int accumulate) {
    (void)cin; (void)cout; (void)block; (void)weights; (void)bias; (void)relu; (void)accumulate;
    return NULL;
}

int pg_pointwise_run(pg_pointwise *conv, int batch, int height, int width, const float *src, float *dst, int threads) {
    (void)conv; (void)batch; (void)height; (void)width; (void)src; (void)dst; (void)threads;
    return 1;
}

size_t pg_pointwise_weight_bytes(const pg_pointwise *conv) { (void)conv; return 0; }

void pg_pointwise_destroy(pg_pointwise *conv) { (void)conv; }

#endif
