/*
 * mutexloop.c - contend's example of a contended pthread mutex program.
 *
 * Written for contend's examples, contend's own code; not derived from
 * any other program. THREADS threads each take one shared mutex LOCKS times
 * (trylock first, counting the times it was held by another thread, then
 * lock), increment a shared counter and unlock. It prints the counter and,
 * last, the contended trylocks in the format contend's preset mutex reads:
 *
 *     counter:N
 *     contended:N
 *
 * Timed from outside, as time(1) times it (contend exec's real, user, sys).
 *
 * usage: mutexloop [THREADS [LOCKS]]   (default 4 threads, 100000 locks)
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number.h"

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start;
static long locks;
static unsigned long long counter, contended;

static void *locker(void *arg)
{
	unsigned long long busy = 0;

	(void)arg;
	pthread_barrier_wait(&start);
	for (long i = 0; i < locks; i++) {
		if (pthread_mutex_trylock(&mutex) == EBUSY) {
			busy++;
			pthread_mutex_lock(&mutex);
		}
		counter++;
		pthread_mutex_unlock(&mutex);
	}
	pthread_mutex_lock(&mutex);
	contended += busy;
	pthread_mutex_unlock(&mutex);
	return NULL;
}


int main(int argc, char **argv)
{
	long threads = 4;
	pthread_t *tid;
	int err;

	locks = 100000;
	if (argc > 3) {
		fprintf(stderr, "usage: mutexloop [THREADS [LOCKS]]\n");
		return 2;
	}
	if (argc > 1)
		threads = number("mutexloop", argv[1], "THREADS", 1, 4096);
	if (argc > 2)
		locks = number("mutexloop", argv[2], "LOCKS", 1, 1000000000L);
	tid = calloc((size_t)threads, sizeof(*tid));
	if (!tid || pthread_barrier_init(&start, NULL, (unsigned)threads)) {
		fprintf(stderr, "mutexloop: out of memory\n");
		return 1;
	}
	for (long k = 0; k < threads; k++) {
		err = pthread_create(&tid[k], NULL, locker, NULL);
		if (err) {
			fprintf(stderr, "mutexloop: thread %ld: %s\n", k, strerror(err));
			return 1;
		}
	}
	for (long k = 0; k < threads; k++)
		pthread_join(tid[k], NULL);
	printf("counter:%llu\n", counter);
	printf("contended:%llu\n", contended);
	return counter == (unsigned long long)threads * (unsigned long long)locks ? 0 : 1;
}
