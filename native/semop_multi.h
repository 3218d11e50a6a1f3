/* semop_multi.h - the ABI of native/semop_multi.c (see contend.h). */
#ifndef CONTEND_SEMOP_MULTI_H
#define CONTEND_SEMOP_MULTI_H

#include "contend.h"

struct ct_semop_multi_params {
	int threads;          /* worker threads (reconstruction: online CPUs) */
	int sems;             /* semaphores in the one array (CPUs/4, at least 1) */
	uint64_t duration_ns; /* main sleeps this long (original: 30 s) */
	int pin;              /* pin thread i to the i-th allowed CPU (mod count) */
	int inject;           /* testing only: CT_INJECT_* failures, 0 in real runs */
	/*
	 * Caller-owned array of `threads` counters that receives each
	 * thread's operation count (2 per loop). May be NULL.
	 */
	uint64_t *per_thread;
	int sem_key;  /* the set's key, chosen by the parent; 0: IPC_PRIVATE */
	int report_fd;
};

struct ct_semop_multi_result {
	struct ct_status status;
	uint64_t total_ops;       /* sum of the per-thread counts */
	uint64_t elapsed_ns;      /* release of the gate .. all threads joined */
	uint64_t nominal_ns;      /* the duration main slept (= duration_ns) */
	int cpus;                 /* online CPUs, as the original printed */
	int threads_created;
	int semid;                /* the array's id (removed on return) */
};

int ct_semop_multi_run(const struct ct_semop_multi_params *p, struct ct_semop_multi_result *r);

#endif
