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
 * The threads, the gate, the flag (a stop flag set by main, the same as a
 * run flag cleared), the padded counters (one 256-byte slot per thread)
 * and the sleep are contend's duration runner (duration.c), which plugins
 * share; this file keeps the array and the loop.
 *
 * Added: CLOCK_MONOTONIC from just before the release to just after the
 * last join (covers every counted operation), per-thread counts, optional
 * pinning (thread i to the i-th CPU of the allowed set, mod its size).
 * Not timed: semget, SETALL, thread creation, IPC_RMID.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <unistd.h>

#include "duration.h"
#include "semop_multi.h"

#define SEMOP_MULTI_INIT 200 /* initial value: no decrement can block */

struct semop_multi {
	int semid, sems;
};

/* semop_multi_func is thread i's loop, from the gate's release until main
 * stops it; its count is in its own slot. */
static int semop_multi_func(void *arg, const struct ct_worker *t)
{
	const struct semop_multi *sm = arg;
	struct sembuf sop;

	sop.sem_num = t->id % sm->sems;
	sop.sem_flg = 0;
	while (!__atomic_load_n(t->stop, __ATOMIC_RELAXED)) {
		sop.sem_op = 1;
		if (semop(sm->semid, &sop, 1) < 0)
			return errno;
		sop.sem_op = -1;
		if (semop(sm->semid, &sop, 1) < 0)
			return errno;
		t->slot->count += 2;
	}
	return 0;
}

/* semop_multi_where words a failed semop of thread id. */
static void semop_multi_where(void *arg, unsigned id, char *buf, size_t len)
{
	const struct semop_multi *sm = arg;

	snprintf(buf, len, "by thread %u on semaphore %u of set %d", id, id % sm->sems, sm->semid);
}

int ct_semop_multi_run(const struct ct_semop_multi_params *p, struct ct_semop_multi_result *r)
{
	struct semop_multi sm = { .semid = -1, .sems = p->sems };
	struct ct_duration d;
	unsigned short *vals;
	union ct_semun arg;
	int i, err;

	memset(r, 0, sizeof(*r));
	r->semid = -1;
	r->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	r->nominal_ns = p->duration_ns;
	if (p->threads < 1 || p->sems < 1 || p->duration_ns < 1)
		return ct_fail(&r->status, EINVAL, "semop-multi", "threads, sems and duration must be positive");

	vals = calloc(p->sems, sizeof(*vals));
	if (!vals)
		return ct_fail(&r->status, ENOMEM, "calloc", "for %d semaphore values", p->sems);
	sm.semid = ct_sem_create(p->sems, p->sem_key, p->report_fd, p->inject, &r->status);
	if (sm.semid < 0) {
		err = r->status.err;
		goto out_free;
	}
	r->semid = sm.semid;
	for (i = 0; i < p->sems; i++)
		vals[i] = SEMOP_MULTI_INIT;
	arg.array = vals;
	if (semctl(sm.semid, 0, SETALL, arg) < 0) {
		err = ct_fail(&r->status, errno, "semctl", "SETALL of %d semaphores to %d", p->sems, SEMOP_MULTI_INIT);
		goto out_rmid;
	}

	/* Create the threads, release them together, sleep, stop, join. */
	memset(&d, 0, sizeof(d));
	d.n = (unsigned)p->threads;
	d.duration_ns = p->duration_ns;
	d.pin = p->pin;
	d.inject = p->inject;
	d.work = semop_multi_func;
	d.arg = &sm;
	d.call = "semop";
	d.where = semop_multi_where;
	d.per_thread = p->per_thread;
	err = ct_duration_run(&d, &r->status);
	r->threads_created = (int)d.started;
	r->elapsed_ns = d.joined_ns;
	r->total_ops = d.total.count;
out_rmid:
	if ((i = ct_sem_remove(sm.semid, p->report_fd)) && !err)
		err = ct_fail(&r->status, i, "semctl", "IPC_RMID of set %d", sm.semid);
out_free:
	free(vals);
	return err;
}
