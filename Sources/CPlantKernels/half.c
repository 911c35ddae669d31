#include "PlantKernels.h"

#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

static float half_to_float_scalar(uint16_t half) {
    uint32_t sign = (uint32_t)(half & 0x8000u) << 16;
    uint32_t exponent = (half >> 10) & 0x1fu;
    uint32_t mantissa = half & 0x3ffu;
    uint32_t bits;
    if (exponent == 0) {
        if (mantissa == 0) {
            bits = sign;
        } else {
            // Subnormal half: normalise it, a float32 can represent it exactly.
            exponent = 127 - 15 + 1;
            while ((mantissa & 0x400u) == 0) {
                mantissa <<= 1;
                exponent--;
            }
            bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
        }
    } else if (exponent == 31) {
        bits = sign | 0x7f800000u | (mantissa << 13);
    } else {
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    }
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

#if defined(__x86_64__)
__attribute__((target("avx,f16c")))
static void half_to_float_f16c(const uint16_t *source, float *destination, size_t count) {
    size_t index = 0;
    for (; index + 8 <= count; index += 8) {
        __m128i halves = _mm_loadu_si128((const __m128i *)(source + index));
        _mm256_storeu_ps(destination + index, _mm256_cvtph_ps(halves));
    }
    for (; index < count; index++) destination[index] = half_to_float_scalar(source[index]);
}
#endif

void pg_half_to_float(const uint16_t *source, float *destination, size_t count) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("f16c")) {
        half_to_float_f16c(source, destination, count);
        return;
    }
#elif defined(__aarch64__)
    const __fp16 *halves = (const __fp16 *)source;
    for (size_t index = 0; index < count; index++) destination[index] = (float)halves[index];
    return;
#endif
    for (size_t index = 0; index < count; index++) destination[index] = half_to_float_scalar(source[index]);
}

static uint16_t float_to_half_scalar(float value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    uint32_t exponent = (bits >> 23) & 0xffu;
    uint32_t mantissa = bits & 0x7fffffu;
    if (exponent == 0xffu) return sign | 0x7c00u | (mantissa ? 0x200u : 0);  // infinity or NaN
    int32_t unbiased = (int32_t)exponent - 127 + 15;
    if (unbiased >= 31) return sign | 0x7c00u;
    if (unbiased <= 0) {
        if (unbiased < -10) return sign;
        // Subnormal half: shift the mantissa (with its hidden bit) into place, rounding to nearest even.
        mantissa |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - unbiased);
        uint32_t half = mantissa >> shift;
        uint32_t rest = mantissa & ((1u << shift) - 1);
        uint32_t midpoint = 1u << (shift - 1);
        if (rest > midpoint || (rest == midpoint && (half & 1u))) half++;
        return sign | (uint16_t)half;
    }
    uint32_t half = ((uint32_t)unbiased << 10) | (mantissa >> 13);
    uint32_t rest = mantissa & 0x1fffu;
    // A carry out of the mantissa correctly bumps the exponent (and reaches infinity at the top).
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) half++;
    return sign | (uint16_t)half;
}

#if defined(__x86_64__)
__attribute__((target("avx,f16c")))
static void float_to_half_f16c(const float *source, uint16_t *destination, size_t count) {
    size_t index = 0;
    for (; index + 8 <= count; index += 8) {
        __m128i halves = _mm256_cvtps_ph(_mm256_loadu_ps(source + index), _MM_FROUND_TO_NEAREST_INT);
        _mm_storeu_si128((__m128i *)(destination + index), halves);
    }
    for (; index < count; index++) destination[index] = float_to_half_scalar(source[index]);
}
#endif

void pg_float_to_half(const float *source, uint16_t *destination, size_t count) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("f16c")) {
        float_to_half_f16c(source, destination, count);
        return;
    }
#endif
    for (size_t index = 0; index < count; index++) destination[index] = float_to_half_scalar(source[index]);
}

static int32_t int8_dot_scalar(const int8_t *row, const int8_t *query, size_t dimension) {
    int32_t sum = 0;
    for (size_t index = 0; index < dimension; index++) sum += (int32_t)row[index] * (int32_t)query[index];
    return sum;
}

#if defined(__x86_64__)
__attribute__((target("avx2")))
static void int8_dot_rows_avx2(const int8_t *matrix, size_t rows, size_t dimension, const int8_t *query, int32_t *out) {
    for (size_t row = 0; row < rows; row++) {
        const int8_t *values = matrix + row * dimension;
        __m256i sum = _mm256_setzero_si256();
        size_t index = 0;
        for (; index + 16 <= dimension; index += 16) {
            __m256i a = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(values + index)));
            __m256i b = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(query + index)));
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(a, b));
        }
        __m128i half = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
        half = _mm_add_epi32(half, _mm_shuffle_epi32(half, 0x4e));
        half = _mm_add_epi32(half, _mm_shuffle_epi32(half, 0xb1));
        out[row] = _mm_cvtsi128_si32(half) + int8_dot_scalar(values + index, query + index, dimension - index);
    }
}
#endif

void pg_int8_dot_rows(const int8_t *matrix, size_t rows, size_t dimension, const int8_t *query, int32_t *out) {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2")) {
        int8_dot_rows_avx2(matrix, rows, dimension, query, out);
        return;
    }
#endif
    for (size_t row = 0; row < rows; row++) out[row] = int8_dot_scalar(matrix + row * dimension, query, dimension);
}
