/* sysbench_mutex.h - the ABI of native/sysbench_mutex.c (see contend.h). */
#ifndef CONTEND_SYSBENCH_MUTEX_H
#define CONTEND_SYSBENCH_MUTEX_H

#include "contend.h"

enum ct_sbm_rand {
	CT_SBM_RAND_THREAD = 0, /* per-thread xoroshiro128+, as sysbench 1.0.20 ships */
	CT_SBM_RAND_LIBC = 1,   /* glibc rand() % mutex-num, as sysbench 0.4 did */
};

struct ct_sbm_params {
	int threads;            /* worker threads (sysbench: --threads=1) */
	uint32_t mutex_num;     /* mutexes in the array (--mutex-num=4096) */
	uint32_t mutex_locks;   /* iterations per thread (--mutex-locks=50000) */
	uint32_t mutex_loops;   /* empty-loop iterations before each lock (--mutex-loops=10000) */
	int rand;               /* enum ct_sbm_rand */
	uint64_t stack;         /* thread stack size (--thread-stack-size=64K) */
	uint32_t seed;          /* srandom() seed; 0: time(NULL), as --rand-seed=0 */
	uint64_t *thread_ns;    /* caller's array of threads entries: each thread's event time */
	int report_fd;
};

struct ct_sbm_result {
	struct ct_status status;
	uint64_t total_ns;      /* "total time": all threads at the start barrier .. last join */
	uint64_t global_var;    /* the shared counter after the run */
	uint64_t stack_actual;  /* stack size of the first thread, pthread_getattr_np */
	int stack_err;          /* pthread_attr_setstacksize's error, 0 if accepted */
	int stack_honoured;     /* 1: the threads ran on the requested stack size */
	int threads_created;
	uint32_t seed;          /* the seed used */
};

int ct_sbm_run(const struct ct_sbm_params *p, struct ct_sbm_result *r);

#endif
