#include "../native/mutex.c"

/* ct_mutex_layout is a test hook (bind/layout_test.go): it sets addr and
 * size to the addresses and sizes of native/mutex.c's globals, the work
 * mutex first, and returns how many there are (at most n are set). */
int ct_mutex_layout(uintptr_t *addr, size_t *size, int n)
{
	const struct {
		const void *p;
		size_t size;
	} g[] = {
		{ &mutex_work.m, sizeof(mutex_work.m) },
		{ &mutex_gate.m, sizeof(mutex_gate.m) },
		{ &mutex_counter, sizeof(mutex_counter) },
		{ &mutex_contended, sizeof(mutex_contended) },
		{ (const void *)&mutex_abort, sizeof(mutex_abort) },
		{ &mutex_locks, sizeof(mutex_locks) },
	};
	int i, k = (int)(sizeof(g) / sizeof(g[0]));

	for (i = 0; i < k && i < n; i++) {
		addr[i] = (uintptr_t)g[i].p;
		size[i] = g[i].size;
	}
	return k;
}
