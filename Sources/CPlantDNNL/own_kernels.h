// What our own kernels (winograd.c, pointwise.c) share: libgomp's entry points and the split of work between its
// threads; runnable.c uses the entry points too. Private to CPlantDNNL; Linux only.
#ifndef PLANT_OWN_KERNELS_H
#define PLANT_OWN_KERNELS_H

/* libgomp's entry points, the same OpenMP runtime (and threads) oneDNN runs on: no second pool of threads
   competing for the cores between layers. Declared here because clang's <omp.h> targets libomp. */
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);
void GOMP_barrier(void);
int omp_get_thread_num(void);
int omp_get_num_threads(void);

/* `value` rounded up to a whole number of `step`s. */
static inline int pg_round_up(int value, int step) { return (value + step - 1) / step * step; }

/* The calling thread's next chunk [begin, end) of `count` items shared by a GOMP_parallel region's threads through
   `next` (zero before the region): big chunks first, smaller ones as the items run out ("guided"), so a thread that
   loses its core for a while leaves its items to the others instead of holding up the region. Returns 0 when none
   are left. */
static inline int pg_take(long *next, long count, long *begin, long *end) {
    long start = __atomic_load_n(next, __ATOMIC_RELAXED);
    for (;;) {
        if (start >= count) return 0;
        long size = (count - start) / (2 * omp_get_num_threads());
        if (size < 1) size = 1;
        if (__atomic_compare_exchange_n(next, &start, start + size, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            *begin = start;
            *end = start + size;
            return 1;
        }
    }
}

#endif
