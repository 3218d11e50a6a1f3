/*
 * stacklimit.c - refuse, before the Go runtime starts, a stack size limit
 * that no thread can be created with.
 *
 * glibc gives a new thread a stack of RLIMIT_STACK's soft limit (unless it
 * is unlimited), and the Go runtime creates its own threads with that
 * default. With `ulimit -s` larger than the kernel lets one mapping be
 * (overcommit's heuristic refuses a private writable mapping larger than
 * RAM plus swap), the runtime's first pthread_create fails and it aborts
 * with a stack trace of every goroutine: no message a user can act on.
 *
 * The constructor maps, once, a region of the limit's size as glibc maps a
 * stack (private, anonymous, writable, never touched) and unmaps it; when
 * the kernel refuses, contend says so in one line and exits with status 1.
 * A limit of 64 MiB or less, or unlimited, is not probed: nothing to map.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define CT_STACK_PROBE_MIN (64ULL << 20)

__attribute__((constructor)) static void ct_stacklimit_ctor(void)
{
	struct rlimit rl;
	void *p;
	int err;

	if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    (unsigned long long)rl.rlim_cur <= CT_STACK_PROBE_MIN)
		return;
	p = mmap(NULL, rl.rlim_cur, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (p != MAP_FAILED) {
		munmap(p, rl.rlim_cur);
		return;
	}
	err = errno;
	dprintf(2, "contend: the stack size limit (ulimit -s) of %llu KiB is the size of every "
		"thread's stack, and the kernel refuses to map one that large (%s); "
		"lower it, such as 'ulimit -s 8192'\n",
		(unsigned long long)rl.rlim_cur / 1024, strerror(err));
	_exit(1);
}
