/*
 * common.c - helpers shared by the native workloads: failure records, the
 * clock, the parent's report pipe, /proc readers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <time.h>
#include <unistd.h>

#include "contend.h"

int ct_fail(struct ct_status *st, int err, const char *call, const char *fmt, ...)
{
	va_list ap;

	st->err = err ? err : EIO;
	snprintf(st->call, sizeof(st->call), "%s", call);
	va_start(ap, fmt);
	vsnprintf(st->detail, sizeof(st->detail), fmt, ap);
	va_end(ap);
	return st->err;
}

const char *ct_signame(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "%d", sig);
	return buf;
}

uint64_t ct_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void ct_report(int fd, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	if (fd < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	/* One write(2) of at most PIPE_BUF bytes is atomic. */
	while (write(fd, buf, n) < 0 && errno == EINTR)
		;
}

uint64_t ct_rss_anon_kb(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssAnon: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

long ct_thread_stack_min(void)
{
	long n = sysconf(_SC_THREAD_STACK_MIN);

	return n > 0 ? n : PTHREAD_STACK_MIN;
}

long ct_thread_stack_default(void)
{
	pthread_attr_t a;
	size_t n = 0;

	if (pthread_getattr_default_np(&a) != 0)
		return 0;
	pthread_attr_getstacksize(&a, &n);
	pthread_attr_destroy(&a);
	return (long)n;
}

const char *ct_cc_version(void)
{
#if defined(__clang__)
	return "clang " __VERSION__;
#elif defined(__GNUC__)
	return "gcc " __VERSION__;
#else
	return "unknown";
#endif
}

int ct_sem_create(int nsems, int key, int report_fd, int inject, struct ct_status *st)
{
	int id, err;

	if (inject & CT_INJECT_SEMGET_ENOSPC) {
		id = -1;
		errno = ENOSPC;
	} else {
		id = semget((key_t)key, nsems, 0600 | IPC_CREAT | IPC_EXCL);
	}
	if (id >= 0) {
		if (inject & CT_INJECT_DIE_AFTER_SEMGET)
			raise(SIGKILL);
		ct_report(report_fd, "ipc sem %d", id);
		return id;
	}
	err = errno;
	switch (err) {
	case EEXIST:
		ct_report(report_fd, "ipc-key-taken sem %d", key);
		ct_fail(st, err, "semget", "of a set of %d semaphores with key 0x%08x (another program "
			"created a set with this key after contend found it free, and contend never uses a "
			"set it did not create: run again)", nsems, (unsigned)key);
		break;
	case ENOSPC:
		ct_fail(st, err, "semget", "of a set of %d semaphores (the system's semaphore sets "
			"(kernel.sem SEMMNI) or semaphores (kernel.sem SEMMNS) are used up: "
			"remove stale sets (ipcs -s, ipcrm) or raise kernel.sem)", nsems);
		break;
	case EINVAL:
		ct_fail(st, err, "semget", "of a set of %d semaphores (above kernel.sem SEMMSL?)", nsems);
		break;
	default:
		ct_fail(st, err, "semget", "of a set of %d semaphores", nsems);
	}
	return -1;
}

int ct_sem_remove(int id, int report_fd)
{
	if (semctl(id, 0, IPC_RMID) < 0 && errno != EINVAL && errno != EIDRM)
		return errno;
	ct_report(report_fd, "ipc-removed sem %d", id);
	return 0;
}
