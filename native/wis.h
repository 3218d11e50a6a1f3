/* wis.h - the ABI of native/wis.c, contend's runner of will-it-scale tests
 * (see contend.h; the shim compiled with each test is native/wis_shim.c). */
#ifndef CONTEND_WIS_H
#define CONTEND_WIS_H

#include "contend.h"

/* The shim's table, exported by every compiled test as ct_wis_shim: the
 * runner fills new_task before it calls the test. */
struct ct_wis_shim {
	unsigned magic; /* CT_WIS_MAGIC */
	void (*new_task)(void *(*func)(void *), void *arg);
};
#define CT_WIS_MAGIC 0x77697331U /* "wis1" */
extern struct ct_wis_shim ct_wis_shim; /* defined by wis_shim.c */

/* The process-mode leader's control slot (native/wis_proc.c), at the start
 * of the shared counters; a task's count is at (i + 1) * CT_WIS_SLOT. */
#define CT_WIS_SLOT 256 /* CT_SLOT */
struct ct_wis_control {
	int ready;        /* the tasks are forked, waiting at the gate */
	int done;         /* the tasks are reaped, testcase_cleanup returned */
	int fork_err;     /* a fork of a task failed: its errno */
	int dead_task;    /* the first task that died before the end ... */
	int dead_status;  /* ... -signal, or its exit status (0: none died) */
	int extra;        /* extra tasks started with new_task */
	int extra_err;    /* a new_task fork failed: its errno */
	/* The first pinned task whose CPU mask, read back with
	 * sched_getaffinity, is not the CPU it was pinned to: task + 1 (0:
	 * none), the CPU asked, the CPU got (-2: several, -1: unreadable). */
	int pin_task, pin_want, pin_got;
	int join_s;       /* the leader's wait for cancelled task threads, s */
};

/* The leader's exit status when a cancelled task thread did not end
 * within CT_WIS_JOIN_S seconds (testcase_cleanup is then not run): the
 * measured interval was over by then, so its counts stand (late_teardown
 * says so). */
#define CT_WIS_JOIN_S 10
#define CT_WIS_EXIT_LATE 4

struct ct_wis_params {
	const char *test;     /* the test's C file (for messages; the parent compiled it) */
	int tasks;            /* tasks counted: threads, or processes with processes */
	int mode;             /* 0: threads, 1: fork the tasks (will-it-scale's _processes) */
	uint64_t duration_ns; /* measured interval, after the warmup */
	uint64_t warmup_ns;   /* tasks run this long before the interval starts */
	int pin;              /* pin task i to the i-th allowed CPU (mod their number) */
	int report_fd;
	int join_s;           /* the wait for cancelled task threads, s (0: CT_WIS_JOIN_S) */
	const char *so;       /* thread mode: the compiled test (test + wis_shim.c), for dlopen */
	const char *exe;      /* process mode: the leader (test + wis_shim.c + wis_proc.c) */
	uint64_t *per_task;   /* out, caller's memory: tasks entries, counts in the interval */
};

struct ct_wis_result {
	struct ct_status status;
	uint64_t elapsed_ns;  /* the measured interval as the clock saw it */
	uint64_t iterations;  /* sum over the tasks, in the interval */
	char description[128];
	int extra_tasks;      /* started by the test with new_task */
	int late_teardown;    /* a cancelled task thread did not end: the seconds waited (join_s), else 0 */
};

int ct_wis_run(const struct ct_wis_params *p, struct ct_wis_result *r);

#endif
