// XXH64 (Yann Collet's xxHash, 64-bit variant), written from its specification. Model files record one per
// tensor: checking ResNet50's weights as they are read costs a few milliseconds, where SHA-256 or CRC-32
// would add tens to every load. It detects damage and edits, not a forger (who could rewrite the header too).
#include "PlantKernels.h"

#include <string.h>

static const uint64_t prime1 = 0x9E3779B185EBCA87ULL;
static const uint64_t prime2 = 0xC2B2AE3D27D4EB4FULL;
static const uint64_t prime3 = 0x165667B19E3779F9ULL;
static const uint64_t prime4 = 0x85EBCA77C2B2AE63ULL;
static const uint64_t prime5 = 0x27D4EB2F165667C5ULL;

static inline uint64_t rotate_left(uint64_t value, int bits) { return (value << bits) | (value >> (64 - bits)); }

// Model files and the platforms PlantGuide runs on are little-endian, so a plain load is the spec's read.
static inline uint64_t read64(const unsigned char *bytes) {
    uint64_t value;
    memcpy(&value, bytes, 8);
    return value;
}

static inline uint32_t read32(const unsigned char *bytes) {
    uint32_t value;
    memcpy(&value, bytes, 4);
    return value;
}

static inline uint64_t round64(uint64_t accumulator, uint64_t input) {
    accumulator += input * prime2;
    accumulator = rotate_left(accumulator, 31);
    return accumulator * prime1;
}

static inline uint64_t merge_round(uint64_t hash, uint64_t lane) {
    hash ^= round64(0, lane);
    return hash * prime1 + prime4;
}

uint64_t pg_xxh64(const void *data, size_t length, uint64_t seed) {
    const unsigned char *bytes = data;
    const unsigned char *end = bytes + length;
    uint64_t hash;
    if (length >= 32) {
        uint64_t v1 = seed + prime1 + prime2, v2 = seed + prime2, v3 = seed, v4 = seed - prime1;
        const unsigned char *last_stripe = end - 32;
        do {
            v1 = round64(v1, read64(bytes));
            v2 = round64(v2, read64(bytes + 8));
            v3 = round64(v3, read64(bytes + 16));
            v4 = round64(v4, read64(bytes + 24));
            bytes += 32;
        } while (bytes <= last_stripe);
        hash = rotate_left(v1, 1) + rotate_left(v2, 7) + rotate_left(v3, 12) + rotate_left(v4, 18);
        hash = merge_round(hash, v1);
        hash = merge_round(hash, v2);
        hash = merge_round(hash, v3);
        hash = merge_round(hash, v4);
    } else {
        hash = seed + prime5;
    }
    hash += (uint64_t)length;
    while (bytes + 8 <= end) {
        hash ^= round64(0, read64(bytes));
        hash = rotate_left(hash, 27) * prime1 + prime4;
        bytes += 8;
    }
    if (bytes + 4 <= end) {
        hash ^= (uint64_t)read32(bytes) * prime1;
        hash = rotate_left(hash, 23) * prime2 + prime3;
        bytes += 4;
    }
    while (bytes < end) {
        hash ^= (uint64_t)(*bytes) * prime5;
        hash = rotate_left(hash, 11) * prime1;
        bytes++;
    }
    hash ^= hash >> 33;
    hash *= prime2;
    hash ^= hash >> 29;
    hash *= prime3;
    hash ^= hash >> 32;
    return hash;
}
