/*
 * duration.c - contend's duration runner, the part of will-it-scale's
 * main.c that semop_multi.c and plugin.c share: it owns the worker
 * threads, their pinning, the start gate, the clock, the stop flag and the
 * counters (one CT_SLOT slot per worker, see duration.h); the caller owns
 * one function, the worker's loop.
 *
 *   - all threads are created first, each does its own setup (prepare),
 *     then they are released together: a mutex and condition variable
 *     countdown, one broadcast (semop-multi's gate as ORIGINALS.md
 *     reconstructs it);
 *   - main sleeps until the gate's opening plus the duration, sets the stop
 *     flag (in a slot of its own: read in every worker's loop, written
 *     once) and joins; with no duration the flag is set from the start and
 *     main waits for the workers to return (a plugin's fixed mode);
 *   - workers return when asked, never cancelled; a worker's error is
 *     returned, not exit()ed;
 *   - --pin reads the allowed CPUs with a mask as large as the kernel's
 *     and pins with sets as large as the CPU's number (CPU_ALLOC), not
 *     cpu_set_t's fixed 1024 CPUs; each pinned worker reads its own mask
 *     back (ct_pinned_cpu) and the run fails when it is not the CPU asked.
 *
 * Timed: from opening the gate to the last worker's return (elapsed_ns)
 * and to the last join (joined_ns). Not timed: allocation, thread
 * creation, the workers' setup, summing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "duration.h"

_Static_assert(sizeof(struct ct_slot) <= CT_SLOT, "a worker's counters must fit in its slot");

struct ct_slot *ct_slot_at(void *slots, unsigned i)
{
	return (struct ct_slot *)((char *)slots + (size_t)i * CT_SLOT);
}

void ct_slots_sum(void *slots, unsigned n, uint64_t *per_thread, struct ct_slot *total)
{
	unsigned i, k;

	memset(total, 0, sizeof(*total));
	for (i = 0; i < n; i++) {
		const struct ct_slot *s = ct_slot_at(slots, i);

		total->count += s->count;
		if (per_thread)
			per_thread[i] = s->count;
		for (k = 0; k < CT_COUNTERS; k++)
			total->counters[k] += s->counters[k];
	}
}

int ct_allowed_cpus(int **cpus, struct ct_status *st)
{
	cpu_set_t *set = NULL;
	size_t size = 0;
	int c, n = 0, ncpu;

	/* Sized as the kernel's mask, whatever CPU_SETSIZE says: grown until
	 * sched_getaffinity stops refusing a mask shorter than nr_cpu_ids. */
	for (ncpu = CPU_SETSIZE; ncpu <= CT_MAX_CPUS; ncpu *= 2) {
		if (!(set = CPU_ALLOC(ncpu)))
			return -ct_fail(st, ENOMEM, "CPU_ALLOC", "of %d CPUs for --pin", ncpu);
		size = CPU_ALLOC_SIZE(ncpu);
		if (sched_getaffinity(0, size, set) == 0)
			break;
		CPU_FREE(set);
		set = NULL;
		if (errno != EINVAL)
			break;
	}
	if (!set)
		return -ct_fail(st, errno, "sched_getaffinity", "for --pin");
	*cpus = calloc((size_t)CPU_COUNT_S(size, set) + 1, sizeof(**cpus));
	if (!*cpus) {
		CPU_FREE(set);
		return -ct_fail(st, ENOMEM, "malloc", "for the allowed CPUs (--pin)");
	}
	for (c = 0; c < (int)(size * 8); c++)
		if (CPU_ISSET_S(c, size, set))
			(*cpus)[n++] = c;
	CPU_FREE(set);
	return n;
}

cpu_set_t *ct_cpu_one(int cpu, size_t *size)
{
	cpu_set_t *set = CPU_ALLOC(cpu + 1);

	*size = CPU_ALLOC_SIZE(cpu + 1);
	if (set) {
		CPU_ZERO_S(*size, set);
		CPU_SET_S(cpu, *size, set);
	}
	return set;
}

int ct_pinned_cpu(void)
{
	struct ct_status st;
	int *cpus = NULL, n, got;

	if ((n = ct_allowed_cpus(&cpus, &st)) < 0)
		return -1;
	got = n == 1 ? cpus[0] : -2;
	free(cpus);
	return got;
}

int ct_check_pinned(struct ct_status *st, unsigned i, unsigned n, int want, int got)
{
	if (want < 0 || got == want)
		return 0;
	if (got == -1)
		return ct_fail(st, EINVAL, "sched_getaffinity", "worker %u of %u could not read its CPU mask (pinned to CPU %d, --pin)",
			       i + 1, n, want);
	if (got == -2)
		return ct_fail(st, EINVAL, "sched_setaffinity", "worker %u of %u was pinned to CPU %d but its mask holds other CPUs (--pin; a cpuset changed?)",
			       i + 1, n, want);
	return ct_fail(st, EINVAL, "sched_setaffinity", "worker %u of %u was pinned to CPU %d but runs on CPU %d (--pin)",
		       i + 1, n, want, got);
}

/* The gate and the finish line, shared by main and the workers. */
struct gate {
	const struct ct_duration *d;
	pthread_mutex_t lock;
	pthread_cond_t all_ready, go;
	unsigned ready, finished;
	int started, abort;
	uint64_t end_ns; /* written by the last worker to return */
};

struct thread {
	struct gate *g;
	struct ct_worker w;
};

static void *duration_thread(void *arg)
{
	struct thread *t = arg;
	struct gate *g = t->g;
	int abort_;

	if (t->w.cpu >= 0 && (g->d->inject & CT_INJECT_PIN_MOVED) && t->w.id == t->w.n / 2) {
		size_t size = CPU_ALLOC_SIZE(CPU_SETSIZE);
		cpu_set_t *all = CPU_ALLOC(CPU_SETSIZE);

		if (all) {
			memset(all, 0xff, size);
			sched_setaffinity(0, size, all);
			CPU_FREE(all);
		}
	}
	if (t->w.cpu >= 0)
		t->w.slot->got_cpu = ct_pinned_cpu();
	if (g->d->prepare)
		g->d->prepare(g->d->arg, &t->w);
	pthread_mutex_lock(&g->lock);
	g->ready++;
	pthread_cond_signal(&g->all_ready);
	while (!g->started)
		pthread_cond_wait(&g->go, &g->lock);
	abort_ = g->abort;
	pthread_mutex_unlock(&g->lock);
	if (abort_)
		return NULL;

	t->w.slot->err = g->d->work(g->d->arg, &t->w);

	if (__atomic_add_fetch(&g->finished, 1, __ATOMIC_ACQ_REL) == g->d->n)
		g->end_ns = ct_now_ns();
	return NULL;
}

/* sleep_until sleeps until CLOCK_MONOTONIC reaches t ns, whatever signals come. */
static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = t / 1000000000ULL, .tv_nsec = t % 1000000000ULL };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

int ct_duration_run(struct ct_duration *d, struct ct_status *st)
{
	struct gate g;
	struct thread *t;
	pthread_t *tid;
	void *block = NULL, *slots;
	volatile int *stop;
	int *cpus = NULL;
	unsigned i, n = d->n;
	int ncpus = 0, err = 0;
	uint64_t start;

	d->started = 0;
	d->elapsed_ns = d->joined_ns = 0;
	memset(&d->total, 0, sizeof(d->total));
	if (n < 1)
		return ct_fail(st, EINVAL, "runner", "needs at least one worker");
	if (d->pin && (ncpus = ct_allowed_cpus(&cpus, st)) < 0)
		return -ncpus;
	t = calloc(n, sizeof(*t));
	tid = calloc(n, sizeof(*tid));
	if (posix_memalign(&block, CT_SLOT, (size_t)(n + 1) * CT_SLOT) != 0)
		block = NULL;
	if (!t || !tid || !block) {
		err = ct_fail(st, ENOMEM, "malloc", "for %u threads' counters (%d bytes each)", n, CT_SLOT);
		goto out_free;
	}
	/* The stop flag's slot, then the workers' slots. */
	memset(block, 0, (size_t)(n + 1) * CT_SLOT);
	stop = block;
	slots = (char *)block + CT_SLOT;
	/* No duration: a worker that loops until stopped returns at once. */
	*stop = d->duration_ns == 0;

	memset(&g, 0, sizeof(g));
	g.d = d;
	pthread_mutex_init(&g.lock, NULL);
	pthread_cond_init(&g.all_ready, NULL);
	pthread_cond_init(&g.go, NULL);
	for (i = 0; i < n; i++) {
		pthread_attr_t attr;

		t[i].g = &g;
		t[i].w.id = i;
		t[i].w.n = n;
		t[i].w.cpu = ncpus > 0 ? cpus[i % ncpus] : -1;
		t[i].w.slot = ct_slot_at(slots, i);
		t[i].w.stop = stop;
		pthread_attr_init(&attr);
		if (t[i].w.cpu >= 0) {
			size_t size;
			cpu_set_t *one = ct_cpu_one(t[i].w.cpu, &size);

			if (one)
				pthread_attr_setaffinity_np(&attr, size, one);
			CPU_FREE(one);
		}
		if ((d->inject & CT_INJECT_FORK_EAGAIN) && i == n / 2)
			err = EAGAIN;
		else
			err = pthread_create(&tid[i], &attr, duration_thread, &t[i]);
		pthread_attr_destroy(&attr);
		if (err) {
			ct_fail(st, err, "pthread_create",
				"of thread %u of %u (%u created; raise ulimit -u, kernel.threads-max or the pids cgroup limit)",
				i + 1, n, i);
			break;
		}
	}
	d->started = i;

	/* The start gate: every created thread is waiting. */
	pthread_mutex_lock(&g.lock);
	while (g.ready < d->started)
		pthread_cond_wait(&g.all_ready, &g.lock);
	g.abort = err != 0; /* released straight into a return */
	start = ct_now_ns();
	g.started = 1;
	pthread_cond_broadcast(&g.go);
	pthread_mutex_unlock(&g.lock);

	if (!err && d->duration_ns) {
		sleep_until(start + d->duration_ns);
		__atomic_store_n(stop, 1, __ATOMIC_RELAXED);
	}
	for (i = 0; i < d->started; i++)
		pthread_join(tid[i], NULL);
	if (!err) {
		d->joined_ns = ct_now_ns() - start;
		d->elapsed_ns = g.end_ns - start;
		ct_slots_sum(slots, n, d->per_thread, &d->total);
		/* Each pinned worker got the CPU it was asked to run on. */
		for (i = 0; i < n && !err; i++)
			err = ct_check_pinned(st, i, n, t[i].w.cpu, ct_slot_at(slots, i)->got_cpu);
		for (i = 0; i < n && !err; i++) {
			if (!(err = ct_slot_at(slots, i)->err))
				continue;
			ct_fail(st, err, d->call ? d->call : "work", "by worker %u of %u", i + 1, n);
			if (d->where)
				d->where(d->arg, i, st->detail, sizeof(st->detail));
		}
	}
	pthread_cond_destroy(&g.go);
	pthread_cond_destroy(&g.all_ready);
	pthread_mutex_destroy(&g.lock);
out_free:
	free(block);
	free(tid);
	free(t);
	free(cpus);
	return err;
}

/* ---- the probe (duration.h) ---- */

/* The probe's workers count themselves prepared before the gate. */
struct probe {
	const struct ct_duration_probe_params *p;
	int prepared;
};

static void probe_prepare(void *arg, const struct ct_worker *w)
{
	struct probe *pb = arg;

	(void)w;
	__atomic_add_fetch(&pb->prepared, 1, __ATOMIC_RELAXED);
}

static int probe_work(void *arg, const struct ct_worker *w)
{
	struct probe *pb = arg;
	const struct ct_duration_probe_params *p = pb->p;
	int k;

	p->prepared[w->id] = __atomic_load_n(&pb->prepared, __ATOMIC_RELAXED);
	p->slot_addr[w->id] = (uint64_t)(uintptr_t)w->slot;
	p->cpu[w->id] = w->cpu;
	p->ran_on[w->id] = sched_getcpu();
	if ((int)w->id == p->fail_worker)
		return p->fail_errno;
	if (p->duration_ns)
		/* One before the first look at the flag: a worker scheduled
		 * only after the duration (a loaded machine) still counts. */
		do
			w->slot->count++;
		while (!__atomic_load_n(w->stop, __ATOMIC_RELAXED));
	else
		for (k = 0; k < 1000; k++)
			w->slot->count++;
	w->slot->counters[0] = __atomic_load_n(w->stop, __ATOMIC_RELAXED) != 0;
	__atomic_store_n(p->stop_addr, (uint64_t)(uintptr_t)w->stop, __ATOMIC_RELAXED);
	return 0;
}

int ct_duration_probe(const struct ct_duration_probe_params *p, struct ct_duration_probe_result *r)
{
	struct ct_duration d;
	struct probe pb = { .p = p };
	int err;

	memset(r, 0, sizeof(*r));
	memset(&d, 0, sizeof(d));
	r->slot_bytes = CT_SLOT;
	if (p->threads < 1)
		return ct_fail(&r->status, EINVAL, "probe", "needs at least one thread");
	d.n = (unsigned)p->threads;
	d.duration_ns = p->duration_ns;
	d.pin = p->pin;
	d.inject = p->inject;
	d.prepare = probe_prepare;
	d.work = probe_work;
	d.arg = &pb;
	d.call = "probe";
	d.per_thread = p->per_thread;
	err = ct_duration_run(&d, &r->status);
	r->started = (int)d.started;
	r->elapsed_ns = d.elapsed_ns;
	r->joined_ns = d.joined_ns;
	r->total = d.total.count;
	r->stopped = d.total.counters[0];
	return err;
}
