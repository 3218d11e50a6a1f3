/*
 * contend.h - the C ABI between the native workloads and bind/.
 *
 * Every workload has one entry point
 *
 *	int ct_<name>_run(const struct ct_<name>_params *p,
 *	                  struct ct_<name>_result *r);
 *
 * that runs one repetition from start to end in C (threads, start gate,
 * hot loop, stop, clock reads), owns and frees its memory, and returns 0 or
 * a positive errno. On failure r->status names the failing call.
 *
 * The parameter and result structs of workload NAME are declared in
 * native/NAME.h, which includes this header.
 *
 * A workload that creates a SysV IPC object tells the parent process its
 * id with ct_report() on p->report_fd *before* its timed region, and again
 * when it has removed it, so that the parent can remove what a dead child
 * left behind.
 */
#ifndef CONTEND_H
#define CONTEND_H

#include <stddef.h>
#include <stdint.h>

/* ct_status says why a run failed: errno and the call that returned it. */
struct ct_status {
	int err;          /* positive errno, 0 on success */
	char call[48];    /* the failing call, e.g. "mmap" */
	char detail[208]; /* words for the user, e.g. "of 10737418240 bytes" */
};

/* ct_fail records a failure in st and returns err. */
int ct_fail(struct ct_status *st, int err, const char *call, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* ct_now_ns reads CLOCK_MONOTONIC in nanoseconds. */
uint64_t ct_now_ns(void);

/* ct_signame returns the name of signal sig ("SIGSEGV"), written in buf
 * (len bytes, 16 are enough), or its number if it has none. */
const char *ct_signame(int sig, char *buf, size_t len);

/* ct_report writes one line to the parent's report pipe; fd < 0 is a no-op. */
void ct_report(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ct_rss_anon_kb returns RssAnon of this process from /proc/self/status. */
uint64_t ct_rss_anon_kb(void);

/* ct_thread_stack_min returns sysconf(_SC_THREAD_STACK_MIN), the smallest
 * stack pthread_attr_setstacksize accepts (PTHREAD_STACK_MIN). */
long ct_thread_stack_min(void);

/* ct_thread_stack_default returns the stack size of a thread created with
 * default attributes (glibc: the soft RLIMIT_STACK, 2 MiB on x86-64 when it
 * is unlimited), 0 when unknown. */
long ct_thread_stack_default(void);

/* ct_cc_version returns the compiler that built the native code. */
const char *ct_cc_version(void);

/* ct_cc_flags returns the effective optimisation settings of the native
 * code, from the compiler's predefined macros (native/ccflags.c). */
const char *ct_cc_flags(void);

/*
 * SysV semaphore sets (semop-multi, osim).
 *
 * ct_sem_create creates a set of nsems semaphores (all 0) and reports
 * "ipc sem ID" on report_fd before returning its id; on failure it fills st
 * (naming the kernel.sem limit to raise for ENOSPC) and returns -1.
 * ct_sem_remove removes the set (IPC_RMID) and reports "ipc-removed sem ID".
 *
 * The set's key is the one the parent chose (found free and written to its
 * journal before starting the child: internal/ipcown), not IPC_PRIVATE as
 * in the originals: a child killed between semget and its report would
 * otherwise leave a set nobody can name. The set is created with
 * IPC_CREAT|IPC_EXCL: if another program took the key meanwhile (EEXIST),
 * the child reports "ipc-key-taken sem KEY" and fails; it never adopts or
 * touches a set it did not create. Key 0 (IPC_PRIVATE) when run without a
 * parent. The key changes nothing that is measured.
 */

union ct_semun {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
};

int ct_sem_create(int nsems, int key, int report_fd, int inject, struct ct_status *st);
int ct_sem_remove(int id, int report_fd);

/*
 * Failures that tests inject through a workload's `inject` parameter, to
 * prove the cleanup paths of limits that cannot be lowered safely on a
 * shared test machine (root ignores RLIMIT_NPROC; kernel.sem is global).
 * Real runs pass 0.
 */
enum {
	CT_INJECT_SEMGET_ENOSPC = 1, /* semget fails with ENOSPC */
	CT_INJECT_FORK_EAGAIN = 2,   /* the middle fork/pthread_create fails with EAGAIN */
	CT_INJECT_DIE_AFTER_SEMGET = 4, /* SIGKILL between semget and its report */
	CT_INJECT_MADVISE_EINVAL = 8,   /* faultme's madvise fails with EINVAL, as on a kernel without THP */
	CT_INJECT_PIN_MOVED = 16,       /* the middle pinned worker's mask is widened to every CPU after pinning */
};

#endif
