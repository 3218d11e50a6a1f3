/*
 * plugin.c - contend's runner of plugins (native/contend_plugin.h), in the
 * shape of will-it-scale's runner with its defects fixed:
 *
 *   - the runner owns the threads, the start gate, the clock, the
 *     counters (one 256-byte slot per thread, no false sharing) and
 *     optional pinning; the plugin owns one function;
 *   - workers return when asked (a stop flag) instead of being cancelled
 *     asynchronously, so no lock is left held and teardown is safe;
 *   - one shared header declares the contract (will-it-scale's main.c and
 *     tests disagreed on testcase's type), errors are returned, not exit()ed,
 *     and pinning needs no hwloc.
 *
 * Timed: from opening the start gate (all threads created and waiting) to
 * the last worker's return. Not timed: dlopen, setup, thread creation,
 * joins, teardown.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin.h"

#define CT_SLOT 256 /* bytes per thread's counters */

struct slot {
	uint64_t iterations;
	uint64_t counters[CONTEND_MAX_COUNTERS];
};

struct runner {
	void (*worker)(void *, unsigned, struct contend_thread *);
	void *state;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned ready, finished, nthreads;
	int go, abort;
	volatile int stop;
};

struct worker_arg {
	struct runner *run;
	struct contend_thread t;
};

static void *plugin_thread(void *p)
{
	struct worker_arg *a = p;
	struct runner *run = a->run;
	int abort_;

	pthread_mutex_lock(&run->lock);
	run->ready++;
	pthread_cond_broadcast(&run->cond);
	while (!run->go)
		pthread_cond_wait(&run->cond, &run->lock);
	abort_ = run->abort;
	pthread_mutex_unlock(&run->lock);
	if (abort_)
		return NULL;

	run->worker(run->state, a->t.id, &a->t);

	pthread_mutex_lock(&run->lock);
	if (++run->finished == run->nthreads)
		pthread_cond_broadcast(&run->cond);
	pthread_mutex_unlock(&run->lock);
	return NULL;
}

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

/* A crashing plugin must kill the child with its signal, so that the
 * parent can name it: the Go runtime's handlers would turn it into a Go
 * crash report and exit status 2. */
static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP };
#define NCRASH (sizeof(crash_signals) / sizeof(crash_signals[0]))

int ct_plugin_run(const struct ct_plugin_params *p, struct ct_plugin_result *r)
{
	struct sigaction dfl, saved[NCRASH];
	const struct contend_plugin *info;
	int (*setup)(unsigned, void **);
	void (*teardown)(void *);
	struct runner run;
	struct worker_arg *args = NULL;
	pthread_t *tids = NULL;
	struct slot *slots = NULL;
	cpu_set_t allowed;
	int cpus[CPU_SETSIZE], ncpus = 0;
	unsigned i, n = (unsigned)p->threads;
	void *h;
	int err = 0, k;
	uint64_t t0, t1;

	memset(r, 0, sizeof(*r));
	memset(&run, 0, sizeof(run));
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (i = 0; i < NCRASH; i++)
		sigaction(crash_signals[i], &dfl, &saved[i]);

	h = dlopen(p->so, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		err = ct_fail(&r->status, ENOENT, "dlopen", "%s", dlerror());
		goto out_signals;
	}
	info = dlsym(h, "contend_plugin");
	if (!info) {
		err = ct_fail(&r->status, EINVAL, "plugin", "%s defines no contend_plugin: add CONTEND_PLUGIN(mode, \"description\") (see contend port --header)", p->so);
		goto out_signals;
	}
	if (info->magic != CONTEND_PLUGIN_MAGIC) {
		err = ct_fail(&r->status, EINVAL, "plugin", "%s: contend_plugin is not a contend plugin description (bad magic)", p->so);
		goto out_signals;
	}
	if (info->abi != CONTEND_PLUGIN_ABI) {
		err = ct_fail(&r->status, EINVAL, "plugin", "%s was built for plugin ABI %u, this contend runs ABI %d: rebuild it with the header of contend port --header", p->so, info->abi, CONTEND_PLUGIN_ABI);
		goto out_signals;
	}
	if (info->mode != CONTEND_DURATION && info->mode != CONTEND_FIXED) {
		err = ct_fail(&r->status, EINVAL, "plugin", "%s: mode %u is neither CONTEND_DURATION nor CONTEND_FIXED", p->so, info->mode);
		goto out_signals;
	}
	*(void **)&run.worker = dlsym(h, "contend_worker");
	if (!run.worker) {
		err = ct_fail(&r->status, EINVAL, "plugin", "%s defines no contend_worker(void *state, unsigned id, struct contend_thread *t)", p->so);
		goto out_signals;
	}
	*(void **)&setup = dlsym(h, "contend_setup");
	*(void **)&teardown = dlsym(h, "contend_teardown");
	r->mode = info->mode;
	memcpy(r->description, info->description, sizeof(r->description));
	r->description[sizeof(r->description) - 1] = 0;
	for (k = 0; k < CONTEND_MAX_COUNTERS && info->counters[k][0]; k++) {
		if (!valid_name(info->counters[k], CONTEND_NAME_MAX)) {
			err = ct_fail(&r->status, EINVAL, "plugin", "%s: counter %d has an invalid name (use a-z, 0-9, _; at most %d bytes)", p->so, k, CONTEND_NAME_MAX - 1);
			goto out_signals;
		}
		memcpy(r->counter_names[k], info->counters[k], CONTEND_NAME_MAX);
	}
	r->ncounters = k;

	if (p->pin) {
		if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
			err = ct_fail(&r->status, errno, "sched_getaffinity", "for --pin");
			goto out_signals;
		}
		for (k = 0; k < CPU_SETSIZE; k++)
			if (CPU_ISSET(k, &allowed))
				cpus[ncpus++] = k;
	}
	tids = calloc(n, sizeof(*tids));
	args = calloc(n, sizeof(*args));
	if (!tids || !args || posix_memalign((void **)&slots, CT_SLOT, (size_t)n * CT_SLOT) != 0) {
		err = ct_fail(&r->status, ENOMEM, "malloc", "for %u threads", n);
		goto out_free;
	}
	memset(slots, 0, (size_t)n * CT_SLOT);
	if (setup) {
		err = setup(n, &run.state);
		if (err) {
			err = ct_fail(&r->status, err > 0 ? err : EIO, "contend_setup", "of %s (%u threads)", p->so, n);
			goto out_free;
		}
	}
	pthread_mutex_init(&run.lock, NULL);
	pthread_cond_init(&run.cond, NULL);
	run.nthreads = n;
	/* A fixed-mode worker that loops until stopped returns at once
	 * instead of running forever. */
	run.stop = info->mode == CONTEND_FIXED;
	for (i = 0; i < n; i++) {
		pthread_attr_t attr;
		struct slot *s = (struct slot *)((char *)slots + (size_t)i * CT_SLOT);

		args[i].run = &run;
		args[i].t.id = i;
		args[i].t.nthreads = n;
		args[i].t.cpu = -1;
		args[i].t.stop = &run.stop;
		args[i].t.iterations = &s->iterations;
		args[i].t.counters = s->counters;
		pthread_attr_init(&attr);
		if (p->pin && ncpus > 0) {
			cpu_set_t one;

			CPU_ZERO(&one);
			CPU_SET(cpus[i % ncpus], &one);
			pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
			args[i].t.cpu = cpus[i % ncpus];
		}
		err = pthread_create(&tids[i], &attr, plugin_thread, &args[i]);
		pthread_attr_destroy(&attr);
		if (err) {
			ct_fail(&r->status, err, "pthread_create", "thread %u of %u", i + 1, n);
			break;
		}
		r->threads_created++;
	}

	/* The start gate: every created thread is waiting. */
	pthread_mutex_lock(&run.lock);
	while (run.ready < (unsigned)r->threads_created)
		pthread_cond_wait(&run.cond, &run.lock);
	run.abort = err != 0;
	run.go = 1;
	t0 = ct_now_ns();
	pthread_cond_broadcast(&run.cond);
	pthread_mutex_unlock(&run.lock);

	if (!err) {
		if (info->mode == CONTEND_DURATION) {
			struct timespec until;

			clock_gettime(CLOCK_MONOTONIC, &until);
			until.tv_sec += p->duration_ns / 1000000000ULL;
			until.tv_nsec += p->duration_ns % 1000000000ULL;
			if (until.tv_nsec >= 1000000000L) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000L;
			}
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
				;
			__atomic_store_n(&run.stop, 1, __ATOMIC_RELAXED);
		}
		pthread_mutex_lock(&run.lock);
		while (run.finished < n)
			pthread_cond_wait(&run.cond, &run.lock);
		pthread_mutex_unlock(&run.lock);
		t1 = ct_now_ns();
		r->elapsed_ns = t1 - t0;
	}
	for (k = 0; k < r->threads_created; k++)
		pthread_join(tids[k], NULL);
	if (teardown)
		teardown(run.state);
	if (!err) {
		for (i = 0; i < n; i++) {
			struct slot *s = (struct slot *)((char *)slots + (size_t)i * CT_SLOT);

			r->iterations += s->iterations;
			if (p->per_thread)
				p->per_thread[i] = s->iterations;
			for (k = 0; k < r->ncounters; k++)
				r->counters[k] += s->counters[k];
		}
	}
	pthread_cond_destroy(&run.cond);
	pthread_mutex_destroy(&run.lock);
out_free:
	free(slots);
	free(args);
	free(tids);
out_signals:
	/* The plugin stays loaded: the child exits right after. */
	for (i = 0; i < NCRASH; i++)
		sigaction(crash_signals[i], &saved[i], NULL);
	return err;
}
