/*
 * faultme.c - Steven Rostedt's faultme (LKML, 2012-05-15, "Re: [RFC][PATCH
 * RT] rwsem_rt: Another (more sane) approach to mulit reader rt locks"),
 * reproduced for contend.
 *
 * Many threads take read page faults on one fresh anonymous mapping at
 * once, so that mmap_lock (taken for read in the fault path) and the page
 * table locks are hammered. Structure kept from the original:
 *
 *   - one mmap(PROT_READ, MAP_ANONYMOUS|MAP_PRIVATE), never written;
 *   - all threads created (default attributes) before timing, each given its
 *     index;
 *   - two pthread barriers (start, stop) of threads + 1 participants, the
 *     main thread taking part in both;
 *   - thread k reads one byte of pages k, k+threads, k+2*threads, ...
 *     (interleaved page by page, not chunks) and stores it into one static
 *     byte that all threads share;
 *   - main reads the clock just before it enters the start barrier and just
 *     after it leaves the stop barrier.
 *
 * Fixed: the original's shared static byte is written but never read, so
 * gcc -O1 and above drop the stores and then the loads: the program measures
 * nothing. Here the byte is volatile, which forces one real load per page
 * and keeps the shared store. The clock is CLOCK_MONOTONIC in ns instead of
 * gettimeofday in us; every pthread_barrier_wait result is checked (0 or
 * PTHREAD_BARRIER_SERIAL_THREAD, else the repetition fails naming the
 * error and the thread; the original's "< 0" test never fired); the stride is a parameter (4096 by default, whatever the
 * real page size, as in the original).
 *
 * Not timed, as in the original: mmap, thread creation, joins, munmap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "faultme.h"

struct faultme {
	const char *data;
	uint64_t mem, stride;
	unsigned threads;
	pthread_barrier_t start_barrier;
	pthread_barrier_t stop_barrier;
};

struct faultme_thread {
	struct faultme *fm;
	unsigned long id;
	uint64_t touched;
	int err; /* of a pthread_barrier_wait */
};

/* faultme_wait waits in b and returns 0 or the error (the one thread that
 * gets PTHREAD_BARRIER_SERIAL_THREAD has no error). */
static int faultme_wait(pthread_barrier_t *b)
{
	int err = pthread_barrier_wait(b);

	return err == PTHREAD_BARRIER_SERIAL_THREAD ? 0 : err;
}

/* The original's "static char x", made volatile so the loads survive -O2. */
static volatile char faultme_x;

static void *faultme_func(void *arg)
{
	struct faultme_thread *t = arg;
	struct faultme *fm = t->fm;
	uint64_t i, n = 0;
	int err;

	err = faultme_wait(&fm->start_barrier);
	for (i = t->id * fm->stride; i < fm->mem; i += fm->stride * fm->threads) {
		faultme_x = fm->data[i];
		n++;
	}
	if (!err)
		err = faultme_wait(&fm->stop_barrier);
	else
		faultme_wait(&fm->stop_barrier);
	t->touched = n;
	t->err = err;
	return NULL;
}

int ct_faultme_run(const struct ct_faultme_params *p, struct ct_faultme_result *r)
{
	struct faultme *fm;
	struct faultme_thread *t;
	pthread_t *tid;
	struct rusage ru0, ru1;
	uint64_t start, end;
	void *data;
	int i, err, werr;

	memset(r, 0, sizeof(*r));
	if (p->threads < 1 || p->stride < 1 || p->mem < 1)
		return ct_fail(&r->status, EINVAL, "faultme", "threads, mem and stride must be positive");

	/* On the heap: threads that wait in the barriers may outlive a failed
	 * call (see pthread_create below). */
	fm = calloc(1, sizeof(*fm));
	t = calloc(p->threads, sizeof(*t));
	tid = calloc(p->threads, sizeof(*tid));
	if (!fm || !t || !tid) {
		free(fm);
		free(t);
		free(tid);
		return ct_fail(&r->status, ENOMEM, "calloc", "for %d thread records", p->threads);
	}
	fm->mem = p->mem;
	fm->stride = p->stride;
	fm->threads = p->threads;
	if ((err = pthread_barrier_init(&fm->start_barrier, NULL, p->threads + 1)) ||
	    (err = pthread_barrier_init(&fm->stop_barrier, NULL, p->threads + 1))) {
		free(fm);
		free(t);
		free(tid);
		return ct_fail(&r->status, err, "pthread_barrier_init", "for %d threads", p->threads + 1);
	}

	data = mmap(NULL, p->mem, PROT_READ, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
	if (data == MAP_FAILED) {
		err = ct_fail(&r->status, errno, "mmap", "of %llu bytes, PROT_READ, MAP_ANONYMOUS|MAP_PRIVATE",
			      (unsigned long long)p->mem);
		goto out_barriers;
	}
	fm->data = data;
	if (p->thp != CT_THP_LEAVE) {
		int rc;

		if (p->inject & CT_INJECT_MADVISE_EINVAL) {
			errno = EINVAL;
			rc = -1;
		} else {
			rc = madvise(data, p->mem, p->thp == CT_THP_HUGE ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
		}
		if (rc && p->thp == CT_THP_NEVER && errno == EINVAL) {
			/*
			 * A kernel built without THP (Debian's -rt) knows no
			 * MADV_NOHUGEPAGE: it has no huge pages to refuse, so
			 * "never" holds. The caller tells this from a real
			 * failure (is THP in sysfs?) and records it.
			 */
			r->thp_einval = 1;
		} else if (rc) {
			err = ct_fail(&r->status, errno, "madvise",
				      p->thp == CT_THP_HUGE ? "MADV_HUGEPAGE" : "MADV_NOHUGEPAGE");
			goto out_unmap;
		}
	}

	for (i = 0; i < p->threads; i++) {
		t[i].fm = fm;
		t[i].id = i;
		err = pthread_create(&tid[i], NULL, faultme_func, &t[i]);
		if (err) {
			/*
			 * The i threads already created wait in a barrier of
			 * threads + 1 that can no longer fill up, and a POSIX
			 * barrier can neither be cancelled nor destroyed with
			 * waiters. So the state they use is left allocated and
			 * mapped, and they end with this process: every
			 * repetition is a child process of its own, which
			 * reports the failure and exits right after this
			 * returns.
			 */
			r->threads_created = i;
			return ct_fail(&r->status, err, "pthread_create",
				       "of thread %d of %d (%d created, left blocked until the child exits; see ulimit -u, kernel.threads-max, ulimit -v)",
				       i + 1, p->threads, i);
		}
	}
	r->threads_created = p->threads;

	r->rss_anon_before_kb = ct_rss_anon_kb();
	getrusage(RUSAGE_SELF, &ru0);
	start = ct_now_ns();
	err = faultme_wait(&fm->start_barrier);
	werr = faultme_wait(&fm->stop_barrier);
	end = ct_now_ns();
	getrusage(RUSAGE_SELF, &ru1);
	if (err || werr)
		err = ct_fail(&r->status, err ? err : werr, "pthread_barrier_wait", "in the main thread");

	r->elapsed_ns = end - start;
	r->minflt = ru1.ru_minflt - ru0.ru_minflt;
	r->majflt = ru1.ru_majflt - ru0.ru_majflt;
	r->rss_anon_kb = ct_rss_anon_kb();

	for (i = 0; i < p->threads; i++) {
		pthread_join(tid[i], NULL);
		r->pages_touched += t[i].touched;
		if (t[i].err && !err)
			err = ct_fail(&r->status, t[i].err, "pthread_barrier_wait", "in thread %d of %d", i + 1, p->threads);
	}
out_unmap:
	munmap(data, p->mem);
out_barriers:
	pthread_barrier_destroy(&fm->start_barrier);
	pthread_barrier_destroy(&fm->stop_barrier);
	free(fm);
	free(t);
	free(tid);
	return err;
}
