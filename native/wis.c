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
 *     asynchronously at the end, as the tests expect) or forked processes
 *     (killed at the end; each dies with this thread, PR_SET_PDEATHSIG);
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
	pid_t *pids;
	unsigned started;
	pid_t parent;
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

/* wis_new_task is the shim's new_task: an extra task, not counted, not
 * pinned: a thread in thread mode, a process forked by the calling task in
 * process mode (dying with it). */
static void wis_new_task(void *(*func)(void *), void *arg)
{
	struct wis *w = wis_cur;
	struct wis_extra *x;
	pthread_t t;
	pid_t pid;

	__atomic_add_fetch(&ct_slot_at(w->shm, 0)->count, 1, __ATOMIC_RELAXED);
	if (w->p->mode) {
		pid_t parent = getpid();

		pid = fork();
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(127);
			func(arg);
			_exit(0);
		}
		if (pid < 0)
			ct_slot_at(w->shm, 0)->err = errno;
		return;
	}
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

static void __attribute__((noreturn)) wis_process(struct wis *w, unsigned i)
{
	struct sigaction sa;
	sigset_t none;
	cpu_set_t set;
	int sig;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != w->parent)
		_exit(127);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (w->p->report_fd >= 0)
		close(w->p->report_fd);
	close(w->gate[1]);
	if (w->p->pin) {
		CPU_ZERO(&set);
		CPU_SET(w->cpus[i % (unsigned)w->ncpus], &set);
		if (sched_setaffinity(0, sizeof(set), &set) != 0)
			_exit(126);
	}
	wis_gate_wait(w);
	w->testcase((unsigned long long *)&wis_slot(w, i)->count, i);
	_exit(0);
}

static int wis_start(struct wis *w)
{
	const struct ct_wis_params *p = w->p;
	unsigned i, n = (unsigned)p->tasks;

	for (i = 0; i < n; i++) {
		if (p->mode) {
			pid_t pid = fork();

			if (pid == 0)
				wis_process(w, i);
			if (pid < 0)
				return ct_fail(&w->r->status, errno, "fork", "of task process %u of %u", i, n);
			w->pids[i] = pid;
		} else {
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

/* wis_dead looks for a task process that ended before it was told to:
 * a signal or a non-zero exit fails the run. */
static int wis_dead(struct wis *w)
{
	unsigned i;
	int st;

	for (i = 0; i < w->started; i++) {
		char sig[32];

		if (w->pids[i] <= 0 || waitpid(w->pids[i], &st, WNOHANG) != w->pids[i])
			continue;
		w->pids[i] = 0;
		if (WIFSIGNALED(st))
			return ct_fail(&w->r->status, EIO, "task", "process %u of %u was killed by %s", i, w->started,
				       ct_signame(WTERMSIG(st), sig, sizeof(sig)));
		if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
			return ct_fail(&w->r->status, EIO, "task", "process %u of %u exited with status %d", i,
				       w->started, WEXITSTATUS(st));
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
 * WIS_JOIN_S), processes killed and reaped. */
static int wis_stop(struct wis *w)
{
	struct timespec dl;
	unsigned i;
	int err = 0;

	if (w->p->mode) {
		for (i = 0; i < w->started; i++)
			if (w->pids[i] > 0)
				kill(w->pids[i], SIGKILL);
		for (i = 0; i < w->started; i++)
			if (w->pids[i] > 0)
				while (waitpid(w->pids[i], NULL, 0) < 0 && errno == EINTR)
					;
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
	int err = 0, stoperr;

	memset(r, 0, sizeof(*r));
	memset(&w, 0, sizeof(w));
	w.p = p;
	w.r = r;
	w.gate[0] = w.gate[1] = -1;
	w.parent = getpid();
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
	if ((err = wis_load(&w)) != 0)
		goto out;
	if (p->pin && (w.ncpus = ct_allowed_cpus(w.cpus, &r->status)) < 0) {
		err = -w.ncpus;
		goto out;
	}
	w.shm = mmap(NULL, shm_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (w.shm == MAP_FAILED) {
		w.shm = NULL;
		err = ct_fail(&r->status, errno, "mmap", "MAP_SHARED of %zu bytes for %u tasks' counters", shm_len, n);
		goto out;
	}
	s0 = calloc(n, sizeof(*s0));
	w.threads = calloc(n, sizeof(*w.threads));
	w.pids = calloc(n, sizeof(*w.pids));
	if (!s0 || !w.threads || !w.pids) {
		err = ct_fail(&r->status, ENOMEM, "calloc", "for %u tasks", n);
		goto out;
	}
	if (pipe(w.gate) != 0) {
		err = ct_fail(&r->status, errno, "pipe", "for the start gate");
		goto out;
	}
	if (w.prepare)
		w.prepare(n);
	err = wis_start(&w);
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
	if (!err && ct_slot_at(w.shm, 0)->err)
		err = ct_fail(&r->status, ct_slot_at(w.shm, 0)->err, "new_task", "could not fork an extra task process");
	if (w.cleanup && !stoperr)
		w.cleanup();
	if (!err) {
		for (i = 0; i < n; i++) {
			p->per_task[i] -= s0[i];
			r->iterations += p->per_task[i];
		}
		r->extra_tasks = (int)ct_slot_at(w.shm, 0)->count;
	}
out:
	if (w.gate[0] >= 0)
		close(w.gate[0]);
	if (w.gate[1] >= 0)
		close(w.gate[1]);
	if (w.shm)
		munmap(w.shm, shm_len);
	free(s0);
	free(w.threads);
	free(w.pids);
	/* The test stays loaded: the child exits right after. */
	for (i = 0; i < WIS_NCRASH; i++)
		sigaction(wis_crash[i], &saved[i], NULL);
	return err;
}
