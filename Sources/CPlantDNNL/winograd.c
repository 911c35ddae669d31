#include "winograd.h"
#include "PlantKernels.h"
#include "load_scratch.h"

#if defined(__linux__) && defined(__x86_64__)
#include "own_kernels.h"
#include <immintrin.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

/* F(4×4, 3×3): 6×6 input tiles give 4×4 outputs; 36 products per tile and channel pair instead of 144. F(2×2, 3×3):
   4×4 input tiles give 2×2 outputs; 16 products instead of 36 (see pg_conv_winograd_tile for which layers).
   The products are worked out for blocks of 24 tiles (4 rows of the 6-tile kernel) at a time. Layers whose
   transformed weights would take more than 4 MiB keep the 3×3 weights instead (as compact as oneDNN's, or half that
   in float16) and transform them for each run, 128 input channels of a panel at a time, while the products use them:
   reading 4× the bytes from memory cost more than the transform. */
enum { MAX_TILE = 4, MAX_ALPHA = 6, PANEL = 16, ROWS = 6, TILE_BLOCK = 24, CHUNK = 128 };
/* Floats between the positions of a chunk of transformed weights: a whole chunk plus two cache lines, so that the 36
   (or 16) stores of one transform do not all fall on the same cache set (they would, 8 KiB apart). */
enum { CHUNK_STRIDE = CHUNK * PANEL + 32 };
#define PRECOMPUTED_MAX_BYTES ((size_t)4 << 20)

struct pg_winograd {
    /* Outputs per tile side (2 or 4). */
    int tile;
    /* Whether the products of whole 16-channel panels run on the AVX-512 kernel (see multiply_rows). */
    int avx512;
    /* Channels as stored: padded to whole blocks (and so to whole vectors of 8). */
    int cin, cout, block, relu, accumulate;
    /* Precomputed U = G g Gᵀ per position (36 or 16), as panels of 16 output channels (8 for a last odd vector):
       position p, panel starting at channel c0 of width w: `u + p·cin·cout + c0·cin`, laid out [cin][w]. */
    float *u;
    /* Otherwise the 3×3 weights g per panel: panel from c0 of width w at `c0·cin·9`, laid out [cin][9][w], as
       float32 (`g`) or float16 (`g_half`). */
    float *g;
    uint16_t *g_half;
    float *bias;
};

int pg_winograd_supported(void) {
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
}

int pg_winograd_avx512_supported(void) { return pg_winograd_supported() && __builtin_cpu_supports("avx512f"); }

/* Positions (products per tile and channel pair) of `conv`'s tiles. */
static int positions(const pg_winograd *conv) { return (conv->tile + 2) * (conv->tile + 2); }

/* Width of the panel of output channels starting at `c0`. */
static int panel_width(const pg_winograd *conv, int c0) { return conv->cout - c0 < PANEL ? conv->cout - c0 : PANEL; }

int pg_winograd_uses_avx512(const pg_winograd *conv) { return conv && conv->avx512; }

size_t pg_winograd_weight_bytes(const pg_winograd *conv) {
    if (!conv) return 0;
    size_t pairs = (size_t)conv->cin * conv->cout;
    return conv->u ? (size_t)positions(conv) * pairs * sizeof(float) : conv->g ? 9 * pairs * sizeof(float) : 9 * pairs * sizeof(uint16_t);
}

void pg_winograd_destroy(pg_winograd *conv) {
    if (!conv) return;
    free(conv->u);
    free(conv->g);
    free(conv->g_half);
    free(conv->bias);
    free(conv);
}

/* Scratch for the transformed inputs and the products, shared by every convolution and guarded by a lock
   (forward passes of one model are serial; two models at once take turns on these layers). */
static pthread_mutex_t scratch_lock = PTHREAD_MUTEX_INITIALIZER;
static float *scratch;
static size_t scratch_floats;

struct job {
    const pg_winograd *conv;
    int batch, height, width, tiles_high, tiles_wide, tiles;
    /* Counters the threads take each phase's items from (see pg_take). */
    long *next;
    const float *src;
    float *dst, *v, *m;
    /* Each thread's room for a chunk of transformed weights (when they are not precomputed). */
    float *u;
};

#define AVX2 __attribute__((target("avx2,fma,f16c")))
#define INLINE static inline __attribute__((always_inline, target("avx2,fma,f16c")))

/* Bᵀ x for one column (or row) of six vectors (F(4×4, 3×3)). */
INLINE void input_transform6(const __m256 x[MAX_ALPHA], __m256 y[MAX_ALPHA]) {
    const __m256 two = _mm256_set1_ps(2), four = _mm256_set1_ps(4), five = _mm256_set1_ps(5);
    y[0] = _mm256_add_ps(_mm256_fnmadd_ps(five, x[2], _mm256_mul_ps(four, x[0])), x[4]);
    y[1] = _mm256_fnmadd_ps(four, _mm256_add_ps(x[1], x[2]), _mm256_add_ps(x[3], x[4]));
    y[2] = _mm256_fmadd_ps(four, _mm256_sub_ps(x[1], x[2]), _mm256_sub_ps(x[4], x[3]));
    y[3] = _mm256_fmadd_ps(two, _mm256_sub_ps(x[3], x[1]), _mm256_sub_ps(x[4], x[2]));
    y[4] = _mm256_fnmadd_ps(two, _mm256_sub_ps(x[3], x[1]), _mm256_sub_ps(x[4], x[2]));
    y[5] = _mm256_add_ps(_mm256_fnmadd_ps(five, x[3], _mm256_mul_ps(four, x[1])), x[5]);
}

/* Bᵀ x for one column (or row) of four vectors (F(2×2, 3×3)). */
INLINE void input_transform4(const __m256 x[MAX_ALPHA], __m256 y[MAX_ALPHA]) {
    y[0] = _mm256_sub_ps(x[0], x[2]);
    y[1] = _mm256_add_ps(x[1], x[2]);
    y[2] = _mm256_sub_ps(x[2], x[1]);
    y[3] = _mm256_sub_ps(x[1], x[3]);
}

/* Bᵀ x for tiles of `tile` outputs a side. */
INLINE void input_transform(const int tile, const __m256 x[MAX_ALPHA], __m256 y[MAX_ALPHA]) {
    if (tile == 4) input_transform6(x, y);
    else input_transform4(x, y);
}

/* Aᵀ m for one column (or row) of six vectors (F(4×4, 3×3)). */
INLINE void output_transform6(const __m256 m[MAX_ALPHA], __m256 o[MAX_TILE]) {
    const __m256 two = _mm256_set1_ps(2), four = _mm256_set1_ps(4), eight = _mm256_set1_ps(8);
    __m256 sum12 = _mm256_add_ps(m[1], m[2]), diff12 = _mm256_sub_ps(m[1], m[2]);
    __m256 sum34 = _mm256_add_ps(m[3], m[4]), diff34 = _mm256_sub_ps(m[3], m[4]);
    o[0] = _mm256_add_ps(_mm256_add_ps(m[0], sum12), sum34);
    o[1] = _mm256_fmadd_ps(two, diff34, diff12);
    o[2] = _mm256_fmadd_ps(four, sum34, sum12);
    o[3] = _mm256_add_ps(_mm256_fmadd_ps(eight, diff34, diff12), m[5]);
}

/* Aᵀ m for one column (or row) of four vectors (F(2×2, 3×3)). */
INLINE void output_transform4(const __m256 m[MAX_ALPHA], __m256 o[MAX_TILE]) {
    __m256 sum12 = _mm256_add_ps(m[1], m[2]);
    o[0] = _mm256_add_ps(m[0], sum12);
    o[1] = _mm256_sub_ps(_mm256_sub_ps(m[1], m[2]), m[3]);
}

/* Aᵀ m for tiles of `tile` outputs a side. */
INLINE void output_transform(const int tile, const __m256 m[MAX_ALPHA], __m256 o[MAX_TILE]) {
    if (tile == 4) output_transform6(m, o);
    else output_transform4(m, o);
}

/* Where tile `t` starts: image, first input row and column (one above and left of its outputs). */
static void tile_origin(const struct job *job, int t, int *n, int *y0, int *x0) {
    int per_image = job->tiles_high * job->tiles_wide;
    *n = t / per_image;
    int within = t % per_image;
    *y0 = within / job->tiles_wide * job->conv->tile - 1;
    *x0 = within % job->tiles_wide * job->conv->tile - 1;
}

/* V = Bᵀ d B for tile `t` and the 8 input channels from `c`, into `v[p][t][c…c+7]`, for tiles of `tile` outputs. */
INLINE void transform_input_tiles(const struct job *job, int t, int c, const int tile) {
    const int alpha = tile + 2;
    const pg_winograd *conv = job->conv;
    int n, y0, x0;
    tile_origin(job, t, &n, &y0, &x0);
    const int block = conv->block, height = job->height, width = job->width;
    const float *plane = job->src + (((size_t)n * (conv->cin / block) + c / block) * height * width) * block + c % block;
    __m256 d[MAX_ALPHA][MAX_ALPHA], columns[MAX_ALPHA][MAX_ALPHA];
    for (int y = 0; y < alpha; y++) {
        int iy = y0 + y;
        for (int x = 0; x < alpha; x++) {
            int ix = x0 + x;
            d[y][x] = iy >= 0 && iy < height && ix >= 0 && ix < width ? _mm256_loadu_ps(plane + ((size_t)iy * width + ix) * block)
                                                                      : _mm256_setzero_ps();
        }
    }
    /* Bᵀ d, column by column, then (Bᵀ d) B, row by row. */
    for (int x = 0; x < alpha; x++) {
        __m256 column[MAX_ALPHA], transformed[MAX_ALPHA];
        for (int y = 0; y < alpha; y++) column[y] = d[y][x];
        input_transform(tile, column, transformed);
        for (int y = 0; y < alpha; y++) columns[y][x] = transformed[y];
    }
    size_t stride = (size_t)job->tiles * conv->cin;
    float *out = job->v + (size_t)t * conv->cin + c;
    for (int i = 0; i < alpha; i++) {
        __m256 row[MAX_ALPHA];
        input_transform(tile, columns[i], row);
        for (int j = 0; j < alpha; j++) _mm256_storeu_ps(out + (size_t)(i * alpha + j) * stride, row[j]);
    }
}

AVX2 static void transform_input(const struct job *job, int t, int c) {
    if (job->conv->tile == 4) transform_input_tiles(job, t, c, 4);
    else transform_input_tiles(job, t, c, 2);
}

/* Y = Aᵀ M A for tile `t` and the 8 output channels from `c`, plus bias, shortcut and ReLU, into the map, for tiles of
   `tile` outputs. */
INLINE void transform_output_tiles(const struct job *job, int t, int c, const int tile) {
    const int alpha = tile + 2;
    const pg_winograd *conv = job->conv;
    int n, y0, x0;
    tile_origin(job, t, &n, &y0, &x0);
    y0 += 1;
    x0 += 1;
    const int block = conv->block, height = job->height, width = job->width;
    size_t stride = (size_t)job->tiles * conv->cout;
    const float *in = job->m + (size_t)t * conv->cout + c;
    __m256 rows[MAX_TILE][MAX_ALPHA];
    for (int j = 0; j < alpha; j++) {
        __m256 column[MAX_ALPHA], reduced[MAX_TILE];
        for (int i = 0; i < alpha; i++) column[i] = _mm256_loadu_ps(in + (size_t)(i * alpha + j) * stride);
        output_transform(tile, column, reduced);
        for (int k = 0; k < tile; k++) rows[k][j] = reduced[k];
    }
    float *plane = job->dst + (((size_t)n * (conv->cout / block) + c / block) * height * width) * block + c % block;
    const __m256 bias = _mm256_loadu_ps(conv->bias + c), zero = _mm256_setzero_ps();
    for (int k = 0; k < tile; k++) {
        int oy = y0 + k;
        if (oy >= height) break;
        __m256 out[MAX_TILE];
        output_transform(tile, rows[k], out);
        for (int l = 0; l < tile; l++) {
            int ox = x0 + l;
            if (ox >= width) break;
            float *target = plane + ((size_t)oy * width + ox) * block;
            __m256 value = _mm256_add_ps(out[l], bias);
            if (conv->accumulate) value = _mm256_add_ps(value, _mm256_loadu_ps(target));
            if (conv->relu) value = _mm256_max_ps(value, zero);
            _mm256_storeu_ps(target, value);
        }
    }
}

AVX2 static void transform_output(const struct job *job, int t, int c) {
    if (job->conv->tile == 4) transform_output_tiles(job, t, c, 4);
    else transform_output_tiles(job, t, c, 2);
}

/* c[r][0…8·vectors) (+)= Σₖ a[r·lda + k] · b[k][…], for `rows` rows (≤ 6) and one or two vectors of columns; `add`
   adds onto what c holds (the products of earlier input channels). */
INLINE void multiply_block(const int rows, const int vectors, int depth, const float *a, int lda, const float *b, float *c, int ldc,
                           int add) {
    __m256 acc[ROWS][2];
#pragma clang loop unroll(full)
    for (int r = 0; r < ROWS; r++) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    if (add) {
#pragma clang loop unroll(full)
        for (int r = 0; r < rows; r++) {
            acc[r][0] = _mm256_loadu_ps(c + (size_t)r * ldc);
            if (vectors > 1) acc[r][1] = _mm256_loadu_ps(c + (size_t)r * ldc + 8);
        }
    }
    const int width = vectors * 8;
    /* Four steps per loop: 1–1.5 % off ResNet50's forward pass (alternating passes in one process). */
#pragma clang loop unroll_count(4)
    for (int k = 0; k < depth; k++) {
        __m256 b0 = _mm256_loadu_ps(b + (size_t)k * width);
        __m256 b1 = vectors > 1 ? _mm256_loadu_ps(b + (size_t)k * width + 8) : b0;
#pragma clang loop unroll(full)
        for (int r = 0; r < rows; r++) {
            __m256 x = _mm256_broadcast_ss(a + (size_t)r * lda + k);
            acc[r][0] = _mm256_fmadd_ps(x, b0, acc[r][0]);
            if (vectors > 1) acc[r][1] = _mm256_fmadd_ps(x, b1, acc[r][1]);
        }
    }
#pragma clang loop unroll(full)
    for (int r = 0; r < rows; r++) {
        _mm256_storeu_ps(c + (size_t)r * ldc, acc[r][0]);
        if (vectors > 1) _mm256_storeu_ps(c + (size_t)r * ldc + 8, acc[r][1]);
    }
}

#define MULTIPLY(R, V) \
    AVX2 static void multiply_##R##_##V(int depth, const float *a, int lda, const float *b, float *c, int ldc, int add) { \
        multiply_block(R, V, depth, a, lda, b, c, ldc, add); \
    }
MULTIPLY(1, 1) MULTIPLY(2, 1) MULTIPLY(3, 1) MULTIPLY(4, 1) MULTIPLY(5, 1) MULTIPLY(6, 1)
MULTIPLY(1, 2) MULTIPLY(2, 2) MULTIPLY(3, 2) MULTIPLY(4, 2) MULTIPLY(5, 2) MULTIPLY(6, 2)

typedef void (*multiply_fn)(int, const float *, int, const float *, float *, int, int);
static const multiply_fn multipliers[2][ROWS] = {
    {multiply_1_1, multiply_2_1, multiply_3_1, multiply_4_1, multiply_5_1, multiply_6_1},
    {multiply_1_2, multiply_2_2, multiply_3_2, multiply_4_2, multiply_5_2, multiply_6_2},
};

/* The AVX-512 product: c[r][0…16) (+)= Σₖ a[r·lda + k] · b[k][0…16) for `rows` rows (≤ ROWS512), one 16-float register
   a row, so a whole panel in one register and twice the rows of the AVX2 kernel between loads of b (32 registers). */
enum { ROWS512 = 12 };
#define AVX512 __attribute__((target("avx512f,avx2,fma,f16c")))
#define INLINE512 static inline __attribute__((always_inline, target("avx512f,avx2,fma,f16c")))

INLINE512 void multiply_block512(const int rows, int depth, const float *a, int lda, const float *b, float *c, int ldc, int add) {
    __m512 acc[ROWS512];
#pragma clang loop unroll(full)
    for (int r = 0; r < ROWS512; r++) acc[r] = _mm512_setzero_ps();
    if (add) {
#pragma clang loop unroll(full)
        for (int r = 0; r < rows; r++) acc[r] = _mm512_loadu_ps(c + (size_t)r * ldc);
    }
#pragma clang loop unroll_count(4)
    for (int k = 0; k < depth; k++) {
        __m512 b0 = _mm512_loadu_ps(b + (size_t)k * PANEL);
#pragma clang loop unroll(full)
        for (int r = 0; r < rows; r++) acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[(size_t)r * lda + k]), b0, acc[r]);
    }
#pragma clang loop unroll(full)
    for (int r = 0; r < rows; r++) _mm512_storeu_ps(c + (size_t)r * ldc, acc[r]);
}

#define MULTIPLY512(R) \
    AVX512 static void multiply512_##R(int depth, const float *a, int lda, const float *b, float *c, int ldc, int add) { \
        multiply_block512(R, depth, a, lda, b, c, ldc, add); \
    }
MULTIPLY512(1) MULTIPLY512(2) MULTIPLY512(3) MULTIPLY512(4) MULTIPLY512(5) MULTIPLY512(6)
MULTIPLY512(7) MULTIPLY512(8) MULTIPLY512(9) MULTIPLY512(10) MULTIPLY512(11) MULTIPLY512(12)

static const multiply_fn multipliers512[ROWS512] = {
    multiply512_1, multiply512_2, multiply512_3, multiply512_4, multiply512_5, multiply512_6,
    multiply512_7, multiply512_8, multiply512_9, multiply512_10, multiply512_11, multiply512_12,
};

/* M[p][t0…t1)[c0…c0+w) (+)= V[p][t0…t1)[k0…k0+depth) · b, where b holds U[p] for those input channels and the panel,
   `[depth][w]`. */
static void multiply_rows(const struct job *job, int p, int t0, int t1, int c0, int k0, int depth, const float *b, int add) {
    const pg_winograd *conv = job->conv;
    int width = panel_width(conv, c0);
    const float *a = job->v + ((size_t)p * job->tiles + t0) * conv->cin + k0;
    float *c = job->m + ((size_t)p * job->tiles + t0) * conv->cout + c0;
    /* Whole panels on the AVX-512 kernel when the layer has it, 12 rows a step; otherwise AVX2, 6 rows a step. */
    const int wide = conv->avx512 && width == PANEL, step = wide ? ROWS512 : ROWS;
    const multiply_fn *multiply = wide ? multipliers512 : multipliers[width / 8 - 1];
    for (int t = t0; t < t1; t += step) {
        int rows = t1 - t < step ? t1 - t : step;
        multiply[rows - 1](depth, a, conv->cin, b, c, conv->cout, add);
        a += (size_t)step * conv->cin;
        c += (size_t)step * conv->cout;
    }
}

/* With precomputed U: M[p][t0…t1)[all channels] = V[p][t0…t1) · U[p], panel by panel, each panel over the block's
   rows of tiles: the block's transformed inputs stay in cache across the panels, each panel across the block's rows. */
static void multiply_tiles(const struct job *job, int p, int t0, int t1) {
    const pg_winograd *conv = job->conv;
    for (int c0 = 0; c0 < conv->cout; c0 += PANEL)
        multiply_rows(job, p, t0, t1, c0, 0, conv->cin, conv->u + (size_t)p * conv->cin * conv->cout + (size_t)c0 * conv->cin, 0);
}

/* G x for three vectors (a column or row of g): six vectors (F(4×4, 3×3)). */
INLINE void weight_transform6(__m256 x0, __m256 x1, __m256 x2, __m256 y[MAX_ALPHA]) {
    const __m256 quarter = _mm256_set1_ps(1.0f / 4), sixth = _mm256_set1_ps(1.0f / 6), twelfth = _mm256_set1_ps(1.0f / 12),
                 twentyfourth = _mm256_set1_ps(1.0f / 24);
    __m256 outer = _mm256_add_ps(x0, x2);
    y[0] = _mm256_mul_ps(quarter, x0);
    y[1] = _mm256_mul_ps(_mm256_set1_ps(-1.0f / 6), _mm256_add_ps(outer, x1));
    y[2] = _mm256_mul_ps(_mm256_set1_ps(-1.0f / 6), _mm256_sub_ps(outer, x1));
    __m256 even = _mm256_fmadd_ps(twentyfourth, x0, _mm256_mul_ps(sixth, x2)), odd = _mm256_mul_ps(twelfth, x1);
    y[3] = _mm256_add_ps(even, odd);
    y[4] = _mm256_sub_ps(even, odd);
    y[5] = x2;
}

/* G x for three vectors: four vectors (F(2×2, 3×3)). */
INLINE void weight_transform4(__m256 x0, __m256 x1, __m256 x2, __m256 y[MAX_ALPHA]) {
    const __m256 half = _mm256_set1_ps(0.5f);
    __m256 outer = _mm256_add_ps(x0, x2);
    y[0] = x0;
    y[1] = _mm256_mul_ps(half, _mm256_add_ps(outer, x1));
    y[2] = _mm256_mul_ps(half, _mm256_sub_ps(outer, x1));
    y[3] = x2;
}

/* G x for tiles of `tile` outputs a side. */
INLINE void weight_transform(const int tile, __m256 x0, __m256 x1, __m256 x2, __m256 y[MAX_ALPHA]) {
    if (tile == 4) weight_transform6(x0, x1, x2, y);
    else weight_transform4(x0, x1, x2, y);
}

INLINE __m256 load_weights(const pg_winograd *conv, size_t index) {
    if (conv->g) return _mm256_loadu_ps(conv->g + index);
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(conv->g_half + index)));
}

/* U = G g Gᵀ for input channels [k0, k0+depth) of the panel from c0, into `u`: position p at `p·stride`, laid out
   [depth][w], for tiles of `tile` outputs. */
INLINE void transform_weights_tiles(const pg_winograd *conv, int c0, int k0, int depth, float *u, size_t stride, const int tile) {
    const int alpha = tile + 2;
    int width = panel_width(conv, c0);
    for (int k = 0; k < depth; k++) {
        for (int lane = 0; lane < width; lane += 8) {
            size_t base = (size_t)c0 * conv->cin * 9 + (size_t)(k0 + k) * 9 * width + lane;
            __m256 g[9], columns[MAX_ALPHA][3];
            for (int tap = 0; tap < 9; tap++) g[tap] = load_weights(conv, base + (size_t)tap * width);
            for (int x = 0; x < 3; x++) {
                __m256 column[MAX_ALPHA];
                weight_transform(tile, g[x], g[3 + x], g[6 + x], column);
                for (int i = 0; i < alpha; i++) columns[i][x] = column[i];
            }
            for (int i = 0; i < alpha; i++) {
                __m256 row[MAX_ALPHA];
                weight_transform(tile, columns[i][0], columns[i][1], columns[i][2], row);
                for (int j = 0; j < alpha; j++) _mm256_storeu_ps(u + (size_t)(i * alpha + j) * stride + (size_t)k * width + lane, row[j]);
            }
        }
    }
}

AVX2 static void transform_weights(const pg_winograd *conv, int c0, int k0, int depth, float *u, size_t stride) {
    if (conv->tile == 4) transform_weights_tiles(conv, c0, k0, depth, u, stride, 4);
    else transform_weights_tiles(conv, c0, k0, depth, u, stride, 2);
}

/* Without precomputed U: the panel from c0 for tiles [t0, t1), 128 input channels at a time, each chunk's U
   transformed into this thread's `u` and used for all positions before the next. */
static void multiply_panel_transforming(const struct job *job, int c0, int t0, int t1, float *u) {
    const pg_winograd *conv = job->conv;
    int width = panel_width(conv, c0);
    for (int k0 = 0; k0 < conv->cin; k0 += CHUNK) {
        int depth = conv->cin - k0 < CHUNK ? conv->cin - k0 : CHUNK;
        transform_weights(conv, c0, k0, depth, u, CHUNK_STRIDE);
        for (int p = 0; p < positions(conv); p++) multiply_rows(job, p, t0, t1, c0, k0, depth, u + (size_t)p * CHUNK_STRIDE, k0 > 0);
    }
}

pg_winograd *pg_winograd_create(int cin, int cout, int block, const float *weights, const float *bias, int relu, int accumulate,
                                int half, int tile, int avx512) {
    if (block % 8 != 0 || block <= 0 || (tile != 2 && tile != 4) || !pg_winograd_supported()) return NULL;
    if (avx512 && !pg_winograd_avx512_supported()) return NULL;
    pg_winograd *conv = calloc(1, sizeof(pg_winograd));
    if (!conv) return NULL;
    conv->tile = tile;
    conv->avx512 = avx512 != 0;
    conv->cin = pg_round_up(cin, block);
    conv->cout = pg_round_up(cout, block);
    conv->block = block;
    conv->relu = relu;
    conv->accumulate = accumulate;
    conv->bias = calloc((size_t)conv->cout, sizeof(float));
    size_t pairs = (size_t)conv->cin * conv->cout;
    int precompute = !half && (size_t)positions(conv) * pairs * sizeof(float) <= PRECOMPUTED_MAX_BYTES;
    /* The 3×3 weights in panels, as float32: kept as they are, or (in the loading thread's scratch) narrowed to
       float16 or transformed once here. */
    int keep_g = !precompute && !half;
    float *g = keep_g ? aligned_alloc(64, (9 * pairs * sizeof(float) + 63) / 64 * 64) : pg_load_scratch(9 * pairs);
    if (keep_g) conv->g = g;
    if (precompute) conv->u = aligned_alloc(64, ((size_t)positions(conv) * pairs * sizeof(float) + 63) / 64 * 64);
    if (half) conv->g_half = aligned_alloc(64, (9 * pairs * sizeof(uint16_t) + 63) / 64 * 64);
    if (!conv->bias || !g || (precompute && !conv->u) || (half && !conv->g_half)) {
        pg_winograd_destroy(conv);
        return NULL;
    }
    memcpy(conv->bias, bias, sizeof(float) * (size_t)cout);
    memset(g, 0, 9 * pairs * sizeof(float));
    for (int ci = 0; ci < cin; ci++) {
        for (int co = 0; co < cout; co++) {
            int c0 = co / PANEL * PANEL, width = panel_width(conv, c0);
            for (int tap = 0; tap < 9; tap++)
                g[(size_t)c0 * conv->cin * 9 + ((size_t)ci * 9 + tap) * width + (co - c0)] = weights[((size_t)tap * cin + ci) * cout + co];
        }
    }
    if (precompute) {
        /* transform_weights reads `conv->g` (float32) until U is complete. */
        conv->g = g;
        for (int c0 = 0; c0 < conv->cout; c0 += PANEL) transform_weights(conv, c0, 0, conv->cin, conv->u + (size_t)c0 * conv->cin, pairs);
        conv->g = NULL;
    }
    if (half) pg_float_to_half(g, conv->g_half, 9 * pairs);
    return conv;
}

/* The tiles [t0, t1) of block `b` (blocks of TILE_BLOCK tiles, the last one shorter). */
static void block_tiles(const struct job *job, long b, int *t0, int *t1) {
    *t0 = (int)b * TILE_BLOCK;
    *t1 = *t0 + TILE_BLOCK < job->tiles ? *t0 + TILE_BLOCK : job->tiles;
}

static void work(void *data) {
    const struct job *job = data;
    const pg_winograd *conv = job->conv;
    long begin, end;
    int in_vectors = conv->cin / 8, out_vectors = conv->cout / 8;
    while (pg_take(&job->next[0], (long)job->tiles * in_vectors, &begin, &end))
        for (long item = begin; item < end; item++) transform_input(job, (int)(item / in_vectors), (int)(item % in_vectors) * 8);
    GOMP_barrier();
    int blocks = (job->tiles + TILE_BLOCK - 1) / TILE_BLOCK;
    if (conv->u) {
        while (pg_take(&job->next[1], (long)positions(conv) * blocks, &begin, &end))
            for (long item = begin; item < end; item++) {
                int t0, t1;
                block_tiles(job, item % blocks, &t0, &t1);
                multiply_tiles(job, (int)(item / blocks), t0, t1);
            }
    } else {
        int panels = (conv->cout + PANEL - 1) / PANEL;
        float *u = job->u + (size_t)omp_get_thread_num() * positions(conv) * CHUNK_STRIDE;
        while (pg_take(&job->next[1], (long)panels * blocks, &begin, &end))
            for (long item = begin; item < end; item++) {
                int t0, t1;
                block_tiles(job, item % blocks, &t0, &t1);
                multiply_panel_transforming(job, (int)(item / blocks) * PANEL, t0, t1, u);
            }
    }
    GOMP_barrier();
    while (pg_take(&job->next[2], (long)job->tiles * out_vectors, &begin, &end))
        for (long item = begin; item < end; item++) transform_output(job, (int)(item / out_vectors), (int)(item % out_vectors) * 8);
}

int pg_winograd_run(pg_winograd *conv, int batch, int height, int width, const float *src, float *dst, int threads) {
    if (!conv || batch <= 0 || height <= 0 || width <= 0) return 1;
    struct job job = {.conv = conv, .batch = batch, .height = height, .width = width, .src = src, .dst = dst};
    job.tiles_high = (height + conv->tile - 1) / conv->tile;
    job.tiles_wide = (width + conv->tile - 1) / conv->tile;
    job.tiles = batch * job.tiles_high * job.tiles_wide;
    if (threads < 1) threads = 1;
    size_t v_floats = (size_t)positions(conv) * job.tiles * conv->cin, m_floats = (size_t)positions(conv) * job.tiles * conv->cout;
    size_t u_floats = conv->u ? 0 : (size_t)threads * positions(conv) * CHUNK_STRIDE;
    pthread_mutex_lock(&scratch_lock);
    if (scratch_floats < v_floats + m_floats + u_floats) {
        size_t wanted = v_floats + m_floats + u_floats;
        float *grown = aligned_alloc(64, (wanted * sizeof(float) + 63) / 64 * 64);
        if (!grown) {
            pthread_mutex_unlock(&scratch_lock);
            return 2;
        }
        free(scratch);
        scratch = grown;
        scratch_floats = wanted;
    }
    job.v = scratch;
    job.m = scratch + v_floats;
    job.u = scratch + v_floats + m_floats;
    long next[3] = {0, 0, 0};
    job.next = next;
    GOMP_parallel(work, &job, (unsigned)threads, 0);
    pthread_mutex_unlock(&scratch_lock);
    return 0;
}

#else

int pg_winograd_supported(void) { return 0; }

int pg_winograd_avx512_supported(void) { return 0; }

pg_winograd *pg_winograd_create(int cin, int cout, int block, const float *weights, const float *bias, int relu, int accumulate,
                                int half, int tile, int avx512) {
    (void)cin; (void)cout; (void)block; (void)weights; (void)bias; (void)relu; (void)accumulate; (void)half; (void)tile;
    (void)avx512;
    return NULL;
}

int pg_winograd_run(pg_winograd *conv, int batch, int height, int width, const float *src, float *dst, int threads) {
    (void)conv; (void)batch; (void)height; (void)width; (void)src; (void)dst; (void)threads;
    return 1;
}

size_t pg_winograd_weight_bytes(const pg_winograd *conv) { (void)conv; return 0; }

int pg_winograd_uses_avx512(const pg_winograd *conv) { (void)conv; return 0; }

void pg_winograd_destroy(pg_winograd *conv) { (void)conv; }

#endif
