/*
 * plugin.c - contend's runner of plugins (native/contend_plugin.h), in the
 * shape of will-it-scale's runner with its defects fixed:
 *
 *   - the runner owns the workers (threads, or forked processes as
 *     will-it-scale's _processes builds), the start gate, the clock, the
 *     counters (one CT_SLOT, 256-byte, slot per worker, no false sharing)
 *     and optional pinning; the plugin owns one function. Threads are
 *     contend's duration runner (duration.c, shared with semop-multi);
 *     processes are below, with the runner's slot layout and CPU list;
 *   - workers return when asked (a stop flag) instead of being cancelled
 *     asynchronously, so no lock is left held and teardown is safe;
 *   - one shared header declares the contract (will-it-scale's main.c and
 *     tests disagreed on testcase's type), errors are returned, not exit()ed,
 *     and pinning needs no hwloc.
 *
 * Timed: from opening the start gate (all workers created, set up and
 * waiting) to the last worker's return. Not timed: dlopen, setup, thread
 * creation or fork, each worker's struct contend_thread, joins or reaping,
 * teardown.
 *
 * Worker processes (p->processes) are forked after contend_setup, so they
 * inherit the plugin's state copy-on-write: each has its own copy, as in
 * will-it-scale's process mode. Their counters, the stop flag and the start
 * gate live in one MAP_SHARED | MAP_ANONYMOUS mapping: a control slot (a
 * ready count, a finished count and the gate, futex words every worker
 * waits on) and a stop slot, then one CT_SLOT slot per worker. Like
 * osim.c's workers they run only C, reset the signal handlers inherited
 * from the Go runtime, die with the thread that forked them
 * (PR_SET_PDEATHSIG), never touch stdio and leave with _exit; they stay in
 * the repetition child's process group. The parent thread blocks SIGCHLD,
 * sleeps on the futex words and every CT_TICK_NS looks for a worker that
 * died (waitid WNOWAIT): a worker killed by a signal, or one that exited
 * before contend_worker returned, fails the repetition naming the signal or
 * status, and the others are killed and reaped. A failed fork kills and
 * reaps the workers already forked. Teardown runs in the parent.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "duration.h"
#include "plugin.h"

#define CT_TICK_NS 100000000ULL /* processes: look for dead workers this often */

_Static_assert(CONTEND_MAX_COUNTERS == CT_COUNTERS, "a slot holds a plugin's counters");

/* What the runner found in the shared object. */
struct loaded {
	const struct contend_plugin *info;
	void (*worker)(void *, unsigned, struct contend_thread *);
	int (*setup)(unsigned, void **);
	void (*teardown)(void *);
};

/* One repetition, either kind of worker. */
struct run {
	const struct ct_plugin_params *p;
	struct ct_plugin_result *r;
	struct loaded ld;
	void *state;
	unsigned n;
	void *slots;       /* processes: n slots of CT_SLOT bytes */
	const int *cpus;   /* processes, --pin: the allowed CPUs, ncpus of them */
	int ncpus;
	struct worker_thread *threads; /* threads: n, each set up by its worker before the gate */
};

static int worker_cpu(const struct run *run, unsigned i)
{
	return run->p->pin && run->ncpus > 0 ? run->cpus[i % run->ncpus] : -1;
}

static void worker_thread_init(const struct run *run, unsigned i, int cpu, struct ct_slot *s,
			       struct contend_thread *t, const volatile int *stop)
{
	memset(t, 0, sizeof(*t));
	t->id = i;
	t->nthreads = run->n;
	t->cpu = cpu;
	t->process = run->p->processes != 0;
	t->stop = stop;
	t->iterations = &s->count;
	t->counters = s->counters;
}

/* ---- threads: the duration runner ---- */

/*
 * A worker's struct contend_thread, alone in its 128 bytes (a cache line
 * and the one the adjacent-line prefetcher pairs with it): the worker gets
 * a pointer it may write through, and neighbours in one array must not
 * share a line (on its thread's stack, as before the gate moved, it shared
 * none).
 */
struct worker_thread {
	struct contend_thread t;
} __attribute__((aligned(128)));

/* Before the gate: the worker's struct contend_thread (read only after). */
static void plugin_thread_init(void *arg, const struct ct_worker *w)
{
	const struct run *run = arg;

	worker_thread_init(run, w->id, w->cpu, w->slot, &run->threads[w->id].t, w->stop);
}

static int plugin_thread(void *arg, const struct ct_worker *w)
{
	const struct run *run = arg;

	run->ld.worker(run->state, w->id, &run->threads[w->id].t);
	return 0;
}

static int run_threads(struct run *run, struct ct_slot *total)
{
	const struct ct_plugin_params *p = run->p;
	struct ct_plugin_result *r = run->r;
	struct ct_duration d;
	int err;

	run->threads = aligned_alloc(sizeof(*run->threads), run->n * sizeof(*run->threads));
	if (!run->threads)
		return ct_fail(&r->status, ENOMEM, "malloc", "for %u workers' struct contend_thread", run->n);
	memset(run->threads, 0, run->n * sizeof(*run->threads));
	memset(&d, 0, sizeof(d));
	d.n = run->n;
	/* Fixed mode: no duration, the stop flag is set from the start. */
	d.duration_ns = run->ld.info->mode == CONTEND_DURATION ? p->duration_ns : 0;
	d.pin = p->pin;
	d.inject = p->inject;
	d.prepare = plugin_thread_init;
	d.work = plugin_thread;
	d.arg = run;
	d.call = "plugin";
	d.per_thread = p->per_thread;
	err = ct_duration_run(&d, &r->status);
	free(run->threads);
	run->threads = NULL;
	r->workers_started = (int)d.started;
	if (!err)
		r->elapsed_ns = d.elapsed_ns;
	*total = d.total;
	return err;
}

/* ---- processes ---- */

/* The control block, in its own slot of the shared mapping. The three
 * counts are futex words (shared, so not FUTEX_PRIVATE). */
struct pctl {
	unsigned ready;    /* workers waiting at the gate */
	unsigned finished; /* workers whose contend_worker returned */
	unsigned go;       /* the start gate: 0 closed, 1 open */
};

struct procs {
	struct run *run;
	struct pctl *ctl;
	volatile int *stop; /* its own slot: read in every worker's loop */
	pid_t *pids;
	unsigned char *reaped;
	unsigned started;
};

static void futex_wait(unsigned *w, unsigned val, const struct timespec *ts)
{
	syscall(SYS_futex, w, FUTEX_WAIT, val, ts, NULL, 0);
}

static void futex_wake(unsigned *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* proc_worker is the forked side: C only, no stdio, leaves with _exit. */
static void __attribute__((noreturn))
proc_worker(const struct procs *pr, unsigned i, pid_t parent)
{
	const struct run *run = pr->run;
	struct ct_slot *s = ct_slot_at(run->slots, i);
	struct contend_thread t;
	struct sigaction sa;
	sigset_t none;
	int sig;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (run->p->report_fd >= 0)
		close(run->p->report_fd);

	worker_thread_init(run, i, worker_cpu(run, i), s, &t, pr->stop);
	if (t.cpu >= 0) {
		size_t size;
		cpu_set_t *one = ct_cpu_one(t.cpu, &size);

		if (!one || sched_setaffinity(0, size, one) != 0) {
			s->err = one ? errno : ENOMEM;
			_exit(1);
		}
		s->got_cpu = ct_pinned_cpu();
	}
	if (__atomic_add_fetch(&pr->ctl->ready, 1, __ATOMIC_SEQ_CST) == run->n)
		futex_wake(&pr->ctl->ready);
	while (!__atomic_load_n(&pr->ctl->go, __ATOMIC_ACQUIRE))
		futex_wait(&pr->ctl->go, 0, NULL);

	run->ld.worker(run->state, i, &t);

	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	if (__atomic_add_fetch(&pr->ctl->finished, 1, __ATOMIC_SEQ_CST) == run->n)
		futex_wake(&pr->ctl->finished);
	_exit(0);
}

/* proc_status judges how worker i ended; it returns 0 or a positive errno
 * after filling the status. */
static int proc_status(struct procs *pr, unsigned i, int st)
{
	struct run *run = pr->run;
	struct ct_slot *s = ct_slot_at(run->slots, i);
	char buf[16];

	if (WIFSIGNALED(st))
		return ct_fail(&run->r->status, ECHILD, "worker", "worker %u of %u (pid %d) was killed by signal %s",
			       i + 1, run->n, (int)pr->pids[i], ct_signame(WTERMSIG(st), buf, sizeof(buf)));
	if (s->err)
		return ct_fail(&run->r->status, s->err, "sched_setaffinity", "of worker %u of %u to CPU %d (--pin)",
			       i + 1, run->n, worker_cpu(run, i));
	if (worker_cpu(run, i) >= 0 && ct_check_pinned(&run->r->status, i, run->n, worker_cpu(run, i), s->got_cpu))
		return EINVAL;
	if (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE))
		return ct_fail(&run->r->status, ECHILD, "worker",
			       "worker %u of %u (pid %d) exited with status %d before contend_worker returned "
			       "(a worker must return, not exit)",
			       i + 1, run->n, (int)pr->pids[i], WEXITSTATUS(st));
	return 0;
}

/* proc_reap waits for worker i (flags: 0 or WNOHANG) and judges its end
 * into *err and the status unless *err is set already (the first failure
 * is the one reported; the workers killed after it are not failures). */
static void proc_reap(struct procs *pr, unsigned i, int flags, int *err)
{
	pid_t w;
	int st, e;

	do
		w = waitpid(pr->pids[i], &st, flags);
	while (w < 0 && errno == EINTR);
	if (w == 0)
		return; /* WNOHANG: still running */
	pr->reaped[i] = 1;
	if (w < 0) {
		e = errno;
		if (!*err && !__atomic_load_n(&ct_slot_at(pr->run->slots, i)->done, __ATOMIC_ACQUIRE))
			*err = ct_fail(&pr->run->r->status, e, "waitpid", "for worker %u of %u (pid %d)",
				       i + 1, pr->run->n, (int)pr->pids[i]);
		return;
	}
	if (!*err)
		*err = proc_status(pr, i, st);
}

/* proc_check reaps the workers that ended and returns the first failure
 * (0 if none). One waitid(WNOWAIT) tells whether any child ended. */
static int proc_check(struct procs *pr)
{
	siginfo_t si;
	unsigned i;
	int err = 0;

	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0)
			return err;
		for (i = 0; i < pr->started && pr->pids[i] != si.si_pid; i++)
			;
		if (i == pr->started || pr->reaped[i]) {
			/* Not ours: look at each of ours instead. */
			for (i = 0; i < pr->started; i++)
				if (!pr->reaped[i])
					proc_reap(pr, i, WNOHANG, &err);
			return err;
		}
		proc_reap(pr, i, 0, &err);
		if (err)
			return err;
	}
}

/* proc_wait sleeps until *word reaches want or until deadline (ns of
 * CLOCK_MONOTONIC, 0 for none), looking for dead workers every CT_TICK_NS.
 * A wake-up that meets the condition returns at once, without a syscall. */
static int proc_wait(struct procs *pr, unsigned *word, unsigned want, uint64_t deadline)
{
	for (;;) {
		unsigned cur = __atomic_load_n(word, __ATOMIC_ACQUIRE);
		uint64_t left = CT_TICK_NS, now;
		struct timespec ts;
		int err;

		if (cur >= want)
			return 0;
		if (deadline) {
			now = ct_now_ns();
			if (now >= deadline)
				return 0;
			if (deadline - now < left)
				left = deadline - now;
		}
		ts.tv_sec = left / 1000000000ULL;
		ts.tv_nsec = left % 1000000000ULL;
		futex_wait(word, cur, &ts);
		if (__atomic_load_n(word, __ATOMIC_ACQUIRE) >= want)
			return 0;
		if ((err = proc_check(pr)))
			return err;
	}
}

static int run_processes(struct run *run, struct pctl *ctl, volatile int *stop)
{
	const struct ct_plugin_params *p = run->p;
	struct ct_plugin_result *r = run->r;
	struct procs pr;
	sigset_t chld, oldmask;
	pid_t parent = getpid();
	unsigned i, n = run->n;
	int err = 0;
	uint64_t t0, t1;

	memset(&pr, 0, sizeof(pr));
	pr.run = run;
	pr.ctl = ctl;
	pr.stop = stop;
	pr.pids = calloc(n, sizeof(*pr.pids));
	pr.reaped = calloc(n, 1);
	if (!pr.pids || !pr.reaped) {
		free(pr.pids);
		free(pr.reaped);
		return ct_fail(&r->status, ENOMEM, "malloc", "for %u processes", n);
	}
	/* A fixed-mode worker that loops until stopped returns at once. */
	*stop = run->ld.info->mode == CONTEND_FIXED;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, &oldmask);

	fflush(NULL); /* nothing buffered is inherited */
	for (i = 0; i < n; i++) {
		pid_t pid;

		if ((p->inject & CT_INJECT_FORK_EAGAIN) && i == n / 2) {
			pid = -1;
			errno = EAGAIN;
		} else {
			pid = fork();
		}
		if (pid == 0)
			proc_worker(&pr, i, parent);
		if (pid < 0) {
			err = ct_fail(&r->status, errno, "fork",
				      "of worker %u of %u (%u forked; raise ulimit -u (RLIMIT_NPROC), "
				      "kernel.threads-max, kernel.pid_max or the pids cgroup limit)",
				      i + 1, n, i);
			break;
		}
		pr.pids[i] = pid;
		pr.started++;
	}
	r->workers_started = (int)pr.started;

	/* The start gate: every worker is waiting on ctl->go. */
	if (!err)
		err = proc_wait(&pr, &ctl->ready, n, 0);
	if (!err) {
		t0 = ct_now_ns();
		__atomic_store_n(&ctl->go, 1, __ATOMIC_RELEASE);
		futex_wake(&ctl->go);
		if (run->ld.info->mode == CONTEND_DURATION) {
			/* finished never exceeds n: this waits for the deadline. */
			err = proc_wait(&pr, &ctl->finished, n + 1, t0 + p->duration_ns);
			__atomic_store_n(stop, 1, __ATOMIC_RELAXED);
		}
		if (!err)
			err = proc_wait(&pr, &ctl->finished, n, 0);
		t1 = ct_now_ns();
		if (!err)
			r->elapsed_ns = t1 - t0;
	}

	if (err)
		for (i = 0; i < pr.started; i++)
			if (!pr.reaped[i])
				kill(pr.pids[i], SIGKILL);
	for (i = 0; i < pr.started; i++)
		if (!pr.reaped[i])
			proc_reap(&pr, i, 0, &err);
	pthread_sigmask(SIG_SETMASK, &oldmask, NULL);
	free(pr.pids);
	free(pr.reaped);
	return err;
}

/* ---- loading and the repetition ---- */

static int valid_name(const char *s, size_t max)
{
	size_t i;

	if (!(s[0] >= 'a' && s[0] <= 'z'))
		return 0;
	for (i = 0; i < max && s[i]; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return i < max;
}

/*
 * plugin_dlopen_errno returns an errno for a failed dlopen of so, which
 * sets none reliably: why so cannot be read (ENOENT, EACCES, ...), else
 * ENOEXEC (not a loadable library: wrong ELF class or machine, a missing
 * dependency or symbol; dlerror() says which).
 */
static int plugin_dlopen_errno(const char *so)
{
	int fd = open(so, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno ? errno : ENOENT;
	close(fd);
	return ENOEXEC;
}

static int plugin_load(const struct ct_plugin_params *p, struct ct_plugin_result *r, struct loaded *ld)
{
	const struct contend_plugin *info;
	void *h;
	int k;

	h = dlopen(p->so, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return ct_fail(&r->status, plugin_dlopen_errno(p->so), "dlopen", "%s", dlerror());
	info = dlsym(h, "contend_plugin");
	if (!info)
		return ct_fail(&r->status, EINVAL, "plugin", "%s defines no contend_plugin: add CONTEND_PLUGIN(mode, \"description\") (see contend port --header)", p->so);
	if (info->magic != CONTEND_PLUGIN_MAGIC)
		return ct_fail(&r->status, EINVAL, "plugin", "%s: contend_plugin is not a contend plugin description (bad magic)", p->so);
	if (info->abi != CONTEND_PLUGIN_ABI)
		return ct_fail(&r->status, EINVAL, "plugin", "%s was built for plugin ABI %u, this contend runs ABI %d: rebuild it with the header of contend port --header", p->so, info->abi, CONTEND_PLUGIN_ABI);
	if (info->mode != CONTEND_DURATION && info->mode != CONTEND_FIXED)
		return ct_fail(&r->status, EINVAL, "plugin", "%s: mode %u is neither CONTEND_DURATION nor CONTEND_FIXED", p->so, info->mode);
	*(void **)&ld->worker = dlsym(h, "contend_worker");
	if (!ld->worker)
		return ct_fail(&r->status, EINVAL, "plugin", "%s defines no contend_worker(void *state, unsigned id, struct contend_thread *t)", p->so);
	*(void **)&ld->setup = dlsym(h, "contend_setup");
	*(void **)&ld->teardown = dlsym(h, "contend_teardown");
	ld->info = info;
	r->mode = info->mode;
	memcpy(r->description, info->description, sizeof(r->description));
	r->description[sizeof(r->description) - 1] = 0;
	for (k = 0; k < CONTEND_MAX_COUNTERS && info->counters[k][0]; k++) {
		if (!valid_name(info->counters[k], CONTEND_NAME_MAX))
			return ct_fail(&r->status, EINVAL, "plugin", "%s: counter %d has an invalid name (use a-z, 0-9, _; at most %d bytes)", p->so, k, CONTEND_NAME_MAX - 1);
		memcpy(r->counter_names[k], info->counters[k], CONTEND_NAME_MAX);
	}
	r->ncounters = k;
	return 0;
}

/* A crashing plugin must kill the child with its signal, so that the
 * parent can name it: the Go runtime's handlers would turn it into a Go
 * crash report and exit status 2. */
static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP };
#define NCRASH (sizeof(crash_signals) / sizeof(crash_signals[0]))

int ct_plugin_run(const struct ct_plugin_params *p, struct ct_plugin_result *r)
{
	struct sigaction dfl, saved[NCRASH];
	struct run run;
	struct ct_slot total;
	int *cpus = NULL;
	unsigned i, n = (unsigned)p->threads;
	size_t shm_len = 0;
	char *shm = NULL;
	int err = 0, k;

	memset(r, 0, sizeof(*r));
	memset(&run, 0, sizeof(run));
	run.p = p;
	run.r = r;
	run.n = n;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (i = 0; i < NCRASH; i++)
		sigaction(crash_signals[i], &dfl, &saved[i]);

	if (n < 1) {
		err = ct_fail(&r->status, EINVAL, "plugin", "needs at least one worker");
		goto out_signals;
	}
	err = plugin_load(p, r, &run.ld);
	if (err)
		goto out_signals;
	if (p->processes) {
		if (p->pin && (run.ncpus = ct_allowed_cpus(&cpus, &r->status)) < 0) {
			err = -run.ncpus;
			goto out_signals;
		}
		run.cpus = cpus;
		/* The stop slot, the control slot, then the workers' slots. */
		shm_len = (size_t)(n + 2) * CT_SLOT;
		shm = mmap(NULL, shm_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (shm == MAP_FAILED) {
			shm = NULL;
			err = ct_fail(&r->status, errno, "mmap", "MAP_SHARED of %zu bytes for %u processes' counters", shm_len, n);
			goto out_signals;
		}
		run.slots = shm + 2 * CT_SLOT;
	}
	if (run.ld.setup) {
		err = run.ld.setup(n, &run.state);
		if (err) {
			err = ct_fail(&r->status, err > 0 ? err : EIO, "contend_setup", "of %s (%u %s)", p->so, n,
				      p->processes ? "processes" : "threads");
			goto out_free;
		}
	}
	if (p->processes) {
		err = run_processes(&run, (struct pctl *)(shm + CT_SLOT), (volatile int *)shm);
		ct_slots_sum(run.slots, n, err ? NULL : p->per_thread, &total);
	} else {
		err = run_threads(&run, &total);
	}
	if (run.ld.teardown)
		run.ld.teardown(run.state);
	if (!err) {
		r->iterations = total.count;
		for (k = 0; k < r->ncounters; k++)
			r->counters[k] = total.counters[k];
	}
out_free:
	if (shm)
		munmap(shm, shm_len);
out_signals:
	free(cpus);
	/* The plugin stays loaded: the child exits right after. */
	for (i = 0; i < NCRASH; i++)
		sigaction(crash_signals[i], &saved[i], NULL);
	return err;
}
