#include "../native/sysbench_mutex.c"
