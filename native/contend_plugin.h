/*
 * contend_plugin.h - the public ABI of contend plugins: port a C test to
 * contend by writing one function. Print this file with
 * `contend port --header`, start from `contend port --template NAME`.
 *
 * A plugin is a shared object built with
 *
 *	cc -O2 -fPIC -shared -o mytest.so mytest.c
 *
 * and run with
 *
 *	contend run plugin --so ./mytest.so --threads 8 --duration 10s -n 5
 *
 * It is loaded with dlopen() in each repetition's child process. contend's
 * runner (in C) owns everything but the test itself: it creates the
 * workers, threads by default or processes with --workers processes
 * (optionally pinned, --pin), holds them at a start gate until all are
 * ready, reads the clock, gives each worker its own counters at a 256-byte
 * stride (no false sharing), stops them, and adds up the counts. The
 * metrics are the same for threads and processes, so runs of one plugin
 * compare across the two.
 *
 * The plugin defines:
 *
 *   CONTEND_PLUGIN(mode, "description", "counter", ...);       required
 *	the description, the mode, and up to CONTEND_MAX_COUNTERS names of
 *	extra counters (lower-case letters, digits, _).
 *
 *   void contend_worker(void *state, unsigned id, struct contend_thread *t);
 *	required; runs in worker id (0 .. nthreads-1), after the start gate.
 *	CONTEND_DURATION: loop until contend_stopped(t), adding 1 to
 *	*t->iterations per iteration; the runner stops it after --duration
 *	and reports iterations and ops/s.
 *	CONTEND_FIXED: do a fixed amount of work and return; the runner
 *	times the start gate to the last worker's return. Counting
 *	iterations is optional (ops/s then is iterations / time);
 *	contend_stopped(t) is always true in this mode.
 *	t->counters[i] is this worker's extra counter i (summed over the
 *	workers and reported under the names given to CONTEND_PLUGIN).
 *	A worker returns; it never calls exit().
 *
 *   int contend_setup(unsigned nthreads, void **state);        optional
 *	runs once before the workers are created (not timed); returns 0 or
 *	a positive errno; *state is passed to every worker and to teardown.
 *
 *   void contend_teardown(void *state);                        optional
 *	runs once after every worker returned (not timed).
 *
 * Worker processes (--workers processes), as will-it-scale's _processes
 * builds: the runner forks the workers after contend_setup, so each
 * inherits the state copy-on-write and from then on has its own copy: a
 * write in one worker is not seen by the others, by the runner or by
 * contend_teardown (which runs in the parent, on the parent's copy). So a
 * static pthread_mutex_t or a lock in malloc'ed state is per process and
 * uncontended, as in will-it-scale's process mode. To share something
 * between processes, map it in contend_setup with
 * mmap(MAP_SHARED | MAP_ANONYMOUS) (and make locks in it process-shared,
 * PTHREAD_PROCESS_SHARED), or open a file there. The counters, the stop
 * flag and the start gate are the runner's shared memory; t->process is 1.
 * A worker process that crashes fails the repetition, naming the signal,
 * and the other workers are killed. Output a worker writes with stdio may
 * be lost (worker processes leave with _exit); use write(2) if you must.
 *
 * Unlike will-it-scale, workers are never cancelled asynchronously: they
 * return when asked to, so locks are never left held. The whole timed
 * region runs in C; no Go code runs while a plugin is measured.
 */
#ifndef CONTEND_PLUGIN_H
#define CONTEND_PLUGIN_H

#include <stdint.h>

/* The ABI version; a plugin built against another version is refused. */
#define CONTEND_PLUGIN_ABI 1
#define CONTEND_PLUGIN_MAGIC 0x6374706cU /* "ctpl" */
#define CONTEND_MAX_COUNTERS 8
#define CONTEND_NAME_MAX 32

enum contend_mode {
	CONTEND_DURATION = 1, /* loop until stopped, count iterations */
	CONTEND_FIXED = 2,    /* fixed work, timed by the runner */
};

/* What the plugin declares; no pointers, so contend can read it from the
 * file before loading it. Define it with CONTEND_PLUGIN. */
struct contend_plugin {
	uint32_t magic; /* CONTEND_PLUGIN_MAGIC */
	uint32_t abi;   /* CONTEND_PLUGIN_ABI */
	uint32_t mode;  /* enum contend_mode */
	uint32_t reserved;
	char description[96];
	char counters[CONTEND_MAX_COUNTERS][CONTEND_NAME_MAX];
};

/* What the runner gives each worker (thread or process). */
struct contend_thread {
	unsigned id;               /* 0 .. nthreads-1 */
	unsigned nthreads;         /* the number of workers */
	int cpu;                   /* CPU the worker is pinned to, or -1 */
	int process;               /* 1 in a worker process, 0 in a thread */
	const volatile int *stop;  /* set by the runner in duration mode */
	uint64_t *iterations;      /* this worker's iteration counter */
	uint64_t *counters;        /* this worker's extra counters */
	void *reserved[4];
};

/* contend_stopped tells a duration-mode worker to return. */
static inline int contend_stopped(const struct contend_thread *t)
{
	return __atomic_load_n(t->stop, __ATOMIC_RELAXED);
}

#define CONTEND_PLUGIN_EXPORT __attribute__((visibility("default")))

#define CONTEND_PLUGIN(mode, description, ...)                              \
	CONTEND_PLUGIN_EXPORT const struct contend_plugin contend_plugin = { \
		CONTEND_PLUGIN_MAGIC, CONTEND_PLUGIN_ABI, (mode), 0,          \
		description, { __VA_ARGS__ } }

CONTEND_PLUGIN_EXPORT void contend_worker(void *state, unsigned id, struct contend_thread *t);
CONTEND_PLUGIN_EXPORT int contend_setup(unsigned nthreads, void **state);
CONTEND_PLUGIN_EXPORT void contend_teardown(void *state);

#endif
