/*
 * duration.h - the duration runner (native/duration.c): worker threads, a
 * start gate, pinning, a stop flag and per-worker counters, shared by
 * semop_multi.c and plugin.c (threads; its worker processes share the slot
 * layout and the CPU list).
 */
#ifndef CONTEND_DURATION_H
#define CONTEND_DURATION_H

#include <stddef.h>
#include <stdint.h>

#include "contend.h"

/*
 * CT_SLOT is the stride of the workers' counters. Each worker's slot is
 * CT_SLOT-aligned and written by that worker only, so no two workers share
 * a cache line, nor a pair of lines: x86 lines are 64 bytes, but the L2
 * spatial prefetcher pulls 128-byte-aligned pairs (folly and crossbeam pad
 * to 128 for it), POWER and some arm64 cores have 128-byte lines, s390x
 * 256-byte ones. 256 covers all of them, as will-it-scale's runner does;
 * a slot more than needed costs 128 bytes per worker.
 */
#define CT_SLOT 256
#define CT_COUNTERS 8 /* extra counters per worker (CONTEND_MAX_COUNTERS) */

/* ct_slot is one worker's counters, alone in its CT_SLOT bytes. */
struct ct_slot {
	uint64_t count;                 /* iterations (plugins), operations (semop-multi) */
	uint64_t counters[CT_COUNTERS]; /* a plugin's extra counters */
	int err;                        /* the worker's failure: a positive errno */
	int done;                       /* worker processes: the worker returned */
	int got_cpu;                    /* a pinned worker: the CPU its affinity holds (ct_pinned_cpu) */
};

/* ct_worker is what the runner gives each worker thread. */
struct ct_worker {
	unsigned id;              /* 0 .. n-1 */
	unsigned n;               /* the number of workers */
	int cpu;                  /* the CPU it is pinned to, or -1 */
	struct ct_slot *slot;     /* its counters */
	const volatile int *stop; /* set by the runner: return */
};

/* ct_duration is one run of the runner: the caller fills the first block. */
struct ct_duration {
	unsigned n;           /* worker threads, at least 1 */
	uint64_t duration_ns; /* set the stop flag this long after the gate opened;
			       * 0: set from the start, wait for the workers to return */
	int pin;              /* pin worker i to the i-th allowed CPU (mod their count) */
	int inject;           /* testing only: CT_INJECT_FORK_EAGAIN */
	/* prepare, if set, runs in each worker before it waits at the gate
	 * (not timed): the worker's own setup */
	void (*prepare)(void *arg, const struct ct_worker *w);
	/* work runs in each worker after the gate; returns 0 or a positive errno */
	int (*work)(void *arg, const struct ct_worker *w);
	void *arg;
	/* A worker's error fails the run as a failure of call, "by worker I of
	 * N", or in where's words if set (buf is the status detail). */
	const char *call;
	void (*where)(void *arg, unsigned id, char *buf, size_t len);
	uint64_t *per_thread; /* out, caller's memory: n counts, or NULL */

	/* Filled by ct_duration_run. */
	unsigned started;     /* threads created */
	uint64_t elapsed_ns;  /* the gate opened .. the last worker returned */
	uint64_t joined_ns;   /* the gate opened .. every thread joined */
	struct ct_slot total; /* sums over the workers */
};

/*
 * ct_duration_run creates d->n threads (pinned if asked), holds them at a
 * start gate until all have run prepare and wait, opens it, sleeps for the duration, sets the
 * stop flag, joins them and adds up their slots. It returns 0 or a
 * positive errno with st filled: a failed pthread_create (the threads
 * created are released straight into a return, work never runs) or the
 * first worker's error (by worker number; the counts are still summed).
 */
int ct_duration_run(struct ct_duration *d, struct ct_status *st);

/* ct_slot_at returns slot i of slots (CT_SLOT bytes each). */
struct ct_slot *ct_slot_at(void *slots, unsigned i);

/* ct_slots_sum adds up n slots into total, and their counts into
 * per_thread (n entries, or NULL). */
void ct_slots_sum(void *slots, unsigned n, uint64_t *per_thread, struct ct_slot *total);

/* CT_MAX_CPUS is the largest CPU number + 1 a mask is grown to (the
 * kernel's NR_CPUS is at most 8192 today). */
#define CT_MAX_CPUS (1 << 20)

/* ct_allowed_cpus sets *cpus to a malloc'ed array of the CPUs this thread
 * may run on, in order, and returns their number; -errno with st filled
 * if they cannot be read. The mask is as large as the kernel's (CPU_ALLOC,
 * not cpu_set_t's 1024 CPUs). Worker i is pinned to cpus[i % count]. */
int ct_allowed_cpus(int **cpus, struct ct_status *st);

#ifdef CPU_ALLOC /* <sched.h> under _GNU_SOURCE: the C files, not cgo's preambles */
/* ct_cpu_one returns a CPU_ALLOC'ed set of the one CPU cpu, its size in
 * *size (CPU_FREE it), or NULL. */
cpu_set_t *ct_cpu_one(int cpu, size_t *size);

/* ct_pinned_cpu returns the one CPU in the calling thread's affinity mask
 * (read by sched_getaffinity with a mask as large as the kernel's), -2
 * when it holds more or fewer than one, -1 when it cannot be read. A
 * pinned worker records it in its slot's got_cpu; the parent compares it
 * with the CPU it asked for (ct_check_pinned). */
int ct_pinned_cpu(void);

/* ct_check_pinned fails st, and returns the errno, when worker i of n,
 * asked to run on CPU want, recorded another in got (ct_pinned_cpu); 0
 * when it got what it asked. */
int ct_check_pinned(struct ct_status *st, unsigned i, unsigned n, int want, int got);
#endif

/* The probe: the runner with workers that record what they were given,
 * for bind's tests of the runner (bind/duration_test.go). */
struct ct_duration_probe_params {
	int threads;
	uint64_t duration_ns; /* 0: each worker counts 1000 and returns */
	int pin;
	int inject;
	int fail_worker;      /* this worker returns fail_errno at once; -1: none */
	int fail_errno;
	/* out, caller's memory, threads entries each */
	uint64_t *per_thread;
	uint64_t *slot_addr;  /* the address of each worker's slot */
	int *cpu;             /* the CPU each worker was given (-1: none) */
	int *ran_on;          /* sched_getcpu() in each worker */
	int *prepared;        /* the workers prepared when each worker's work began */
	uint64_t *stop_addr;  /* one: the address of the stop flag */
};

struct ct_duration_probe_result {
	struct ct_status status;
	int started;
	uint64_t elapsed_ns, joined_ns;
	uint64_t total;      /* sum of the counts */
	uint64_t stopped;    /* workers that saw the stop flag set when they returned */
	int slot_bytes;      /* CT_SLOT */
};

int ct_duration_probe(const struct ct_duration_probe_params *p, struct ct_duration_probe_result *r);

#endif
