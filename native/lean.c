/*
 * lean.c - the lean repetition child, run as `contend __lean NAME PARAMS`:
 * one workload's C called from a constructor before the Go runtime starts.
 *
 * Why: a workload timed as a whole process (the mutex test: `time ./mainc`,
 * the child's real, user and sys) carries its process's start-up and exit.
 * The Go child (`contend __child`) starts the Go runtime first: on this
 * project's PVM machine about 420 more page faults and 14 ms more CPU than
 * a C program's start (`contend verify mutex --threads 1 --locks 1`), which
 * made the 1000-thread mutex test 1.06-1.09x the original's time. osim
 * forks its workers from the child: forked from the Go child they took 6-8%
 * more time than sem-lockunlock.c's, or native/osim.c's built alone (their
 * CPU time 20% more). faultme's threads fault on a fresh mapping beside
 * libc alone, as the original's do, not beside the runtime's threads. Here
 * the process holds little more than ld.so and libc when the workload
 * runs, as the original's does, and it exits with _exit before Go ever
 * starts.
 *
 * PARAMS is the workload's C parameter struct in hex (the Go side's struct
 * has the C layout: bind/params.go checks it). The child reports on fd 3
 * (the report pipe; stdout when CONTEND_REPORT_FD is not 3), one line:
 *   lean RC RESULT        (RC: the run's return; RESULT: its result struct
 *                          in hex, decoded by bind in the parent)
 *   error TEXT            (a bad call: unknown name, malformed PARAMS)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "faultme.h"
#include "mutex.h"
#include "osim.h"

#define CT_LEAN_ARG "__lean"

/* lean_osim runs osim with what the Go child's runtime gives it: the
 * report pipe for the set's id, the set's key the parent chose
 * (CONTEND_SEM_KEY) and a test's injected failure (CONTEND_TEST_INJECT). */
static int lean_osim(void *params, void *result, int report_fd)
{
	struct ct_osim_params *p = params;
	const char *key = getenv("CONTEND_SEM_KEY"), *inject = getenv("CONTEND_TEST_INJECT");

	p->report_fd = report_fd;
	p->sem_key = key ? atoi(key) : 0;
	p->inject = inject && strcmp(inject, "die-after-semget") == 0 ? CT_INJECT_DIE_AFTER_SEMGET : 0;
	return ct_osim_run(p, result);
}

/* lean_faultme runs faultme with the report pipe and a test's injected
 * failure (CONTEND_TEST_INJECT), as the Go child's runtime gives them. */
static int lean_faultme(void *params, void *result, int report_fd)
{
	struct ct_faultme_params *p = params;
	const char *inject = getenv("CONTEND_TEST_INJECT");

	p->report_fd = report_fd;
	p->inject = inject && strcmp(inject, "madvise-einval") == 0 ? CT_INJECT_MADVISE_EINVAL : 0;
	return ct_faultme_run(p, result);
}

/* lean_mutex runs the mutex test, which reports nothing while it runs. */
static int lean_mutex(void *params, void *result, int report_fd)
{
	(void)report_fd;
	return ct_mutex_run(params, result);
}

/* ct_lean_workloads: what may run lean, with its structs' sizes. */
static const struct {
	const char *name;
	size_t params, result;
	int (*run)(void *params, void *result, int report_fd);
} ct_lean_workloads[] = {
	{ "faultme", sizeof(struct ct_faultme_params), sizeof(struct ct_faultme_result), lean_faultme },
	{ "mutex", sizeof(struct ct_mutex_params), sizeof(struct ct_mutex_result), lean_mutex },
	{ "osim", sizeof(struct ct_osim_params), sizeof(struct ct_osim_result), lean_osim },
};

static void lean_say(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void __attribute__((noreturn)) lean_fail(int fd, const char *msg)
{
	char line[256];
	int n = snprintf(line, sizeof(line), "error %s\n", msg);

	lean_say(fd, line, (size_t)n);
	_exit(1);
}

static int unhex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static void __attribute__((noreturn)) lean(int argc, char **argv)
{
	static const char digits[] = "0123456789abcdef";
	const char *env = getenv("CONTEND_REPORT_FD");
	int fd = env && strcmp(env, "3") == 0 ? 3 : 1;
	unsigned char *params, *result;
	char *line;
	size_t i, n;
	int rc;

	if (argc != 4)
		lean_fail(fd, "usage: contend __lean NAME PARAMS-HEX (internal)");
	for (i = 0; i < sizeof(ct_lean_workloads) / sizeof(ct_lean_workloads[0]); i++)
		if (strcmp(ct_lean_workloads[i].name, argv[2]) == 0)
			break;
	if (i == sizeof(ct_lean_workloads) / sizeof(ct_lean_workloads[0]))
		lean_fail(fd, "no lean run of this workload");
	n = ct_lean_workloads[i].params;
	if (strlen(argv[3]) != 2 * n)
		lean_fail(fd, "the parameters are not the size of the workload's C struct");
	params = calloc(1, n);
	result = calloc(1, ct_lean_workloads[i].result);
	line = malloc(2 * ct_lean_workloads[i].result + 32);
	if (!params || !result || !line)
		lean_fail(fd, "out of memory");
	for (size_t j = 0; j < n; j++) {
		int hi = unhex(argv[3][2 * j]), lo = unhex(argv[3][2 * j + 1]);

		if (hi < 0 || lo < 0)
			lean_fail(fd, "the parameters are not lowercase hex");
		params[j] = (unsigned char)(hi << 4 | lo);
	}

	rc = ct_lean_workloads[i].run(params, result, fd);

	n = (size_t)snprintf(line, 32, "lean %d ", rc);
	for (size_t j = 0; j < ct_lean_workloads[i].result; j++) {
		line[n++] = digits[result[j] >> 4];
		line[n++] = digits[result[j] & 15];
	}
	line[n++] = '\n';
	lean_say(fd, line, n);
	_exit(0);
}

/* ct_lean_ctor runs in every contend process before the Go runtime: one
 * comparison of argv[1] unless this is a lean child. */
__attribute__((constructor)) static void ct_lean_ctor(int argc, char **argv)
{
	if (argc > 1 && argv[1][0] == '_' && strcmp(argv[1], CT_LEAN_ARG) == 0)
		lean(argc, argv);
}
