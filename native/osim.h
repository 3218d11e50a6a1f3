/* osim.h - the ABI of native/osim.c (see contend.h). */
#ifndef CONTEND_OSIM_H
#define CONTEND_OSIM_H

#include "contend.h"

struct ct_osim_params {
	int sems;     /* lock semaphores; the array has sems + 1 (original arg 1) */
	int tasks;    /* worker processes (arg 2) */
	int loops;    /* total loops of all tasks, rounded up per task (arg 3) */
	int busy_in;  /* volatile increments inside the critical section (arg 4) */
	int busy_out; /* volatile increments outside it (arg 5) */
	int inject;   /* testing only: CT_INJECT_* failures, 0 in real runs */
	int sem_key;  /* the set's key, chosen by the parent; 0: IPC_PRIVATE */
	int report_fd;
};

struct ct_osim_result {
	struct ct_status status;
	int loops_per_task;   /* ceil(loops / tasks) */
	int64_t total_loops;  /* tasks * loops_per_task */
	uint64_t elapsed_ns;  /* just before SETALL .. wait-for-zero returned */
	uint64_t nvcsw;       /* voluntary context switches of all workers */
	uint64_t nivcsw;      /* involuntary context switches of all workers */
	uint64_t utime_ns;    /* user CPU time of all workers */
	uint64_t stime_ns;    /* system CPU time of all workers */
	int tasks_forked;
	int semid;            /* the array's id (removed on return) */
};

int ct_osim_run(const struct ct_osim_params *p, struct ct_osim_result *r);

#endif
