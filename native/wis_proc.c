/*
 * wis_proc.c - the tasks' leader of a will-it-scale test, compiled by
 * contend with the test and wis_shim.c into an executable
 * (internal/wisbuild) and started by native/wis.c with fork and exec, so
 * that the tasks run in a small C process, as will-it-scale's runner
 * and its tasks do, never in contend's Go child:
 *
 *   - processes (_processes): the leader never has a second thread, so
 *     the tasks it forks take glibc's single-threaded fast paths (a
 *     pthread mutex without a locked instruction), as the original's
 *     do; a task forked from contend's multi-threaded child ran
 *     pthread_mutex1 2-4 times slower;
 *   - threads (_threads): the tasks are threads of the leader, beside its
 *     main thread only; run in the Go child, beside its runtime's
 *     threads and mappings, page_fault1, pthread_mutex1 and sched_yield
 *     ran 3-8% below the original (docs/will-it-scale.md).
 *
 *   contend-wis-run TASKS PIN MODE, with fd 3 the shared counters (memfd:
 *   a control slot, then a CT_SLOT slot per task), fd 4 the start gate's
 *   read end, fd 5 the stop pipe's read end; MODE 0 threads, 1 processes.
 *
 * It runs testcase_prepare(TASKS), starts the tasks (pinned if PIN, each
 * waiting at the gate, then testcase(&its count, i)), says ready, and
 * waits until the stop pipe closes, recording in the control slot a task
 * process that dies (which, how; a crashing thread kills the leader,
 * which the runner names). Then it ends the tasks (processes: killed and
 * reaped; threads: cancelled, they are asynchronously cancellable, and
 * joined), runs testcase_cleanup() and says done. Its CPU sets are
 * CPU_ALLOC'ed as large as the kernel's (will-it-scale's cpu_set_t stops
 * at CPU 1023).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "wis.h"

#define WIS_MAX_EXTRA 4096 /* threads a test may start with new_task */

extern void testcase(unsigned long long *iterations, unsigned long nr);
extern void testcase_prepare(unsigned long nr_tasks);
extern void testcase_cleanup(void);

static struct ct_wis_control *ctl;
static char *shm;
/* The allowed CPUs task i is pinned to, modulo (pin_n 0: not pinned). */
static int *pin_cpus;
static unsigned pin_n;
static void check_pin(unsigned i);

static unsigned long long *count_of(unsigned i)
{
	return (unsigned long long *)(shm + (size_t)(i + 1) * CT_WIS_SLOT);
}

static void gate_wait(void)
{
	char c;

	while (read(4, &c, 1) < 0 && errno == EINTR)
		;
}

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

/* Thread mode: the extra threads new_task started, cancelled at the end. */
static pthread_mutex_t xlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t xthreads[WIS_MAX_EXTRA];
static unsigned nx;

struct extra {
	void *(*func)(void *);
	void *arg;
};

static void *extra_thread(void *arg)
{
	struct extra x = *(struct extra *)arg;

	free(arg);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	return x.func(x.arg);
}

/* thread_new_task is new_task in thread mode: an extra thread, not
 * counted, not pinned. */
static void thread_new_task(void *(*func)(void *), void *arg)
{
	struct extra *x = malloc(sizeof(*x));
	int err;

	if (!x) {
		ctl->extra_err = ENOMEM;
		return;
	}
	x->func = func;
	x->arg = arg;
	pthread_mutex_lock(&xlock);
	if (nx >= WIS_MAX_EXTRA) {
		ctl->extra_err = EAGAIN;
	} else if ((err = pthread_create(&xthreads[nx], NULL, extra_thread, x)) != 0) {
		ctl->extra_err = err;
	} else {
		nx++;
		__atomic_add_fetch(&ctl->extra, 1, __ATOMIC_RELAXED);
		x = NULL;
	}
	pthread_mutex_unlock(&xlock);
	free(x);
}

static void *task_thread(void *arg)
{
	unsigned i = (unsigned)(uintptr_t)arg;

	check_pin(i);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	gate_wait();
	testcase(count_of(i), i);
	return NULL;
}

/* one_cpu returns a CPU_ALLOC'ed set of CPU cpu (CPU_FREE it), its size
 * in *size: as large as the CPU's number needs, not cpu_set_t's 1024. */
static cpu_set_t *one_cpu(int cpu, size_t *size)
{
	cpu_set_t *set = CPU_ALLOC(cpu + 1);

	*size = CPU_ALLOC_SIZE(cpu + 1);
	if (set) {
		CPU_ZERO_S(*size, set);
		CPU_SET_S(cpu, *size, set);
	}
	return set;
}

/* allowed_cpus returns the CPUs this thread may run on (malloc'ed, their
 * number in *n), reading a mask grown until it is as large as the
 * kernel's; NULL if they cannot be read. */
static int *allowed_cpus(unsigned *n)
{
	cpu_set_t *set = NULL;
	size_t size = 0;
	int c, ncpu, *cpus = NULL;

	*n = 0;
	for (ncpu = CPU_SETSIZE; ncpu <= (1 << 20) && !set; ncpu *= 2) {
		if (!(set = CPU_ALLOC(ncpu)))
			return NULL;
		size = CPU_ALLOC_SIZE(ncpu);
		if (sched_getaffinity(0, size, set) != 0) {
			CPU_FREE(set);
			set = NULL;
			if (errno != EINVAL)
				return NULL;
		}
	}
	if (set && (cpus = calloc((size_t)CPU_COUNT_S(size, set) + 1, sizeof(*cpus))))
		for (c = 0; c < (int)(size * 8); c++)
			if (CPU_ISSET_S(c, size, set))
				cpus[(*n)++] = c;
	CPU_FREE(set);
	return cpus;
}

/* check_pin reads the mask task i runs with back and records in the
 * control block, for the runner to fail the run, when it is not the one
 * CPU the task was pinned to (the first such task only). */
static void check_pin(unsigned i)
{
	unsigned n = 0;
	int want, got = -1, *now;

	if (pin_n == 0)
		return;
	want = pin_cpus[i % pin_n];
	if ((now = allowed_cpus(&n)))
		got = n == 1 ? now[0] : -2;
	free(now);
	if (got == want)
		return;
	int none = 0;
	if (__atomic_compare_exchange_n(&ctl->pin_task, &none, (int)i + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		ctl->pin_want = want;
		ctl->pin_got = got;
	}
}

/* start_threads starts n task threads, task i pinned to cpus[i % ncpus]
 * when ncpus > 0; it returns how many it started (an error in fork_err). */
static unsigned start_threads(pthread_t *th, unsigned n, const int *cpus, unsigned ncpus)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		pthread_attr_t attr;
		cpu_set_t *set = NULL;
		size_t size;
		int err;

		pthread_attr_init(&attr);
		if (ncpus > 0 && (set = one_cpu(cpus[i % ncpus], &size)))
			pthread_attr_setaffinity_np(&attr, size, set);
		err = pthread_create(&th[i], &attr, task_thread, (void *)(uintptr_t)i);
		pthread_attr_destroy(&attr);
		CPU_FREE(set);
		if (err) {
			ctl->fork_err = err;
			return i;
		}
	}
	return n;
}

/* stop_threads cancels and joins the tasks and the extra threads: exit
 * status CT_WIS_EXIT_LATE when one did not end within ctl->join_s. */
static int stop_threads(pthread_t *th, unsigned n)
{
	struct timespec dl;
	unsigned i;
	int late = 0;

	pthread_mutex_lock(&xlock);
	for (i = 0; i < n; i++)
		pthread_cancel(th[i]);
	for (i = 0; i < nx; i++)
		pthread_cancel(xthreads[i]);
	pthread_mutex_unlock(&xlock);
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += ctl->join_s;
	for (i = 0; i < n; i++)
		late |= pthread_timedjoin_np(th[i], NULL, &dl) != 0;
	for (i = 0; i < nx; i++)
		late |= pthread_timedjoin_np(xthreads[i], NULL, &dl) != 0;
	return late ? CT_WIS_EXIT_LATE : 0;
}

/* start_processes forks n task processes; their pids in pids. */
static unsigned start_processes(pid_t *pids, unsigned n, const int *cpus, unsigned ncpus)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(5);
			if (ncpus > 0) {
				size_t size;
				cpu_set_t *set = one_cpu(cpus[i % ncpus], &size);

				if (set)
					sched_setaffinity(0, size, set);
				check_pin(i);
			}
			gate_wait();
			testcase(count_of(i), i);
			_exit(0);
		}
		if (pid < 0) {
			ctl->fork_err = errno;
			return i;
		}
		pids[i] = pid;
	}
	return n;
}

/* reap records the first task process that died with a signal or a
 * nonzero status. */
static void reap(pid_t *pids, unsigned n)
{
	unsigned i;
	pid_t pid;
	int st;

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

static void stop_processes(pid_t *pids, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
				;
}

int main(int argc, char **argv)
{
	unsigned n, ncpus = 0;
	int pin, procs, *cpus = NULL, status = 0;
	pthread_t *th;
	pid_t *pids;

	if (argc != 4)
		return 2;
	n = (unsigned)strtoul(argv[1], NULL, 10);
	pin = atoi(argv[2]);
	procs = atoi(argv[3]);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	shm = mmap(NULL, (size_t)(n + 1) * CT_WIS_SLOT, PROT_READ | PROT_WRITE, MAP_SHARED, 3, 0);
	pids = calloc(n, sizeof(*pids));
	th = calloc(n, sizeof(*th));
	if (shm == MAP_FAILED || !pids || !th)
		return 3;
	ctl = (struct ct_wis_control *)shm;
	ct_wis_shim.new_task = procs ? proc_new_task : thread_new_task;
	if (pin) {
		cpus = allowed_cpus(&ncpus);
		pin_cpus = cpus;
		pin_n = cpus ? ncpus : 0;
	}
	testcase_prepare(n);
	if (procs) {
		n = start_processes(pids, n, cpus, ncpus);
		close(4);
	} else {
		n = start_threads(th, n, cpus, ncpus);
	}
	__atomic_store_n(&ctl->ready, 1, __ATOMIC_RELEASE);
	for (;;) {
		struct pollfd pfd = { 5, POLLIN, 0 };

		if (poll(&pfd, 1, procs ? 100 : -1) != 0 && (pfd.revents || errno != EINTR))
			break;
		if (procs)
			reap(pids, n);
	}
	if (procs)
		stop_processes(pids, n);
	else
		status = stop_threads(th, n);
	if (status == 0)
		testcase_cleanup();
	__atomic_store_n(&ctl->done, 1, __ATOMIC_RELEASE);
	return status;
}
