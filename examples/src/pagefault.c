/*
 * pagefault.c - contend's example of a page-fault scalability program.
 *
 * Written for contend's examples, contend's own code; not derived from
 * any other program. It measures what Rostedt's faultme measured in 2012:
 * THREADS threads read one byte of every page of a private, read-only
 * anonymous mapping of MiB mebibytes (thread k reads pages k, k+THREADS,
 * ...), all started by one barrier; every read takes a page fault with
 * mmap_lock held for read. It prints the mapping's size and the time from
 * the start barrier to the stop barrier, in faultme's two-line format, so
 * that contend's preset faultme reads it:
 *
 *     map=BYTES
 *     time = N usecs
 *
 * usage: pagefault [THREADS [MiB]]   (default 4 threads, 64 MiB)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "number.h"

static pthread_barrier_t start, stop;
static char *map;
static size_t pages, pagesize;
static long threads;

static void *reader(void *arg)
{
	long k = (long)arg;
	volatile char sink;

	pthread_barrier_wait(&start);
	for (size_t p = (size_t)k; p < pages; p += (size_t)threads)
		sink = map[p * pagesize];
	(void)sink;
	pthread_barrier_wait(&stop);
	return NULL;
}


int main(int argc, char **argv)
{
	long mib = 64;
	struct timespec t0, t1;
	pthread_t *tid;
	size_t size;
	int err;

	threads = 4;
	if (argc > 3) {
		fprintf(stderr, "usage: pagefault [THREADS [MiB]]\n");
		return 2;
	}
	if (argc > 1)
		threads = number("pagefault", argv[1], "THREADS", 1, 4096);
	if (argc > 2)
		mib = number("pagefault", argv[2], "MiB", 1, 1L << 20);
	pagesize = (size_t)sysconf(_SC_PAGESIZE);
	size = (size_t)mib << 20;
	pages = size / pagesize;
	map = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		perror("pagefault: mmap");
		return 1;
	}
	madvise(map, size, MADV_NOHUGEPAGE); /* one fault per page, not per 2 MiB */
	tid = calloc((size_t)threads, sizeof(*tid));
	if (!tid || pthread_barrier_init(&start, NULL, (unsigned)threads + 1) ||
	    pthread_barrier_init(&stop, NULL, (unsigned)threads + 1)) {
		fprintf(stderr, "pagefault: out of memory\n");
		return 1;
	}
	for (long k = 0; k < threads; k++) {
		err = pthread_create(&tid[k], NULL, reader, (void *)k);
		if (err) {
			fprintf(stderr, "pagefault: thread %ld: %s\n", k, strerror(err));
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_barrier_wait(&start);
	pthread_barrier_wait(&stop);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (long k = 0; k < threads; k++)
		pthread_join(tid[k], NULL);
	printf("map=%zu\n", size);
	printf("time = %lld usecs\n",
	       ((long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec)) / 1000);
	return 0;
}
