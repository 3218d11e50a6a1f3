/*
 * wis.c - contend's runner of will-it-scale tests: a test file (testcase,
 * optionally testcase_prepare, testcase_cleanup, testcase_description,
 * new_task) compiled with native/wis_shim.c and native/wis_proc.c into the
 * tasks' leader, an executable this thread of the repetition's child
 * starts with fork and exec (and, in thread mode, into a shared object
 * loaded here only for its testcase_description). Written from the API's
 * description, not from will-it-scale's main.c; what it keeps of that
 * runner's behaviour:
 *
 *   - the tasks run in a small C process (the leader), never in contend's
 *     Go child: as threads of the leader or as processes it forks, as
 *     will-it-scale's _threads and _processes runners start them;
 *   - testcase_prepare(tasks) runs once in the leader before the tasks
 *     start (so process tasks inherit what it made), testcase_cleanup()
 *     once after every task ended;
 *   - task i runs testcase(&count_i, i) forever, its count alone in a
 *     CT_SLOT (256-byte) slot of a memfd both map, pinned (p->pin) to the
 *     i-th allowed CPU modulo their number; threads are cancelled
 *     asynchronously at the end, as the tests expect, processes killed;
 *   - all tasks wait at one start gate (a pipe whose write end is closed
 *     here once every task exists); this thread samples the counts after a
 *     warmup and again after the measured interval.
 *
 * Timed: the interval between the two samples, read with CLOCK_MONOTONIC.
 * A task thread that does not end within join_s of its cancellation
 * is a warning, not a failure: the counts were taken before the stop.
 * A task process that dies before the end (an assert, a signal) fails the
 * repetition, naming it; in thread mode a crash kills the leader, named by
 * its signal.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
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

#define WIS_TICK_NS 100000000ULL /* look for a dead leader or task this often */

struct wis {
	const struct ct_wis_params *p;
	struct ct_wis_result *r;
	char *shm;    /* slot 0: the leader's control slot, then one slot per task */
	int gate[2];  /* read end: tasks wait; write end closed: go */
	pid_t leader; /* the tasks' leader (wis_proc.c) */
	int stop;     /* the stop pipe's write end */
};

static struct ct_slot *wis_slot(struct wis *w, unsigned i)
{
	return ct_slot_at(w->shm, i + 1);
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
		if (WIFSIGNALED(st) && !w->p->mode)
			return ct_fail(&w->r->status, EIO, "task", "the tasks' process was killed by %s (a task thread or testcase_prepare)",
				       ct_signame(WTERMSIG(st), sig, sizeof(sig)));
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

		if (step > WIS_TICK_NS)
			step = WIS_TICK_NS;
		ts.tv_sec = (time_t)(step / 1000000000ULL);
		ts.tv_nsec = (long)(step % 1000000000ULL);
		nanosleep(&ts, NULL);
		if ((err = wis_dead(w)) != 0)
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

/* wis_stop tells the leader to end the tasks (threads cancelled and
 * joined, processes killed and reaped), run testcase_cleanup and exit, and
 * reaps it. A task thread that outlives its cancellation (malloc1 on some
 * glibc versions: will-it-scale's own runner hangs there after printing its
 * figure) does not fail the run: the interval was measured before the stop,
 * so its counts stand and r->late_teardown says what happened. */
static int wis_stop(struct wis *w)
{
	char sig[32];
	int st;

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
	if (WEXITSTATUS(st) == CT_WIS_EXIT_LATE) {
		w->r->late_teardown = ((struct ct_wis_control *)w->shm)->join_s;
		return 0;
	}
	if (WEXITSTATUS(st) != 0)
		return ct_fail(&w->r->status, EIO, "task", "the tasks' leader process exited with status %d", WEXITSTATUS(st));
	return 0;
}

/* wis_leader starts the tasks' leader: fork, then in the child fd 3 the
 * counters' memfd, 4 the gate, 5 the stop pipe, and exec. It waits until
 * the leader has started the tasks. */
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
		char tasks[16], pin[4], mode[4];
		char *argv[] = { "contend-wis-run", tasks, pin, mode, NULL };
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
		snprintf(mode, sizeof(mode), "%d", p->mode ? 1 : 0);
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
	if (ctl->fork_err && p->mode)
		return ct_fail(&w->r->status, ctl->fork_err, "fork", "of a task process by the leader");
	if (ctl->fork_err)
		return ct_fail(&w->r->status, ctl->fork_err, "pthread_create", "of a task thread by the leader");
	return 0;
}

/* wis_load loads the thread-mode build of the test (nothing of it runs
 * here) for its testcase_description, and checks what it defines. */
static int wis_load(struct wis *w)
{
	const struct ct_wis_params *p = w->p;
	struct ct_wis_shim *shim;
	char **desc;
	void *h;

	h = dlopen(p->so, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return ct_fail(&w->r->status, ENOEXEC, "dlopen", "%s", dlerror());
	desc = (char **)dlsym(h, "testcase_description");
	shim = (struct ct_wis_shim *)dlsym(h, "ct_wis_shim");
	if (!shim || shim->magic != CT_WIS_MAGIC)
		return ct_fail(&w->r->status, EINVAL, "wis", "%s was not built with contend's wis_shim.c", p->so);
	if (!dlsym(h, "testcase"))
		return ct_fail(&w->r->status, EINVAL, "wis", "the test defines no testcase(unsigned long long *, unsigned long)");
	if (desc && *desc)
		snprintf(w->r->description, sizeof(w->r->description), "%s", *desc);
	return 0;
}

int ct_wis_run(const struct ct_wis_params *p, struct ct_wis_result *r)
{
	struct wis w;
	struct ct_wis_control *ctl;
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

	if (n < 1) {
		err = ct_fail(&r->status, EINVAL, "wis", "needs at least one task");
		goto out;
	}
	if (!p->mode && (err = wis_load(&w)) != 0)
		goto out;
	memfd = memfd_create("contend-wis", MFD_CLOEXEC);
	if (memfd < 0 || ftruncate(memfd, (off_t)shm_len) != 0) {
		err = ct_fail(&r->status, errno, "memfd_create", "of %zu bytes for %u tasks' counters", shm_len, n);
		goto out;
	}
	w.shm = mmap(NULL, shm_len, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (w.shm == MAP_FAILED) {
		w.shm = NULL;
		err = ct_fail(&r->status, errno, "mmap", "MAP_SHARED of %zu bytes for %u tasks' counters", shm_len, n);
		goto out;
	}
	ctl = (struct ct_wis_control *)w.shm;
	ctl->join_s = p->join_s > 0 ? p->join_s : CT_WIS_JOIN_S;
	s0 = calloc(n, sizeof(*s0));
	if (!s0) {
		err = ct_fail(&r->status, ENOMEM, "calloc", "for %u tasks", n);
		goto out;
	}
	if (pipe2(w.gate, O_CLOEXEC) != 0 || pipe2(stop, O_CLOEXEC) != 0) {
		err = ct_fail(&r->status, errno, "pipe", "for the start gate");
		goto out;
	}
	w.stop = stop[1];
	err = wis_leader(&w, memfd, w.gate[0], stop[0]);
	close(stop[0]);
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
	if (!err)
		err = wis_dead(&w);
	stoperr = wis_stop(&w);
	if (!err)
		err = stoperr;
	if (!err && ctl->pin_task)
		err = ct_fail(&r->status, EINVAL, "sched_setaffinity", ctl->pin_got == -2 ? "task %d of %u was pinned to CPU %d but its mask holds other CPUs (--pin; a cpuset changed?)"
			      : ctl->pin_got == -1 ? "task %d of %u could not read its CPU mask (pinned to CPU %d, --pin)" : "task %d of %u was pinned to CPU %d but runs on CPU %d (--pin)",
			      ctl->pin_task - 1, (unsigned)p->tasks, ctl->pin_want, ctl->pin_got);
	if (!err && ctl->extra_err)
		err = ct_fail(&r->status, ctl->extra_err, "new_task", p->mode ? "could not fork an extra task process" : "could not start an extra task thread");
	if (!err) {
		for (i = 0; i < n; i++) {
			p->per_task[i] -= s0[i];
			r->iterations += p->per_task[i];
		}
		r->extra_tasks = ctl->extra;
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
	/* The test's shared object stays loaded: the child exits right after. */
	return err;
}
