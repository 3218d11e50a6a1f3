/*
 * wis_proc.c - the process-mode leader of a will-it-scale test, compiled
 * by contend with the test and wis_shim.c into an executable
 * (internal/wisbuild) and started by native/wis.c with fork and exec, so
 * that it and the tasks it forks are processes that never had a second
 * thread, as will-it-scale's _processes runner and its tasks are: glibc
 * takes its single-threaded fast paths (a pthread mutex without a locked
 * instruction) only in such a process, and a task forked from
 * contend's multi-threaded child would run pthread_mutex1 2-4 times slower.
 *
 *   wis-run TASKS PIN, with fd 3 the shared counters (memfd: a control
 *   slot, then a CT_SLOT slot per task), fd 4 the start gate's read end,
 *   fd 5 the stop pipe's read end.
 *
 * It runs testcase_prepare(TASKS), forks the tasks (pinned if PIN, each
 * waiting at the gate, then testcase(&its count, i)), says ready, and
 * watches them until the stop pipe closes; a task that dies is recorded in
 * the control slot (which, how). Then it kills and reaps the tasks, runs
 * testcase_cleanup() and says done.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wis.h"

extern void testcase(unsigned long long *iterations, unsigned long nr);
extern void testcase_prepare(unsigned long nr_tasks);
extern void testcase_cleanup(void);

static struct ct_wis_control *ctl;

static void proc_new_task(void *(*func)(void *), void *arg)
{
	pid_t parent = getpid(), pid;

	__atomic_add_fetch(&ctl->extra, 1, __ATOMIC_RELAXED);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		func(arg);
		_exit(0);
	}
	if (pid < 0)
		ctl->extra_err = errno;
}

int main(int argc, char **argv)
{
	unsigned i, n, ncpus = 0;
	int pin, cpus[CPU_SETSIZE];
	pid_t *pids;
	cpu_set_t set;
	char *shm;
	char c;

	if (argc != 3)
		return 2;
	n = (unsigned)strtoul(argv[1], NULL, 10);
	pin = atoi(argv[2]);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	shm = mmap(NULL, (size_t)(n + 1) * CT_WIS_SLOT, PROT_READ | PROT_WRITE, MAP_SHARED, 3, 0);
	pids = calloc(n, sizeof(*pids));
	if (shm == MAP_FAILED || !pids)
		return 3;
	ctl = (struct ct_wis_control *)shm;
	ct_wis_shim.new_task = proc_new_task;
	if (pin && sched_getaffinity(0, sizeof(set), &set) == 0)
		for (i = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &set))
				cpus[ncpus++] = (int)i;
	testcase_prepare(n);
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(5);
			if (pin && ncpus > 0) {
				CPU_ZERO(&set);
				CPU_SET(cpus[i % ncpus], &set);
				sched_setaffinity(0, sizeof(set), &set);
			}
			while (read(4, &c, 1) < 0 && errno == EINTR)
				;
			testcase((unsigned long long *)(shm + (size_t)(i + 1) * CT_WIS_SLOT), i);
			_exit(0);
		}
		if (pid < 0) {
			ctl->fork_err = errno;
			n = i;
			break;
		}
		pids[i] = pid;
	}
	close(4);
	__atomic_store_n(&ctl->ready, 1, __ATOMIC_RELEASE);
	for (;;) {
		struct pollfd pfd = { 5, POLLIN, 0 };
		int st;
		pid_t pid;

		if (poll(&pfd, 1, 100) != 0 && (pfd.revents || errno != EINTR))
			break;
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
			for (i = 0; i < n; i++)
				if (pids[i] == pid) {
					pids[i] = 0;
					if ((WIFSIGNALED(st) || WEXITSTATUS(st) != 0) && !ctl->dead_status) {
						ctl->dead_task = (int)i;
						ctl->dead_status = WIFSIGNALED(st) ? -WTERMSIG(st) : WEXITSTATUS(st);
					}
				}
	}
	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
				;
	testcase_cleanup();
	__atomic_store_n(&ctl->done, 1, __ATOMIC_RELEASE);
	return 0;
}
