// zlib (Debian: zlib1g-dev), used to inflate deflate-compressed zip entries of PyTorch checkpoints.
#include <zlib.h>
