/*
 * semloop.c - contend's example of a SysV semaphore lock/unlock program.
 *
 * Written for contend's examples, contend's own code; not derived from
 * any other program. It measures what Manfred Spraul's osim (ipcscale's
 * sem-lockunlock) measured in 2013, with the same command line: TASKS
 * forked processes share SEMS semaphores used as locks (task i uses lock
 * i mod SEMS) and one more counting the running tasks. Each task does
 * ceil(LOOPS / TASKS) loops of: lock (semop -1), BUSYIN increments of a
 * volatile int, unlock (semop +1), BUSYOUT increments. The parent starts
 * them all with one SETALL and waits for zero on the counting semaphore.
 * It prints, in the format contend's preset osim reads:
 *
 *     total execution time: S.SSSSSS seconds for N loops
 *     per loop execution time: U.UUU usec
 *
 * The set is private (mode 0600) and removed on every exit of the parent,
 * a SIGINT, SIGTERM or SIGHUP included; the tasks die with the parent.
 *
 * usage: semloop SEMS TASKS LOOPS BUSYIN BUSYOUT   (such as 4 8 100000 0 0)
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "number.h"

union semun {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
};

static volatile sig_atomic_t semid = -1;

static void removeset(void)
{
	if (semid >= 0)
		semctl(semid, 0, IPC_RMID);
}

static void onsignal(int sig)
{
	removeset();
	signal(sig, SIG_DFL);
	raise(sig);
}


static int semop1(int id, unsigned short num, short op, short flg)
{
	struct sembuf b = { .sem_num = num, .sem_op = op, .sem_flg = flg };
	int r;

	while ((r = semop(id, &b, 1)) < 0 && errno == EINTR)
		;
	return r;
}

static void task(int id, unsigned short lock, unsigned short done, long loops, long in, long out)
{
	volatile int busy = 0;

	for (long i = 0; i < loops; i++) {
		if (semop1(id, lock, -1, 0) < 0)
			break;
		for (long j = 0; j < in; j++)
			busy++;
		if (semop1(id, lock, 1, 0) < 0)
			break;
		for (long j = 0; j < out; j++)
			busy++;
	}
	semop1(id, done, -1, IPC_NOWAIT); /* counted out even after an error */
	_exit(0);
}

int main(int argc, char **argv)
{
	long sems, tasks, loops, in, out, per;
	unsigned short *vals;
	struct timespec t0, t1;
	union semun arg;
	double secs;
	pid_t parent = getpid();

	if (argc != 6) {
		fprintf(stderr, "usage: semloop SEMS TASKS LOOPS BUSYIN BUSYOUT\n");
		return 2;
	}
	sems = number("semloop", argv[1], "SEMS", 1, 30000);
	tasks = number("semloop", argv[2], "TASKS", 1, 100000);
	loops = number("semloop", argv[3], "LOOPS", 1, 1000000000L);
	in = number("semloop", argv[4], "BUSYIN", 0, 1000000000L);
	out = number("semloop", argv[5], "BUSYOUT", 0, 1000000000L);
	per = (loops + tasks - 1) / tasks;

	signal(SIGINT, onsignal);
	signal(SIGTERM, onsignal);
	signal(SIGHUP, onsignal);
	semid = semget(IPC_PRIVATE, (int)sems + 1, IPC_CREAT | 0600);
	if (semid < 0) {
		perror("semloop: semget");
		return 1;
	}
	atexit(removeset);
	for (long i = 0; i < tasks; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("semloop: fork");
			return 1; /* removes the set: the tasks' semops fail and they leave */
		}
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(1);
			task(semid, (unsigned short)(i % sems), (unsigned short)sems, per, in, out);
		}
	}
	vals = calloc((size_t)sems + 1, sizeof(*vals));
	if (!vals) {
		fprintf(stderr, "semloop: out of memory\n");
		return 1;
	}
	for (long i = 0; i < sems; i++)
		vals[i] = 1;
	vals[sems] = (unsigned short)tasks;
	arg.array = vals;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (semctl(semid, 0, SETALL, arg) < 0 || semop1(semid, (unsigned short)sems, 0, 0) < 0) {
		perror("semloop: semctl");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("total execution time: %.6f seconds for %ld loops\n", secs, per * tasks);
	printf("per loop execution time: %.3f usec\n", secs * 1e6 / (double)(per * tasks));
	return 0;
}
