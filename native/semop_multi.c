/*
 * semop_multi.c - semop-multi, the SysV semaphore scalability test of the
 * 2013 ipc/sem.c work (Rik van Riel, Davidlohr Bueso; quoted in kernel
 * commit 6062a8dc0517 "ipc,sem: fine grained locking for semtimedop", and
 * run by Mike Galbraith in "Re: [PATCH 2/4] ipc/sem: seperate wait-for-zero
 * and alter tasks into seperate queues", June 2013).
 *
 * RECONSTRUCTED: the source was never found. This follows the
 * reconstruction in ORIGINALS.md section 2, which fits all published output
 * (two lines, even totals, ops/sec = total / 30 truncated, "cpus" = online
 * CPUs):
 *
 *   - one array of `sems` semaphores, all set to 200 with one SETALL;
 *   - `threads` threads created first (default attributes), then released
 *     together: a mutex + condition variable countdown, main broadcasts
 *     once every thread is waiting;
 *   - thread i loops while a shared run flag is set: semop +1 then semop -1
 *     on semaphore (i mod sems), one op each, sem_flg 0, adding 2 to its
 *     own cache-line padded counter. The +1 comes first, so no decrement
 *     can ever sleep: the test hammers the array's lock and sem_otime, not
 *     the scheduler;
 *   - main sleeps for the duration (the original: sleep(30)), clears the
 *     flag, joins, removes the array.
 *
 * Added: CLOCK_MONOTONIC from just before the release to just after the
 * last join (covers every counted operation), per-thread counts, optional
 * pinning (thread i to the i-th CPU of the allowed set, mod its size).
 * Not timed: semget, SETALL, thread creation, IPC_RMID.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <time.h>
#include <unistd.h>

#include "semop_multi.h"

#define SEMOP_MULTI_INIT 200 /* initial value: no decrement can block */

struct semop_multi {
	int semid, sems;
	int run;                 /* cleared by main to stop the loops */
	pthread_mutex_t gate;    /* start gate: countdown + broadcast */
	pthread_cond_t all_ready, go;
	int ready, started;
};

/* One cache line per thread: nothing but its own counter and state. */
struct semop_multi_thread {
	struct semop_multi *sm;
	uint64_t ops;
	int id, err;
} __attribute__((aligned(64)));

static void *semop_multi_func(void *arg)
{
	struct semop_multi_thread *t = arg;
	struct semop_multi *sm = t->sm;
	struct sembuf sop;

	pthread_mutex_lock(&sm->gate);
	sm->ready++;
	pthread_cond_signal(&sm->all_ready);
	while (!sm->started)
		pthread_cond_wait(&sm->go, &sm->gate);
	pthread_mutex_unlock(&sm->gate);

	sop.sem_num = t->id % sm->sems;
	sop.sem_flg = 0;
	while (__atomic_load_n(&sm->run, __ATOMIC_RELAXED)) {
		sop.sem_op = 1;
		if (semop(sm->semid, &sop, 1) < 0) {
			t->err = errno;
			break;
		}
		sop.sem_op = -1;
		if (semop(sm->semid, &sop, 1) < 0) {
			t->err = errno;
			break;
		}
		t->ops += 2;
	}
	return NULL;
}

/* pin_cpu returns the n-th CPU (mod count) of this thread's allowed set. */
static int pin_cpu(const cpu_set_t *allowed, int n)
{
	int count = CPU_COUNT(allowed), c, seen = 0;

	if (count == 0)
		return 0;
	n %= count;
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, allowed) && seen++ == n)
			return c;
	return 0;
}

/* sleep_until sleeps until CLOCK_MONOTONIC reaches t ns, whatever signals come. */
static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000ULL, .tv_nsec = t % 1000000000ULL };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

int ct_semop_multi_run(const struct ct_semop_multi_params *p, struct ct_semop_multi_result *r)
{
	struct semop_multi sm = { .sems = p->sems, .run = 1 };
	struct semop_multi_thread *t = NULL;
	pthread_t *tid = NULL;
	unsigned short *vals = NULL;
	union ct_semun arg;
	cpu_set_t allowed;
	uint64_t start, end;
	int i, n = 0, err = 0;

	memset(r, 0, sizeof(*r));
	r->semid = -1;
	r->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	r->nominal_ns = p->duration_ns;
	if (p->threads < 1 || p->sems < 1 || p->duration_ns < 1)
		return ct_fail(&r->status, EINVAL, "semop-multi", "threads, sems and duration must be positive");

	if (posix_memalign((void **)&t, 64, sizeof(*t) * p->threads))
		t = NULL;
	tid = calloc(p->threads, sizeof(*tid));
	vals = calloc(p->sems, sizeof(*vals));
	if (!t || !tid || !vals) {
		err = ct_fail(&r->status, ENOMEM, "calloc", "for %d thread records", p->threads);
		goto out_free;
	}
	memset(t, 0, sizeof(*t) * p->threads);
	pthread_mutex_init(&sm.gate, NULL);
	pthread_cond_init(&sm.all_ready, NULL);
	pthread_cond_init(&sm.go, NULL);
	if (p->pin && sched_getaffinity(0, sizeof(allowed), &allowed)) {
		err = ct_fail(&r->status, errno, "sched_getaffinity", "for --pin");
		goto out_sync;
	}

	sm.semid = ct_sem_create(p->sems, p->sem_key, p->report_fd, p->inject, &r->status);
	if (sm.semid < 0) {
		err = r->status.err;
		goto out_sync;
	}
	r->semid = sm.semid;
	for (i = 0; i < p->sems; i++)
		vals[i] = SEMOP_MULTI_INIT;
	arg.array = vals;
	if (semctl(sm.semid, 0, SETALL, arg) < 0) {
		err = ct_fail(&r->status, errno, "semctl", "SETALL of %d semaphores to %d", p->sems, SEMOP_MULTI_INIT);
		goto out_rmid;
	}

	for (n = 0; n < p->threads; n++) {
		pthread_attr_t attr, *ap = NULL;

		t[n].sm = &sm;
		t[n].id = n;
		if (p->pin) {
			cpu_set_t one;

			CPU_ZERO(&one);
			CPU_SET(pin_cpu(&allowed, n), &one);
			pthread_attr_init(&attr);
			pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
			ap = &attr;
		}
		if ((p->inject & CT_INJECT_FORK_EAGAIN) && n == p->threads / 2)
			err = EAGAIN;
		else
			err = pthread_create(&tid[n], ap, semop_multi_func, &t[n]);
		if (ap)
			pthread_attr_destroy(ap);
		if (err) {
			ct_fail(&r->status, err, "pthread_create",
				"of thread %d of %d (%d created; raise ulimit -u, kernel.threads-max or the pids cgroup limit)",
				n + 1, p->threads, n);
			break;
		}
	}
	r->threads_created = n;

	/* Wait until every created thread waits at the gate. */
	pthread_mutex_lock(&sm.gate);
	while (sm.ready < n)
		pthread_cond_wait(&sm.all_ready, &sm.gate);
	if (err) /* release the created threads straight into a stop */
		__atomic_store_n(&sm.run, 0, __ATOMIC_RELAXED);
	start = ct_now_ns();
	sm.started = 1;
	pthread_cond_broadcast(&sm.go);
	pthread_mutex_unlock(&sm.gate);

	if (!err)
		sleep_until(start + p->duration_ns);
	__atomic_store_n(&sm.run, 0, __ATOMIC_RELAXED);
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	end = ct_now_ns();
	if (err)
		goto out_rmid;

	r->elapsed_ns = end - start;
	for (i = 0; i < n; i++) {
		r->total_ops += t[i].ops;
		if (p->per_thread)
			p->per_thread[i] = t[i].ops;
		if (t[i].err && !err)
			err = ct_fail(&r->status, t[i].err, "semop", "by thread %d on semaphore %d of set %d",
				      i, i % p->sems, sm.semid);
	}
out_rmid:
	if ((i = ct_sem_remove(sm.semid, p->report_fd)) && !err)
		err = ct_fail(&r->status, i, "semctl", "IPC_RMID of set %d", sm.semid);
out_sync:
	pthread_mutex_destroy(&sm.gate);
	pthread_cond_destroy(&sm.all_ready);
	pthread_cond_destroy(&sm.go);
out_free:
	free(t);
	free(tid);
	free(vals);
	return err;
}
