/*
 * lockunlock.c - contend's example of a test in will-it-scale's shape.
 *
 * Written for contend's examples, contend's own code: every task takes one
 * shared pthread mutex and releases it, counting each pair. Run it as
 * will-it-scale's tests run, with contend's runner:
 *
 *     contend run wis --test examples/wis/lockunlock.c --tasks 2 -n 6
 *
 * (--mode process gives each process its own mutex: uncontended.)
 */
#include <pthread.h>

char *testcase_description = "Contended pthread mutex lock/unlock";

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;

void testcase(unsigned long long *iterations, unsigned long nr)
{
	(void)nr;
	for (;;) {
		pthread_mutex_lock(&mutex);
		pthread_mutex_unlock(&mutex);
		(*iterations)++;
	}
}
