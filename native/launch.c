/*
 * launch.c - the launcher of external programs (`exec`, `ab exec`, the
 * original side of `verify`), run as `contend __launch FD PATH ARGV0 ARG...`.
 *
 * Why: a program started directly by the Go parent is forked (vforked) from
 * contend, and at exec the kernel folds the exec'ing task's memory high-water
 * mark into ru_maxrss: `exec -- /bin/true` reported contend's ~11 MiB. The
 * launcher is a C constructor that runs before the Go runtime starts (glibc
 * passes argc, argv and envp to constructors), so the process that forks the
 * program holds little more than ld.so and libc; the program's wait4 rusage
 * is then its own.
 *
 * It also supervises the repetition's process group (the launcher is its
 * leader): the Go parent starts it with PR_SET_PDEATHSIG = SIGTERM, and when
 * contend dies the handler kills the whole group, so that a background
 * grandchild of the program does not outlive the repetition. The program
 * itself gets PR_SET_PDEATHSIG = SIGKILL towards the launcher. A SIGTERM
 * while contend lives (the death of the thread that forked the launcher,
 * which Linux also signals; a SIGTERM sent to the whole group to stop the
 * program politely, as external.RunGroup does) is ignored: the program
 * gets its own, and the launcher reports its end as usual.
 *
 * Reports on FD (close-on-exec, so the program never sees it), one line:
 *   exec-error ERRNO           (from the forked child when execve failed)
 *   wait-error ERRNO           (wait4 for the program failed: it ran, but
 *                               its status and rusage are lost)
 *   done STATUS REAL_NS UTIME_US STIME_US MAXRSS_KB MINFLT MAJFLT NVCSW NIVCSW
 * STATUS is the raw wait status. Then the launcher kills what is left of
 * its group, itself included: everything a repetition starts ends with it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CT_LAUNCH_ARG "__launch"

static void say(int fd, const char *s)
{
	size_t n = strlen(s);

	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* contend, the launcher's parent when it started */
static pid_t parent;

/*
 * SIGTERM: when the parent (contend) died (the launcher was handed to
 * another reaper), end the repetition's whole process group; while it
 * lives, ignore it.
 */
static void parent_died(int sig)
{
	if (getppid() == parent)
		return;
	kill(0, SIGKILL);
	_exit(128 + sig);
}

static long long since_ns(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (long long)(t1.tv_sec - t0->tv_sec) * 1000000000LL + (t1.tv_nsec - t0->tv_nsec);
}

static void __attribute__((noreturn)) launch(int argc, char **argv, char **envp)
{
	struct sigaction sa;
	struct rusage ru;
	struct timespec t0;
	char line[256];
	pid_t self = getpid(), pid;
	int fd, st;

	if (argc < 5) {
		say(2, "contend: __launch is internal: __launch FD PATH ARGV0 [ARG...]\n");
		_exit(2);
	}
	fd = atoi(argv[2]);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	parent = getppid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = parent_died;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTERM, &sa, NULL);
	/* The Go parent set it too; set here so the launcher stands alone. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		snprintf(line, sizeof(line), "exec-error %d\n", errno);
		say(fd, line);
		_exit(127);
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != self)
			_exit(127);
		sa.sa_handler = SIG_DFL;
		sigaction(SIGTERM, &sa, NULL);
		execve(argv[3], argv + 4, envp);
		snprintf(line, sizeof(line), "exec-error %d\n", errno);
		say(fd, line);
		_exit(127);
	}
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR) {
			snprintf(line, sizeof(line), "wait-error %d\n", errno);
			say(fd, line);
			_exit(127);
		}
	snprintf(line, sizeof(line), "done %d %lld %lld %lld %ld %ld %ld %ld %ld\n", st, since_ns(&t0),
		 (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec,
		 (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec,
		 ru.ru_maxrss, ru.ru_minflt, ru.ru_majflt, ru.ru_nvcsw, ru.ru_nivcsw);
	say(fd, line);
	close(fd);
	kill(0, SIGKILL);
	_exit(0);
}

/*
 * ct_launch_ctor runs in every contend process before the Go runtime: one
 * comparison of argv[1] unless this is a launcher.
 */
__attribute__((constructor)) static void ct_launch_ctor(int argc, char **argv, char **envp)
{
	if (argc > 1 && argv[1][0] == '_' && strcmp(argv[1], CT_LAUNCH_ARG) == 0)
		launch(argc, argv, envp);
}
