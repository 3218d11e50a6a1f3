/* mutex.h - the ABI of native/mutex.c (see contend.h). */
#ifndef CONTEND_MUTEX_H
#define CONTEND_MUTEX_H

#include "contend.h"

enum ct_mutex_variant {
	CT_MUTEX_TRYLOCK = 0, /* Mitake's mainc.c: trylock, on EBUSY lock + contended++ */
	CT_MUTEX_LOCK = 1,    /* Xiao's original (inferred): lock */
};

struct ct_mutex_params {
	int threads;        /* worker threads (original: 1000) */
	uint64_t locks;     /* lock/unlock pairs per thread (original: 300000) */
	uint64_t stack;     /* requested thread stack size in bytes (original: 32 KiB) */
	int variant;        /* enum ct_mutex_variant */
	int report_fd;
};

struct ct_mutex_result {
	struct ct_status status;
	uint64_t threads_ns;     /* main: gate unlock .. last join, CLOCK_MONOTONIC */
	uint64_t counter;        /* the plain counter after the run (threads x locks) */
	uint64_t contended;      /* trylock returned EBUSY (trylock variant) */
	uint64_t stack_actual;   /* stack size of the first thread, pthread_getattr_np */
	int stack_err;           /* pthread_attr_setstacksize's error, 0 if accepted */
	int stack_honoured;      /* 1: the threads ran on the requested stack size */
	int threads_created;
};

int ct_mutex_run(const struct ct_mutex_params *p, struct ct_mutex_result *r);

#endif
