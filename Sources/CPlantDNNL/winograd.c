#include "winograd.h"

#if defined(__linux__) && defined(__x86_64__)
#include <immintrin.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* libgomp's entry points, the same OpenMP runtime (and threads) oneDNN runs on: no second pool of threads
   competing for the cores between layers. Declared here because clang's <omp.h> targets libomp. */
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);
void GOMP_barrier(void);
int omp_get_thread_num(void);
int omp_get_num_threads(void);

/* F(4×4, 3×3): 6×6 input tiles give 4×4 outputs; 36 products per tile and channel pair instead of 144. */
/* The products are worked out for blocks of 24 tiles (4 rows of the 6-tile kernel) at a time. */
enum { TILE = 4, ALPHA = 6, POSITIONS = ALPHA * ALPHA, PANEL = 16, ROWS = 6, TILE_BLOCK = 24 };

struct pg_winograd {
    /* Channels as stored: padded to whole blocks (and so to whole vectors of 8). */
    int cin, cout, block, relu, accumulate;
    /* U = G g Gᵀ per position, as panels of 16 output channels (8 for a last odd vector):
       position p, panel starting at channel c0 of width w: `u + p·cin·cout + c0·cin`, laid out [cin][w]. */
    float *u;
    float *bias;
};

int pg_winograd_supported(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

static int round_up(int value, int step) { return (value + step - 1) / step * step; }

pg_winograd *pg_winograd_create(int cin, int cout, int block, const float *weights, const float *bias, int relu, int accumulate) {
    if (block % 8 != 0 || block <= 0) return NULL;
    pg_winograd *conv = calloc(1, sizeof(pg_winograd));
    if (!conv) return NULL;
    conv->cin = round_up(cin, block);
    conv->cout = round_up(cout, block);
    conv->block = block;
    conv->relu = relu;
    conv->accumulate = accumulate;
    size_t u_count = (size_t)POSITIONS * conv->cin * conv->cout;
    conv->u = aligned_alloc(64, (u_count * sizeof(float) + 63) / 64 * 64);
    conv->bias = calloc((size_t)conv->cout, sizeof(float));
    if (!conv->u || !conv->bias) {
        pg_winograd_destroy(conv);
        return NULL;
    }
    memset(conv->u, 0, u_count * sizeof(float));
    memcpy(conv->bias, bias, sizeof(float) * (size_t)cout);
    static const double G[ALPHA][3] = {
        {1.0 / 4, 0, 0}, {-1.0 / 6, -1.0 / 6, -1.0 / 6}, {-1.0 / 6, 1.0 / 6, -1.0 / 6},
        {1.0 / 24, 1.0 / 12, 1.0 / 6}, {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1},
    };
    for (int ci = 0; ci < cin; ci++) {
        for (int co = 0; co < cout; co++) {
            double g[3][3], gg[ALPHA][3];
            for (int y = 0; y < 3; y++)
                for (int x = 0; x < 3; x++) g[y][x] = weights[((size_t)(y * 3 + x) * cin + ci) * cout + co];
            for (int i = 0; i < ALPHA; i++)
                for (int x = 0; x < 3; x++) gg[i][x] = G[i][0] * g[0][x] + G[i][1] * g[1][x] + G[i][2] * g[2][x];
            int c0 = co / PANEL * PANEL;
            int width = conv->cout - c0 < PANEL ? conv->cout - c0 : PANEL;
            for (int i = 0; i < ALPHA; i++) {
                for (int j = 0; j < ALPHA; j++) {
                    double value = gg[i][0] * G[j][0] + gg[i][1] * G[j][1] + gg[i][2] * G[j][2];
                    size_t p = (size_t)(i * ALPHA + j);
                    conv->u[p * conv->cin * conv->cout + (size_t)c0 * conv->cin + (size_t)ci * width + (co - c0)] = (float)value;
                }
            }
        }
    }
    return conv;
}

size_t pg_winograd_weight_bytes(const pg_winograd *conv) {
    return conv ? (size_t)POSITIONS * conv->cin * conv->cout * sizeof(float) : 0;
}

void pg_winograd_destroy(pg_winograd *conv) {
    if (!conv) return;
    free(conv->u);
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
    const float *src;
    float *dst, *v, *m;
};

#define AVX2 __attribute__((target("avx2,fma")))
#define INLINE static inline __attribute__((always_inline, target("avx2,fma")))

/* Bᵀ x for one column (or row) of six vectors. */
INLINE void input_transform6(const __m256 x[ALPHA], __m256 y[ALPHA]) {
    const __m256 two = _mm256_set1_ps(2), four = _mm256_set1_ps(4), five = _mm256_set1_ps(5);
    y[0] = _mm256_add_ps(_mm256_fnmadd_ps(five, x[2], _mm256_mul_ps(four, x[0])), x[4]);
    y[1] = _mm256_fnmadd_ps(four, _mm256_add_ps(x[1], x[2]), _mm256_add_ps(x[3], x[4]));
    y[2] = _mm256_fmadd_ps(four, _mm256_sub_ps(x[1], x[2]), _mm256_sub_ps(x[4], x[3]));
    y[3] = _mm256_fmadd_ps(two, _mm256_sub_ps(x[3], x[1]), _mm256_sub_ps(x[4], x[2]));
    y[4] = _mm256_fnmadd_ps(two, _mm256_sub_ps(x[3], x[1]), _mm256_sub_ps(x[4], x[2]));
    y[5] = _mm256_add_ps(_mm256_fnmadd_ps(five, x[3], _mm256_mul_ps(four, x[1])), x[5]);
}

/* Aᵀ m for one column (or row) of six vectors. */
INLINE void output_transform6(const __m256 m[ALPHA], __m256 o[TILE]) {
    const __m256 two = _mm256_set1_ps(2), four = _mm256_set1_ps(4), eight = _mm256_set1_ps(8);
    __m256 sum12 = _mm256_add_ps(m[1], m[2]), diff12 = _mm256_sub_ps(m[1], m[2]);
    __m256 sum34 = _mm256_add_ps(m[3], m[4]), diff34 = _mm256_sub_ps(m[3], m[4]);
    o[0] = _mm256_add_ps(_mm256_add_ps(m[0], sum12), sum34);
    o[1] = _mm256_fmadd_ps(two, diff34, diff12);
    o[2] = _mm256_fmadd_ps(four, sum34, sum12);
    o[3] = _mm256_add_ps(_mm256_fmadd_ps(eight, diff34, diff12), m[5]);
}

/* Where tile `t` starts: image, first input row and column (one above and left of its outputs). */
static void tile_origin(const struct job *job, int t, int *n, int *y0, int *x0) {
    int per_image = job->tiles_high * job->tiles_wide;
    *n = t / per_image;
    int within = t % per_image;
    *y0 = within / job->tiles_wide * TILE - 1;
    *x0 = within % job->tiles_wide * TILE - 1;
}

/* V = Bᵀ d B for tile `t` and the 8 input channels from `c`, into `v[p][t][c…c+7]`. */
AVX2 static void transform_input(const struct job *job, int t, int c) {
    const pg_winograd *conv = job->conv;
    int n, y0, x0;
    tile_origin(job, t, &n, &y0, &x0);
    const int block = conv->block, height = job->height, width = job->width;
    const float *plane = job->src + (((size_t)n * (conv->cin / block) + c / block) * height * width) * block + c % block;
    __m256 d[ALPHA][ALPHA], columns[ALPHA][ALPHA];
    for (int y = 0; y < ALPHA; y++) {
        int iy = y0 + y;
        for (int x = 0; x < ALPHA; x++) {
            int ix = x0 + x;
            d[y][x] = iy >= 0 && iy < height && ix >= 0 && ix < width ? _mm256_loadu_ps(plane + ((size_t)iy * width + ix) * block)
                                                                      : _mm256_setzero_ps();
        }
    }
    /* Bᵀ d, column by column, then (Bᵀ d) B, row by row. */
    for (int x = 0; x < ALPHA; x++) {
        __m256 column[ALPHA], transformed[ALPHA];
        for (int y = 0; y < ALPHA; y++) column[y] = d[y][x];
        input_transform6(column, transformed);
        for (int y = 0; y < ALPHA; y++) columns[y][x] = transformed[y];
    }
    size_t stride = (size_t)job->tiles * conv->cin;
    float *out = job->v + (size_t)t * conv->cin + c;
    for (int i = 0; i < ALPHA; i++) {
        __m256 row[ALPHA];
        input_transform6(columns[i], row);
        for (int j = 0; j < ALPHA; j++) _mm256_storeu_ps(out + (size_t)(i * ALPHA + j) * stride, row[j]);
    }
}

/* Y = Aᵀ M A for tile `t` and the 8 output channels from `c`, plus bias, shortcut and ReLU, into the map. */
AVX2 static void transform_output(const struct job *job, int t, int c) {
    const pg_winograd *conv = job->conv;
    int n, y0, x0;
    tile_origin(job, t, &n, &y0, &x0);
    y0 += 1;
    x0 += 1;
    const int block = conv->block, height = job->height, width = job->width;
    size_t stride = (size_t)job->tiles * conv->cout;
    const float *in = job->m + (size_t)t * conv->cout + c;
    __m256 rows[TILE][ALPHA];
    for (int j = 0; j < ALPHA; j++) {
        __m256 column[ALPHA], reduced[TILE];
        for (int i = 0; i < ALPHA; i++) column[i] = _mm256_loadu_ps(in + (size_t)(i * ALPHA + j) * stride);
        output_transform6(column, reduced);
        for (int k = 0; k < TILE; k++) rows[k][j] = reduced[k];
    }
    float *plane = job->dst + (((size_t)n * (conv->cout / block) + c / block) * height * width) * block + c % block;
    const __m256 bias = _mm256_loadu_ps(conv->bias + c), zero = _mm256_setzero_ps();
    for (int k = 0; k < TILE; k++) {
        int oy = y0 + k;
        if (oy >= height) break;
        __m256 out[TILE];
        output_transform6(rows[k], out);
        for (int l = 0; l < TILE; l++) {
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

/* c[r][0…8·vectors) = Σₖ a[r·lda + k] · b[k][…], for `rows` rows (≤ 6) and one or two vectors of columns. */
INLINE void multiply_block(const int rows, const int vectors, int depth, const float *a, int lda, const float *b, float *c, int ldc) {
    __m256 acc[ROWS][2];
#pragma clang loop unroll(full)
    for (int r = 0; r < ROWS; r++) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    const int width = vectors * 8;
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
    AVX2 static void multiply_##R##_##V(int depth, const float *a, int lda, const float *b, float *c, int ldc) { \
        multiply_block(R, V, depth, a, lda, b, c, ldc); \
    }
MULTIPLY(1, 1) MULTIPLY(2, 1) MULTIPLY(3, 1) MULTIPLY(4, 1) MULTIPLY(5, 1) MULTIPLY(6, 1)
MULTIPLY(1, 2) MULTIPLY(2, 2) MULTIPLY(3, 2) MULTIPLY(4, 2) MULTIPLY(5, 2) MULTIPLY(6, 2)

typedef void (*multiply_fn)(int, const float *, int, const float *, float *, int);
static const multiply_fn multipliers[2][ROWS] = {
    {multiply_1_1, multiply_2_1, multiply_3_1, multiply_4_1, multiply_5_1, multiply_6_1},
    {multiply_1_2, multiply_2_2, multiply_3_2, multiply_4_2, multiply_5_2, multiply_6_2},
};

/* M[p][t0…t1)[all channels] = V[p][t0…t1) · U[p], panel by panel, each panel over the block's rows of tiles: the
   block's transformed inputs stay in cache across the panels, each panel across the block's rows. */
static void multiply_tiles(const struct job *job, int p, int t0, int t1) {
    const pg_winograd *conv = job->conv;
    const float *a = job->v + (size_t)p * job->tiles * conv->cin;
    float *c = job->m + (size_t)p * job->tiles * conv->cout;
    for (int c0 = 0; c0 < conv->cout; c0 += PANEL) {
        int width = conv->cout - c0 < PANEL ? conv->cout - c0 : PANEL;
        const float *b = conv->u + (size_t)p * conv->cin * conv->cout + (size_t)c0 * conv->cin;
        for (int t = t0; t < t1; t += ROWS) {
            int rows = t1 - t < ROWS ? t1 - t : ROWS;
            multipliers[width / 8 - 1][rows - 1](conv->cin, a + (size_t)t * conv->cin, conv->cin, b, c + (size_t)t * conv->cout + c0,
                                                  conv->cout);
        }
    }
}

/* This thread's share [begin, end) of `count` items. */
static void share(long count, long *begin, long *end) {
    int thread = omp_get_thread_num(), threads = omp_get_num_threads();
    *begin = count * thread / threads;
    *end = count * (thread + 1) / threads;
}

static void work(void *data) {
    const struct job *job = data;
    const pg_winograd *conv = job->conv;
    long begin, end;
    int in_vectors = conv->cin / 8, out_vectors = conv->cout / 8;
    share((long)job->tiles * in_vectors, &begin, &end);
    for (long item = begin; item < end; item++) transform_input(job, (int)(item / in_vectors), (int)(item % in_vectors) * 8);
    GOMP_barrier();
    int blocks = (job->tiles + TILE_BLOCK - 1) / TILE_BLOCK;
    share((long)POSITIONS * blocks, &begin, &end);
    for (long item = begin; item < end; item++) {
        int t0 = (int)(item % blocks) * TILE_BLOCK, t1 = t0 + TILE_BLOCK < job->tiles ? t0 + TILE_BLOCK : job->tiles;
        multiply_tiles(job, (int)(item / blocks), t0, t1);
    }
    GOMP_barrier();
    share((long)job->tiles * out_vectors, &begin, &end);
    for (long item = begin; item < end; item++) transform_output(job, (int)(item / out_vectors), (int)(item % out_vectors) * 8);
}

int pg_winograd_run(pg_winograd *conv, int batch, int height, int width, const float *src, float *dst, int threads) {
    if (!conv || batch <= 0 || height <= 0 || width <= 0) return 1;
    struct job job = {.conv = conv, .batch = batch, .height = height, .width = width, .src = src, .dst = dst};
    job.tiles_high = (height + TILE - 1) / TILE;
    job.tiles_wide = (width + TILE - 1) / TILE;
    job.tiles = batch * job.tiles_high * job.tiles_wide;
    size_t v_floats = (size_t)POSITIONS * job.tiles * conv->cin, m_floats = (size_t)POSITIONS * job.tiles * conv->cout;
    pthread_mutex_lock(&scratch_lock);
    if (scratch_floats < v_floats + m_floats) {
        size_t wanted = v_floats + m_floats;
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
    GOMP_parallel(work, &job, (unsigned)(threads > 0 ? threads : 1), 0);
    pthread_mutex_unlock(&scratch_lock);
    return 0;
}

#else

int pg_winograd_supported(void) { return 0; }

pg_winograd *pg_winograd_create(int cin, int cout, int block, const float *weights, const float *bias, int relu, int accumulate) {
    (void)cin; (void)cout; (void)block; (void)weights; (void)bias; (void)relu; (void)accumulate;
    return NULL;
}

int pg_winograd_run(pg_winograd *conv, int batch, int height, int width, const float *src, float *dst, int threads) {
    (void)conv; (void)batch; (void)height; (void)width; (void)src; (void)dst; (void)threads;
    return 1;
}

size_t pg_winograd_weight_bytes(const pg_winograd *conv) { (void)conv; return 0; }

void pg_winograd_destroy(pg_winograd *conv) { (void)conv; }

#endif
