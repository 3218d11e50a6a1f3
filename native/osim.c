/*
 * osim.c - Manfred Spraul's osim (2013), run by Mike Galbraith in "Re:
 * [PATCH 2/4] ipc/sem: seperate wait-for-zero and alter tasks into seperate
 * queues" (LKML, June 2013) and published as sem-lockunlock.c in
 * github.com/manfred-colorfu/ipcscale (commit 791aedb, 2013-06-10).
 * Reimplemented for contend from the description in ORIGINALS.md section 3
 * (no code copied).
 *
 * `tasks` worker processes lock and unlock SysV semaphores used as mutexes,
 * so every contended lock is a sleep and a wake-up. Structure kept:
 *
 *   - one semget of sems + 1 semaphores: 0..sems-1 are locks, number sems
 *     counts the workers still running; all start at 0;
 *   - workers are processes (fork), worker i uses lock (i mod sems) and goes
 *     straight into its first semop -1, where it sleeps (values are 0);
 *   - per-task loops = ceil(loops / tasks); each loop: semop -1 (lock),
 *     busy_in increments of a volatile int, semop +1 (unlock), busy_out
 *     increments; single-op semops, sem_flg 0;
 *   - each worker ends with semop -1 IPC_NOWAIT on the completion semaphore;
 *   - the start gate is one SETALL (locks 1, completion counter tasks), the
 *     clock read just before it; the parent then waits for zero on the
 *     completion semaphore (it sits in the array's wait-for-zero queue the
 *     whole run) and reads the clock when that returns. Reaping the workers
 *     is not timed.
 *
 * Changed, and why:
 *   - CLOCK_MONOTONIC in ns instead of gettimeofday in us (the original's
 *     output is derived by truncating to us);
 *   - workers run only C, never touch stdio, and leave with _exit (the
 *     original's exit(0) flushed inherited stdio buffers); they reset signal
 *     handlers inherited from the Go runtime to the defaults and die with
 *     the process that forked them (PR_SET_PDEATHSIG);
 *   - the parent blocks SIGCHLD in its thread and restarts the wait-for-zero
 *     on EINTR (the Go runtime catches SIGCHLD; the C original did not);
 *   - the wait-for-zero is a semtimedop with a 100 ms timeout: on each
 *     timeout the parent reaps the workers that ended (wait4 WNOHANG) and,
 *     if one was killed by a signal or failed, kills and reaps the others
 *     and fails the repetition naming it (a killed worker never does its
 *     final -1, and a lock it held stays 0, so the original hung). The
 *     parent stays in the wait-for-zero queue except for these ten
 *     re-entries a second; nothing else about the measurement changes;
 *   - errors are checked: a fork failure or a failing SETALL kills and reaps
 *     the workers already forked and removes the set (the original hung or
 *     leaked); a worker whose semop fails still decrements the completion
 *     counter (the original's parent then waited forever) and reports the
 *     errno as its exit status;
 *   - the set is created with mode 0600, not 0777; its id is reported to the
 *     harness before anything is timed, so a killed run leaks nothing;
 *   - the four info lines are not printed between fork and SETALL (the
 *     harness prints them afterwards for --format original).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include <unistd.h>

#include "osim.h"

/* osim_busy spins n times on a volatile int, as the original's busy loops. */
static inline void osim_busy(int n)
{
	volatile int i;

	for (i = 0; i < n; i++)
		;
	__asm__ __volatile__("" ::: "memory");
}

/* osim_worker is the forked side: C only, no stdio, leaves with _exit. */
static void __attribute__((noreturn))
osim_worker(const struct ct_osim_params *p, int semid, int semnum, int loops, pid_t parent)
{
	struct sigaction sa;
	struct sembuf sop;
	sigset_t none;
	int i, sig, err = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(EOWNERDEAD);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (p->report_fd >= 0)
		close(p->report_fd);

	sop.sem_num = semnum;
	sop.sem_flg = 0;
	for (i = 0; i < loops; i++) {
		sop.sem_op = -1;
		if (semop(semid, &sop, 1) < 0) {
			err = errno;
			break;
		}
		osim_busy(p->busy_in);
		sop.sem_op = 1;
		if (semop(semid, &sop, 1) < 0) {
			err = errno;
			break;
		}
		osim_busy(p->busy_out);
	}
	sop.sem_num = p->sems;
	sop.sem_op = -1;
	sop.sem_flg = IPC_NOWAIT;
	semop(semid, &sop, 1);
	_exit(err);
}

/* The parent's wait-for-zero sleeps at most this long before it looks for
 * dead workers (a killed worker never does its final -1, so the counter
 * would never reach zero). */
#define OSIM_TICK_NS 100000000L

struct osim_pid {
	pid_t pid;
	int i;
};

struct osim_workers {
	const pid_t *pids;      /* in fork order */
	struct osim_pid *sorted; /* the same with their index, by pid, for bsearch */
	char *reaped;
	int n;
	int err, bad, badsig; /* the first failure: errno, worker index, signal */
};

static int osim_pid_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct osim_pid *)a)->pid, y = ((const struct osim_pid *)b)->pid;

	return (x > y) - (x < y);
}

/* osim_index returns the index of worker pid, -1 if it is not a worker. */
static int osim_index(const struct osim_workers *w, pid_t pid)
{
	struct osim_pid key = { pid, -1 };
	struct osim_pid *hit = bsearch(&key, w->sorted, w->n, sizeof(key), osim_pid_cmp);

	return hit ? hit->i : -1;
}

/* osim_account adds the rusage of worker i, which ended with status st, to
 * r and records the first failure (a worker killed by a signal, or one
 * whose semop failed: its exit status is the errno). */
static void osim_account(struct osim_workers *w, int i, int st, const struct rusage *ru,
			 struct ct_osim_result *r)
{
	w->reaped[i] = 1;
	r->nvcsw += ru->ru_nvcsw;
	r->nivcsw += ru->ru_nivcsw;
	r->utime_ns += ru->ru_utime.tv_sec * 1000000000ULL + ru->ru_utime.tv_usec * 1000ULL;
	r->stime_ns += ru->ru_stime.tv_sec * 1000000000ULL + ru->ru_stime.tv_usec * 1000ULL;
	if (w->err)
		return;
	if (WIFEXITED(st) && WEXITSTATUS(st)) {
		w->err = WEXITSTATUS(st);
		w->bad = i;
	} else if (WIFSIGNALED(st)) {
		w->err = ECHILD;
		w->bad = i;
		w->badsig = WTERMSIG(st);
	}
}

/* osim_check reaps the workers that have ended so far (WNOHANG) and
 * returns the first failure as a positive errno, 0 if none. */
static int osim_check(struct osim_workers *w, struct ct_osim_result *r)
{
	struct rusage ru;
	pid_t pid;
	int i, st;

	while ((pid = wait4(-1, &st, WNOHANG, &ru)) > 0 || (pid < 0 && errno == EINTR))
		if (pid > 0 && (i = osim_index(w, pid)) >= 0)
			osim_account(w, i, st, &ru, r);
	return w->err;
}

/* osim_reap waits for the workers not reaped yet and returns the first
 * failure as a positive errno. */
static int osim_reap(struct osim_workers *w, struct ct_osim_result *r)
{
	struct rusage ru;
	int i, st;

	for (i = 0; i < w->n; i++) {
		if (w->reaped[i])
			continue;
		while (wait4(w->pids[i], &st, 0, &ru) < 0) {
			if (errno != EINTR)
				goto next;
		}
		osim_account(w, i, st, &ru, r);
next:;
	}
	return w->err;
}

static void osim_kill(const pid_t *pids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
}

int ct_osim_run(const struct ct_osim_params *p, struct ct_osim_result *r)
{
	pid_t *pids = NULL, parent = getpid();
	unsigned short *vals = NULL;
	struct osim_workers w = { 0 };
	struct timespec tick = { 0, OSIM_TICK_NS };
	struct sembuf sop;
	union ct_semun arg;
	sigset_t chld, oldmask;
	uint64_t start, end;
	int i, n = 0, semid, err = 0;

	memset(r, 0, sizeof(*r));
	r->semid = -1;
	if (p->sems < 1 || p->tasks < 1 || p->loops < 1 || p->busy_in < 0 || p->busy_out < 0)
		return ct_fail(&r->status, EINVAL, "osim", "sems, tasks and loops must be positive, busy loops not negative");
	r->loops_per_task = (int)(((int64_t)p->loops + p->tasks - 1) / p->tasks);
	r->total_loops = (int64_t)r->loops_per_task * p->tasks;

	pids = calloc(p->tasks, sizeof(*pids));
	vals = calloc(p->sems + 1, sizeof(*vals));
	w.sorted = calloc(p->tasks, sizeof(*w.sorted));
	w.reaped = calloc(p->tasks, 1);
	if (!pids || !vals || !w.sorted || !w.reaped) {
		free(pids);
		free(vals);
		free(w.sorted);
		free(w.reaped);
		return ct_fail(&r->status, ENOMEM, "calloc", "for %d tasks and %d semaphores", p->tasks, p->sems + 1);
	}
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, &oldmask);

	semid = ct_sem_create(p->sems + 1, p->sem_key, p->report_fd, p->inject, &r->status);
	if (semid < 0) {
		err = r->status.err;
		goto out;
	}
	r->semid = semid;

	fflush(NULL); /* as the original: nothing buffered is inherited */
	for (n = 0; n < p->tasks; n++) {
		pid_t pid;

		if ((p->inject & CT_INJECT_FORK_EAGAIN) && n == p->tasks / 2) {
			pid = -1;
			errno = EAGAIN;
		} else {
			pid = fork();
		}
		if (pid == 0)
			osim_worker(p, semid, n % p->sems, r->loops_per_task, parent);
		if (pid < 0) {
			err = ct_fail(&r->status, errno, "fork",
				      "of worker %d of %d (%d forked; raise ulimit -u (RLIMIT_NPROC), "
				      "kernel.threads-max, kernel.pid_max or the pids cgroup limit)",
				      n + 1, p->tasks, n);
			break;
		}
		pids[n] = pid;
	}
	r->tasks_forked = n;
	w.pids = pids;
	w.n = n;
	for (i = 0; i < n; i++) {
		w.sorted[i].pid = pids[i];
		w.sorted[i].i = i;
	}
	qsort(w.sorted, n, sizeof(*w.sorted), osim_pid_cmp);
	if (err)
		goto out_kill;

	for (i = 0; i < p->sems; i++)
		vals[i] = 1;
	vals[p->sems] = p->tasks;
	arg.array = vals;

	start = ct_now_ns();
	if (semctl(semid, 0, SETALL, arg) < 0) {
		err = ct_fail(&r->status, errno, "semctl", "SETALL of %d locks to 1 and the completion counter to %d",
			      p->sems, p->tasks);
		goto out_kill;
	}
	sop.sem_num = p->sems;
	sop.sem_op = 0;
	sop.sem_flg = 0;
	while (semtimedop(semid, &sop, 1, &tick) < 0) {
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN) {
			err = ct_fail(&r->status, errno, "semop", "wait-for-zero on the completion semaphore %d of set %d",
				      p->sems, semid);
			goto out_kill;
		}
		if (osim_check(&w, r)) /* the tick: a worker died */
			goto out_kill;
	}
	end = ct_now_ns();
	r->elapsed_ns = end - start;
	osim_reap(&w, r);
	goto out_rmid;

out_kill:
	osim_kill(pids, n);
	osim_reap(&w, r);
out_rmid:
	if (w.err && !err) {
		char sig[16];

		if (w.badsig)
			err = ct_fail(&r->status, w.err, "worker",
				      "%d of %d (pid %d) was killed by signal %s",
				      w.bad + 1, p->tasks, (int)pids[w.bad], ct_signame(w.badsig, sig, sizeof(sig)));
		else
			err = ct_fail(&r->status, w.err, "semop", "in worker %d of %d (pid %d) on semaphore %d of set %d",
				      w.bad + 1, p->tasks, (int)pids[w.bad], w.bad % p->sems, semid);
	}
	if ((i = ct_sem_remove(semid, p->report_fd)) && !err)
		err = ct_fail(&r->status, i, "semctl", "IPC_RMID of set %d", semid);
out:
	pthread_sigmask(SIG_SETMASK, &oldmask, NULL);
	free(pids);
	free(vals);
	free(w.sorted);
	free(w.reaped);
	return err;
}
