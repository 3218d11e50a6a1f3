/*
 * wis.c - contend's runner of will-it-scale tests: a test file (testcase,
 * optionally testcase_prepare, testcase_cleanup, testcase_description,
 * new_task) compiled with native/wis_shim.c into a shared object, loaded in
 * the repetition's child. Written from the API's description, not from
 * will-it-scale's main.c; what it keeps of that runner's behaviour:
 *
 *   - testcase_prepare(tasks) runs once before the tasks start, in this
 *     process (so process tasks inherit what it made), testcase_cleanup()
 *     once after every task ended;
 *   - task i runs testcase(&count_i, i) forever, its count alone in a
 *     CT_SLOT (256-byte) slot of a MAP_SHARED mapping, pinned (p->pin) to
 *     the i-th allowed CPU modulo their number, as threads (cancelled
 *     asynchronously at the end, as the tests expect) or processes;
 *   - processes are forked by a leader (native/wis_proc.c, compiled with
 *     the test) that this thread starts with fork and exec: a process that
 *     never had a second thread, as will-it-scale's runner is, so that glibc
 *     takes its single-threaded paths in the tasks (a task forked from this
 *     multi-threaded child ran pthread_mutex1 2-4x slower). The leader runs
 *     testcase_prepare, forks the tasks, and, when told, kills them and runs
 *     testcase_cleanup; the counts are in a memfd both map;
 *   - all tasks wait at one start gate (a pipe whose write end is closed
 *     once every task exists); the runner samples the counts after a warmup
 *     and again after the measured interval.
 *
 * Timed: the interval between the two samples, read with CLOCK_MONOTONIC.
 * A task process that dies before the end (an assert, a signal) fails the
 * repetition, naming it; in thread mode a crash kills the child with its
 * signal, which the parent names.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "duration.h"
#include "wis.h"

_Static_assert(CT_SLOT == CT_WIS_SLOT, "the leader lays the counts out as the runner reads them");

#define WIS_TICK_NS 100000000ULL /* processes: look for dead tasks this often */
#define WIS_MAX_EXTRA 4096       /* threads a test may start with new_task */
#define WIS_JOIN_S 10            /* a cancelled thread must end within this */

typedef void (*wis_testcase)(unsigned long long *, unsigned long);

struct wis {
	const struct ct_wis_params *p;
	struct ct_wis_result *r;
	wis_testcase testcase;
	void (*prepare)(unsigned long);
	void (*cleanup)(void);
	char *shm;        /* slot 0: control (extra task count), then one slot per task */
	int gate[2];      /* read end: tasks wait; write end closed: go */
	int cpus[CPU_SETSIZE];
	int ncpus;
	pthread_t *threads;
	unsigned started;
	pid_t leader;    /* process mode: the leader (wis_proc.c) */
	int stop;        /* process mode: the stop pipe's write end */
	pthread_mutex_t xlock;
	pthread_t xthreads[WIS_MAX_EXTRA];
	unsigned nx;
	int xerr;
};

static struct wis *wis_cur; /* for new_task, which the shim calls without context */

static struct ct_slot *wis_slot(struct wis *w, unsigned i)
{
	return ct_slot_at(w->shm, i + 1);
}

static void wis_gate_wait(struct wis *w)
{
	char c;

	while (read(w->gate[0], &c, 1) < 0 && errno == EINTR)
		;
}

static void *wis_thread(void *arg)
{
	struct wis *w = wis_cur;
	unsigned i = (unsigned)(uintptr_t)arg;

	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	wis_gate_wait(w);
	w->testcase((unsigned long long *)&wis_slot(w, i)->count, i);
	return NULL;
}

struct wis_extra {
	void *(*func)(void *);
	void *arg;
};

static void *wis_extra_thread(void *arg)
{
	struct wis_extra x = *(struct wis_extra *)arg;

	free(arg);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	return x.func(x.arg);
}

/* wis_new_task is the shim's new_task in thread mode: an extra thread, not
 * counted, not pinned (in process mode the leader's forks a process). */
static void wis_new_task(void *(*func)(void *), void *arg)
{
	struct wis *w = wis_cur;
	struct wis_extra *x;
	pthread_t t;

	x = malloc(sizeof(*x));
	if (!x) {
		w->xerr = ENOMEM;
		return;
	}
	x->func = func;
	x->arg = arg;
	pthread_mutex_lock(&w->xlock);
	if (w->nx >= WIS_MAX_EXTRA) {
		w->xerr = EAGAIN;
	} else if ((errno = pthread_create(&t, NULL, wis_extra_thread, x)) != 0) {
		w->xerr = errno;
	} else {
		w->xthreads[w->nx++] = t;
		x = NULL;
	}
	pthread_mutex_unlock(&w->xlock);
	free(x);
}

static int wis_start(struct wis *w)
{
	const struct ct_wis_params *p = w->p;
	unsigned i, n = (unsigned)p->tasks;

	for (i = 0; i < n; i++) {
		{
			pthread_attr_t attr;
			cpu_set_t set;
			int err;

			pthread_attr_init(&attr);
			if (p->pin) {
				CPU_ZERO(&set);
				CPU_SET(w->cpus[i % (unsigned)w->ncpus], &set);
				pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
			}
			err = pthread_create(&w->threads[i], &attr, wis_thread, (void *)(uintptr_t)i);
			pthread_attr_destroy(&attr);
			if (err)
				return ct_fail(&w->r->status, err, "pthread_create", "of task thread %u of %u", i, n);
		}
		w->started++;
	}
	return 0;
}

/* wis_dead fails the run when the leader recorded a task that died, or
 * the leader itself ended. */
static int wis_dead(struct wis *w)
{
	struct ct_wis_control *ctl = (struct ct_wis_control *)w->shm;
	int st, ds = __atomic_load_n(&ctl->dead_status, __ATOMIC_ACQUIRE);
	char sig[32];

	if (ds < 0)
		return ct_fail(&w->r->status, EIO, "task", "process %d of %u was killed by %s", ctl->dead_task,
			       (unsigned)w->p->tasks, ct_signame(-ds, sig, sizeof(sig)));
	if (ds > 0)
		return ct_fail(&w->r->status, EIO, "task", "process %d of %u exited with status %d", ctl->dead_task,
			       (unsigned)w->p->tasks, ds);
	if (w->leader > 0 && waitpid(w->leader, &st, WNOHANG) == w->leader) {
		w->leader = 0;
		if (WIFSIGNALED(st))
			return ct_fail(&w->r->status, EIO, "task", "the tasks' leader process was killed by %s (in testcase_prepare?)",
				       ct_signame(WTERMSIG(st), sig, sizeof(sig)));
		return ct_fail(&w->r->status, EIO, "task", "the tasks' leader process exited with status %d before the end",
			       WEXITSTATUS(st));
	}
	return 0;
}

static int wis_sleep(struct wis *w, uint64_t ns)
{
	uint64_t end = ct_now_ns() + ns, now;
	int err;

	while ((now = ct_now_ns()) < end) {
		uint64_t step = end - now;
		struct timespec ts;

		if (w->p->mode && step > WIS_TICK_NS)
			step = WIS_TICK_NS;
		ts.tv_sec = (time_t)(step / 1000000000ULL);
		ts.tv_nsec = (long)(step % 1000000000ULL);
		nanosleep(&ts, NULL);
		if (w->p->mode && (err = wis_dead(w)) != 0)
			return err;
	}
	return 0;
}

static void wis_sample(struct wis *w, uint64_t *out)
{
	unsigned i;

	for (i = 0; i < (unsigned)w->p->tasks; i++)
		out[i] = __atomic_load_n(&wis_slot(w, i)->count, __ATOMIC_RELAXED);
}

/* wis_stop ends every task: threads are cancelled and joined (within
 * WIS_JOIN_S); in process mode the leader is told to kill and reap them,
 * run testcase_cleanup and exit, and is reaped. */
static int wis_stop(struct wis *w)
{
	struct timespec dl;
	unsigned i;
	int err = 0, st;

	if (w->p->mode) {
		char sig[32];

		if (w->stop >= 0)
			close(w->stop);
		w->stop = -1;
		if (w->leader <= 0)
			return 0;
		while (waitpid(w->leader, &st, 0) < 0 && errno == EINTR)
			;
		w->leader = 0;
		if (WIFSIGNALED(st))
			return ct_fail(&w->r->status, EIO, "task", "the tasks' leader process was killed by %s (in testcase_cleanup?)",
				       ct_signame(WTERMSIG(st), sig, sizeof(sig)));
		if (WEXITSTATUS(st) != 0)
			return ct_fail(&w->r->status, EIO, "task", "the tasks' leader process exited with status %d", WEXITSTATUS(st));
		return 0;
	}
	pthread_mutex_lock(&w->xlock);
	for (i = 0; i < w->started; i++)
		pthread_cancel(w->threads[i]);
	for (i = 0; i < w->nx; i++)
		pthread_cancel(w->xthreads[i]);
	pthread_mutex_unlock(&w->xlock);
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += WIS_JOIN_S;
	for (i = 0; i < w->started; i++)
		if (pthread_timedjoin_np(w->threads[i], NULL, &dl) != 0 && !err)
			err = ct_fail(&w->r->status, ETIMEDOUT, "pthread_cancel",
				      "task thread %u did not end within %d s of its cancellation", i, WIS_JOIN_S);
	for (i = 0; i < w->nx; i++)
		if (pthread_timedjoin_np(w->xthreads[i], NULL, &dl) != 0 && !err)
			err = ct_fail(&w->r->status, ETIMEDOUT, "pthread_cancel",
				      "extra task thread %u (new_task) did not end within %d s of its cancellation", i,
				      WIS_JOIN_S);
	return err;
}

/* wis_leader starts the process-mode leader: fork, then in the child fd 3
 * the counters' memfd, 4 the gate, 5 the stop pipe, and exec. It waits
 * until the leader has forked the tasks. */
static int wis_leader(struct wis *w, int memfd, int gate_r, int stop_r)
{
	const struct ct_wis_params *p = w->p;
	struct ct_wis_control *ctl = (struct ct_wis_control *)w->shm;
	uint64_t deadline;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return ct_fail(&w->r->status, errno, "fork", "of the tasks' leader process");
	if (pid == 0) {
		struct sigaction sa;
		sigset_t none;
		char tasks[16], pin[4];
		char *argv[] = { "contend-wis-run", tasks, pin, NULL };
		int a, b, c, sig;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		for (sig = 1; sig < NSIG; sig++)
			if (sig != SIGKILL && sig != SIGSTOP)
				sigaction(sig, &sa, NULL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		a = fcntl(memfd, F_DUPFD, 10);
		b = fcntl(gate_r, F_DUPFD, 10);
		c = fcntl(stop_r, F_DUPFD, 10);
		if (a < 0 || b < 0 || c < 0 || dup2(a, 3) < 0 || dup2(b, 4) < 0 || dup2(c, 5) < 0)
			_exit(126);
		snprintf(tasks, sizeof(tasks), "%d", p->tasks);
		snprintf(pin, sizeof(pin), "%d", p->pin ? 1 : 0);
		execv(p->exe, argv);
		_exit(127);
	}
	w->leader = pid;
	deadline = ct_now_ns() + 120ULL * 1000000000ULL;
	while (!__atomic_load_n(&ctl->ready, __ATOMIC_ACQUIRE)) {
		struct timespec ts = { 0, 1000000 };
		int err = wis_dead(w);

		if (err)
			return err;
		if (ct_now_ns() > deadline)
			return ct_fail(&w->r->status, ETIMEDOUT, "task", "the tasks' leader did not start the tasks within 120 s (testcase_prepare?)");
		nanosleep(&ts, NULL);
	}
	if (ctl->fork_err)
		return ct_fail(&w->r->status, ctl->fork_err, "fork", "of a task process by the leader");
	return 0;
}

static int wis_load(struct wis *w)
{
	const struct ct_wis_params *p = w->p;
	struct ct_wis_shim *shim;
	char **desc;
	void *h;

	h = dlopen(p->so, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return ct_fail(&w->r->status, ENOEXEC, "dlopen", "%s", dlerror());
	w->testcase = (wis_testcase)dlsym(h, "testcase");
	w->prepare = (void (*)(unsigned long))dlsym(h, "testcase_prepare");
	w->cleanup = (void (*)(void))dlsym(h, "testcase_cleanup");
	desc = (char **)dlsym(h, "testcase_description");
	shim = (struct ct_wis_shim *)dlsym(h, "ct_wis_shim");
	if (!shim || shim->magic != CT_WIS_MAGIC)
		return ct_fail(&w->r->status, EINVAL, "wis", "%s was not built with contend's wis_shim.c", p->so);
	if (!w->testcase)
		return ct_fail(&w->r->status, EINVAL, "wis", "the test defines no testcase(unsigned long long *, unsigned long)");
	if (desc && *desc)
		snprintf(w->r->description, sizeof(w->r->description), "%s", *desc);
	shim->new_task = wis_new_task;
	return 0;
}

/* A crashing test must kill the child with its signal, so that the parent
 * can name it (the Go runtime would turn it into exit status 2). */
static const int wis_crash[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP };
#define WIS_NCRASH (sizeof(wis_crash) / sizeof(wis_crash[0]))

int ct_wis_run(const struct ct_wis_params *p, struct ct_wis_result *r)
{
	struct sigaction dfl, saved[WIS_NCRASH];
	static struct wis w; /* one run per child; large (the extra threads) */
	unsigned i, n = (unsigned)p->tasks;
	uint64_t *s0 = NULL, t0, t1;
	size_t shm_len = (size_t)(n + 1) * CT_SLOT;
	int err = 0, stoperr, memfd = -1, stop[2] = { -1, -1 };

	memset(r, 0, sizeof(*r));
	memset(&w, 0, sizeof(w));
	w.p = p;
	w.r = r;
	w.gate[0] = w.gate[1] = -1;
	w.stop = -1;
	pthread_mutex_init(&w.xlock, NULL);
	wis_cur = &w;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (i = 0; i < WIS_NCRASH; i++)
		sigaction(wis_crash[i], &dfl, &saved[i]);

	if (n < 1) {
		err = ct_fail(&r->status, EINVAL, "wis", "needs at least one task");
		goto out;
	}
	if (!p->mode && (err = wis_load(&w)) != 0)
		goto out;
	if (!p->mode && p->pin && (w.ncpus = ct_allowed_cpus(w.cpus, &r->status)) < 0) {
		err = -w.ncpus;
		goto out;
	}
	if (p->mode) {
		memfd = memfd_create("contend-wis", MFD_CLOEXEC);
		if (memfd < 0 || ftruncate(memfd, (off_t)shm_len) != 0) {
			err = ct_fail(&r->status, errno, "memfd_create", "of %zu bytes for %u tasks' counters", shm_len, n);
			goto out;
		}
		w.shm = mmap(NULL, shm_len, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	} else {
		w.shm = mmap(NULL, shm_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	}
	if (w.shm == MAP_FAILED) {
		w.shm = NULL;
		err = ct_fail(&r->status, errno, "mmap", "MAP_SHARED of %zu bytes for %u tasks' counters", shm_len, n);
		goto out;
	}
	s0 = calloc(n, sizeof(*s0));
	w.threads = calloc(n, sizeof(*w.threads));
	if (!s0 || !w.threads) {
		err = ct_fail(&r->status, ENOMEM, "calloc", "for %u tasks", n);
		goto out;
	}
	if (pipe2(w.gate, O_CLOEXEC) != 0 || (p->mode && pipe2(stop, O_CLOEXEC) != 0)) {
		err = ct_fail(&r->status, errno, "pipe", "for the start gate");
		goto out;
	}
	if (p->mode) {
		w.stop = stop[1];
		err = wis_leader(&w, memfd, w.gate[0], stop[0]);
		close(stop[0]);
	} else {
		if (w.prepare)
			w.prepare(n);
		err = wis_start(&w);
	}
	close(w.gate[1]); /* the gate opens (or releases the tasks started before a failure) */
	w.gate[1] = -1;
	if (!err)
		err = wis_sleep(&w, p->warmup_ns);
	if (!err) {
		wis_sample(&w, s0);
		t0 = ct_now_ns();
		err = wis_sleep(&w, p->duration_ns);
		wis_sample(&w, p->per_task);
		t1 = ct_now_ns();
		r->elapsed_ns = t1 - t0;
	}
	if (!err && p->mode)
		err = wis_dead(&w);
	stoperr = wis_stop(&w);
	if (!err)
		err = stoperr;
	if (!err && w.xerr)
		err = ct_fail(&r->status, w.xerr, "new_task", "could not start an extra task thread");
	if (!err && p->mode && ((struct ct_wis_control *)w.shm)->extra_err)
		err = ct_fail(&r->status, ((struct ct_wis_control *)w.shm)->extra_err, "new_task", "could not fork an extra task process");
	if (!p->mode && w.cleanup && !stoperr)
		w.cleanup();
	if (!err) {
		for (i = 0; i < n; i++) {
			p->per_task[i] -= s0[i];
			r->iterations += p->per_task[i];
		}
		r->extra_tasks = p->mode ? ((struct ct_wis_control *)w.shm)->extra : (int)w.nx;
	}
out:
	if (w.leader > 0) { /* an early error: the leader dies with its stop pipe */
		if (w.stop >= 0)
			close(w.stop);
		kill(w.leader, SIGKILL);
		waitpid(w.leader, NULL, 0);
	}
	if (w.gate[0] >= 0)
		close(w.gate[0]);
	if (w.gate[1] >= 0)
		close(w.gate[1]);
	if (memfd >= 0)
		close(memfd);
	if (w.shm)
		munmap(w.shm, shm_len);
	free(s0);
	free(w.threads);
	/* The test stays loaded: the child exits right after. */
	for (i = 0; i < WIS_NCRASH; i++)
		sigaction(wis_crash[i], &saved[i], NULL);
	return err;
}
