// What our own kernels (winograd.c, pointwise.c) share: libgomp's entry points and the split of work between its
// threads. Private to CPlantDNNL; x86-64 Linux only.
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

/* The calling thread's share [begin, end) of `count` items, inside a GOMP_parallel region. */
static inline void pg_thread_share(long count, long *begin, long *end) {
    int thread = omp_get_thread_num(), threads = omp_get_num_threads();
    *begin = count * thread / threads;
    *end = count * (thread + 1) / threads;
}

#endif
