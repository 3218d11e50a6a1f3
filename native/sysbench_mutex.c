/*
 * sysbench_mutex.c - the mutex test of sysbench 1.0.20 as Debian ships it
 * (`sysbench mutex run`; Alexey Kopytov, MySQL AB), reproduced for contend
 * from its documented behaviour and from the machine code of Debian's
 * /usr/bin/sysbench (no sysbench source is used here).
 *
 * What one run does, as the shipped binary does it:
 *
 *   - an array of --mutex-num default-attribute mutexes, each followed by
 *     256 bytes of padding (296-byte stride on x86-64), from malloc;
 *   - --threads worker threads with a --thread-stack-size stack (64 KiB),
 *     each seeding its own generator from random() (srandom(time) in main),
 *     then all of them and main meeting at a start barrier; the last one to
 *     arrive starts the run's timer;
 *   - every thread runs exactly one event: --mutex-locks iterations of
 *       pick a mutex uniformly at random,
 *       an empty loop of --mutex-loops iterations (in the binary the loop
 *       survives as add/compare/branch, with the bound re-read from memory
 *       each iteration: the source's compiler barrier),
 *       lock it, increment one unsigned int shared by all threads (a data
 *       race when two threads hold different mutexes), unlock;
 *     the event is timed by the thread (its "execution time");
 *   - main joins the workers and stops the timer: "total time".
 *
 * The random pick: sysbench 1.0.20 computes a + u * (b - a + 1) with u a
 * double in [0, 1) made from the top 52 bits of a per-thread xoroshiro128+
 * (rotations 55, 14, 36) kept in thread-local storage. --rand libc selects
 * glibc rand() % mutex-num instead, which is what sysbench 0.4 (2010) did:
 * rand() takes a process-wide lock, so every iteration of every thread
 * passes through libc's one lock.
 *
 * Not reproduced: sysbench's option parsing, logging, latency histogram
 * and time limit checks (the histogram's percentile is computed by the Go
 * side from the per-thread times, the same way).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sysbench_mutex.h"

struct sbm_lock {
	pthread_mutex_t mutex;
	char pad[256];
};

/* The test's globals, as sysbench keeps them. */
static struct sbm_lock *sbm_locks;
static unsigned int sbm_mutex_num;
static unsigned int sbm_global_var;
static int sbm_rand_libc;

/* One event's work, read through a pointer as sysbench's request is. */
struct sbm_request {
	unsigned int nlocks;
	unsigned int nloops;
};

/* The start barrier: main and every worker; the last to arrive starts the clock. */
static pthread_mutex_t sbm_gate_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sbm_gate_cond = PTHREAD_COND_INITIALIZER;
static int sbm_gate_need, sbm_gate_arrived, sbm_gate_open;
static volatile int sbm_abort;
static uint64_t sbm_start_ns;

static void sbm_gate_wait(void)
{
	pthread_mutex_lock(&sbm_gate_mutex);
	if (++sbm_gate_arrived == sbm_gate_need) {
		sbm_start_ns = ct_now_ns();
		sbm_gate_open = 1;
		pthread_cond_broadcast(&sbm_gate_cond);
	}
	while (!sbm_gate_open)
		pthread_cond_wait(&sbm_gate_cond, &sbm_gate_mutex);
	pthread_mutex_unlock(&sbm_gate_mutex);
}

static void sbm_gate_force_open(void)
{
	pthread_mutex_lock(&sbm_gate_mutex);
	sbm_abort = 1;
	sbm_gate_open = 1;
	pthread_cond_broadcast(&sbm_gate_cond);
	pthread_mutex_unlock(&sbm_gate_mutex);
}

static inline uint64_t sbm_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/*
 * A uniform integer in [a, b] from xoroshiro128+ state s, computed in
 * double as the shipped sb_rand_uniform does. Not inlined: in the binary it
 * is a call into another file.
 */
static __attribute__((noinline)) uint32_t sbm_rand_uniform(uint64_t *s, uint32_t a, uint32_t b)
{
	const uint64_t s0 = s[0];
	uint64_t s1 = s[1];
	const uint64_t x = s0 + s1;
	union {
		uint64_t i;
		double d;
	} u = { .i = UINT64_C(0x3FF) << 52 | x >> 12 };

	s1 ^= s0;
	s[0] = sbm_rotl(s0, 55) ^ s1 ^ (s1 << 14);
	s[1] = sbm_rotl(s1, 36);
	return (uint32_t)((double)a + (u.d - 1.0) * (double)((uint64_t)b + 1 - a));
}

static __attribute__((noinline)) void sbm_execute(struct sbm_request *req, uint64_t *rng)
{
	unsigned int i, current;

	do {
		if (sbm_rand_libc)
			current = rand() % sbm_mutex_num;
		else
			current = sbm_rand_uniform(rng, 0, sbm_mutex_num - 1);

		for (i = 0; i < req->nloops; i++)
			__asm__ __volatile__("" ::: "memory");

		pthread_mutex_lock(&sbm_locks[current].mutex);
		sbm_global_var++;
		pthread_mutex_unlock(&sbm_locks[current].mutex);
		req->nlocks--;
	} while (req->nlocks > 0);
}

struct sbm_thread {
	const struct ct_sbm_params *p;
	uint64_t ns;
};

static void *sbm_worker(void *arg)
{
	struct sbm_thread *t = arg;
	struct sbm_request req;
	uint64_t rng[2], t0, t1, hi;
	int k;

	/* Per-thread generator state from random(), high 32 bits first. */
	for (k = 0; k < 2; k++) {
		hi = (uint64_t)random() << 32;
		rng[k] = hi | (uint32_t)random();
	}

	sbm_gate_wait();
	if (sbm_abort)
		return NULL;

	req.nlocks = t->p->mutex_locks;
	req.nloops = t->p->mutex_loops;
	t0 = ct_now_ns();
	sbm_execute(&req, rng);
	t1 = ct_now_ns();
	t->ns = t1 - t0;
	return NULL;
}

int ct_sbm_run(const struct ct_sbm_params *p, struct ct_sbm_result *r)
{
	struct sbm_thread *t = NULL;
	pthread_attr_t attr, got;
	pthread_t *tid = NULL;
	size_t actual = 0;
	uint64_t end;
	unsigned int i;
	int k, err;

	memset(r, 0, sizeof(*r));
	if (p->threads < 1 || p->mutex_num < 1 || p->mutex_locks < 1 || !p->thread_ns)
		return ct_fail(&r->status, EINVAL, "sysbench-mutex",
			       "threads, mutex-num and mutex-locks must be positive");

	/* One repetition per process: reset the globals all the same. */
	sbm_mutex_num = p->mutex_num;
	sbm_global_var = 0;
	sbm_rand_libc = p->rand == CT_SBM_RAND_LIBC;
	sbm_gate_need = p->threads + 1;
	sbm_gate_arrived = 0;
	sbm_gate_open = 0;
	sbm_abort = 0;
	r->seed = p->seed ? p->seed : (uint32_t)time(NULL);
	srandom(r->seed);

	sbm_locks = malloc((size_t)p->mutex_num * sizeof(*sbm_locks));
	t = calloc(p->threads, sizeof(*t));
	tid = calloc(p->threads, sizeof(*tid));
	if (!sbm_locks || !t || !tid) {
		err = ct_fail(&r->status, ENOMEM, "malloc", "for %u mutexes and %d threads",
			      p->mutex_num, p->threads);
		goto out;
	}
	for (i = 0; i < p->mutex_num; i++)
		pthread_mutex_init(&sbm_locks[i].mutex, NULL);

	pthread_attr_init(&attr);
	r->stack_err = pthread_attr_setstacksize(&attr, p->stack);
	for (k = 0; k < p->threads; k++) {
		t[k].p = p;
		err = pthread_create(&tid[k], &attr, sbm_worker, &t[k]);
		if (err) {
			int created = k;

			sbm_gate_force_open();
			for (k = 0; k < created; k++)
				pthread_join(tid[k], NULL);
			r->threads_created = created;
			pthread_attr_destroy(&attr);
			ct_fail(&r->status, err, "pthread_create",
				"of thread %d of %d (%d created, start barrier released and joined; "
				"see ulimit -u, kernel.threads-max, memory for stacks)",
				created + 1, p->threads, created);
			goto out_mutexes;
		}
	}
	r->threads_created = p->threads;
	pthread_attr_destroy(&attr);
	if (pthread_getattr_np(tid[0], &got) == 0) {
		pthread_attr_getstacksize(&got, &actual);
		pthread_attr_destroy(&got);
	}

	sbm_gate_wait();
	for (k = 0; k < p->threads; k++)
		pthread_join(tid[k], NULL);
	end = ct_now_ns();

	r->total_ns = end - sbm_start_ns;
	r->global_var = sbm_global_var;
	r->stack_actual = actual;
	r->stack_honoured = r->stack_err == 0 && actual >= p->stack;
	for (k = 0; k < p->threads; k++)
		p->thread_ns[k] = t[k].ns;
	err = 0;
out_mutexes:
	for (i = 0; i < p->mutex_num; i++)
		pthread_mutex_destroy(&sbm_locks[i].mutex);
out:
	free(sbm_locks);
	sbm_locks = NULL;
	free(t);
	free(tid);
	return err;
}
