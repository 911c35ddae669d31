// OpenBLAS's CBLAS interface (Debian: libopenblas-dev), including openblas_set_num_threads.
#include <cblas.h>
