#define _GNU_SOURCE
#include "PlantDNNL.h"

#if defined(__linux__)
#include "own_kernels.h"
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { MOST_WORKERS = 64 };

/* The Linux thread ids of the calling thread's OpenMP workers (libgomp keeps a team of threads for each thread that
   starts regions, and reuses it), learnt by a region run for the purpose. */
static _Thread_local int worker_ids[MOST_WORKERS];
static _Thread_local int workers_known;

static void record_worker(void *data) {
    int *ids = data, number = omp_get_thread_num();
    if (number > 0 && number < MOST_WORKERS) ids[number] = (int)syscall(SYS_gettid);
}

/* Reads up to `size` − 1 bytes of the file at `path`; returns the count, or -1. */
static int read_small(const char *path, char *buffer, size_t size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t count = read(fd, buffer, size - 1);
    close(fd);
    if (count < 0) return -1;
    buffer[count] = 0;
    return (int)count;
}

/* Runnable threads on the machine (the fourth field of /proc/loadavg is "runnable/all"), or -1. */
static int runnable_threads(void) {
    char text[128];
    if (read_small("/proc/loadavg", text, sizeof text) <= 0) return -1;
    double ignored[3];
    int running = 0, all = 0;
    return sscanf(text, "%lf %lf %lf %d/%d", &ignored[0], &ignored[1], &ignored[2], &running, &all) == 5 ? running : -1;
}

/* Whether thread `id` of this process is running or runnable (state R in its stat file). */
static int is_runnable(int id) {
    char path[64], text[512];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", id);
    if (read_small(path, text, sizeof text) <= 0) return 0;
    /* "pid (name) S …": the name may hold spaces and parentheses, the state follows the last ')'. */
    char *end = strrchr(text, ')');
    return end && end[1] == ' ' && end[2] == 'R';
}

/* Threads ready to run outside the caller's team (see pg_idle_cores), or -1. */
static int runnable_elsewhere(int threads) {
    if (threads < 1) threads = 1;
    if (threads > MOST_WORKERS) threads = MOST_WORKERS;
    if (workers_known != threads) {
        memset(worker_ids, 0, sizeof worker_ids);
        if (threads > 1) GOMP_parallel(record_worker, worker_ids, (unsigned)threads, 0);
        workers_known = threads;
    }
    int least = -1;
    for (int reading = 0; reading < 3; reading++) {
        if (reading > 0) nanosleep(&(struct timespec){.tv_sec = 0, .tv_nsec = 100000}, NULL);
        int runnable = runnable_threads();
        if (runnable < 0) return -1;
        int ours = 1;
        for (int number = 1; number < threads; number++) ours += worker_ids[number] && is_runnable(worker_ids[number]);
        int elsewhere = runnable - ours > 0 ? runnable - ours : 0;
        if (least < 0 || elsewhere < least) least = elsewhere;
        if (least == 0) break;
    }
    return least;
}

int pg_idle_cores(int threads) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t allowed;
    /* /proc/loadavg counts the whole machine: meaningless for a process held to some of its CPUs. */
    if (online < 1 || sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < online) return -1;
    int elsewhere = runnable_elsewhere(threads);
    if (elsewhere < 0) return -1;
    return elsewhere < online ? (int)online - elsewhere : 0;
}

#else

int pg_idle_cores(int threads) {
    (void)threads;
    return -1;
}

#endif
