/* offcpu.bpf.c: off-CPU time of contend's child and its descendants,
 * aggregated in the kernel: sched_switch records when a task of the set
 * leaves the CPU and whether it was still runnable (preempted, yielded)
 * or blocked; sched_wakeup ends a blocked stretch (the time from then to
 * the next switch-in is runnable: waiting for a CPU); sched_wakeup_new
 * starts a new task runnable. The futex system calls that wait time
 * futex waits. */
#include "common.h"

/* sched/sched_switch: prev_pid at 24, prev_state at 32, next_pid at 56. */
struct switch_rec {
	__u64 common;
	char prev_comm[16];
	__s32 prev_pid;
	__s32 prev_prio;
	__s64 prev_state;
	char next_comm[16];
	__s32 next_pid;
	__s32 next_prio;
};
/* sched/sched_wakeup, sched_wakeup_new: pid at 24. */
struct wakeup_rec {
	__u64 common;
	char comm[16];
	__s32 pid;
	__s32 prio;
	__s32 target_cpu;
};
/* syscalls/sys_enter_futex: op at 24; sys_exit_futex: ret at 16. */
struct futex_enter_rec {
	__u64 common;
	__s32 nr;
	__s32 pad;
	__u64 uaddr;
	__u64 op;
};

/* Indices of totals (T_*: the futex operations are FUTEX_*). */
enum {
	T_BLOCKED,       /* ns asleep (S, D, I, stopped) until woken */
	T_BLOCKED_D,     /* the part of BLOCKED in uninterruptible sleep (D) */
	T_RUNNABLE,    /* ns runnable but not running */
	T_FUTEX_WAIT,  /* ns in futex system calls that wait */
	T_FUTEX_WAITS, /* their number */
	T_SLEEPS,      /* switches out blocked */
	T_PREEMPTIONS, /* switches out still runnable */
	T_NTOTALS,
};

/* Per CPU (contend sums them): the child's switches happen on every CPU
 * at once, and a shared total would bounce between them. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, T_NTOTALS);
	__type(key, __u32);
	__type(value, __u64);
} totals SEC(".maps");

#define PHASE_RUNNABLE 0
#define PHASE_BLOCKED 1
#define PHASE_BLOCKED_D 2

struct off {
	__u64 ts;
	__u32 phase;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, struct off);
} offs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, __u64);
} futexes SEC(".maps");

static __always_inline void add(__u32 i, __u64 v)
{
	__u64 *t = bpf_map_lookup_elem(&totals, &i);
	if (t)
		*t += v;
}

/* TASK_REPORT bits of prev_state (0: R, running); 0x100 marks a
 * preemption. */
#define TASK_REPORT_MASK 0xff
#define TASK_UNINTERRUPTIBLE 0x2
#define EXIT_MASK 0x30 /* X, Z: the task's last switch */

SEC("tracepoint/sched/sched_switch")
int on_switch(struct switch_rec *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 next = ctx->next_pid;
	struct off *o = bpf_map_lookup_elem(&offs, &next);
	if (o) {
		if (o->phase == PHASE_RUNNABLE) {
			add(T_RUNNABLE, now - o->ts);
		} else {
			/* No wakeup seen: all of it counted blocked. */
			add(T_BLOCKED, now - o->ts);
			if (o->phase == PHASE_BLOCKED_D)
				add(T_BLOCKED_D, now - o->ts);
		}
		bpf_map_delete_elem(&offs, &next);
	}
	if (!ours())
		return 0;
	__u32 prev = ctx->prev_pid;
	__s64 st = ctx->prev_state & TASK_REPORT_MASK;
	if (st & EXIT_MASK)
		return 0;
	struct off v = {.ts = now, .phase = PHASE_RUNNABLE};
	if (st) {
		v.phase = (st & TASK_UNINTERRUPTIBLE) ? PHASE_BLOCKED_D : PHASE_BLOCKED;
		add(T_SLEEPS, 1);
	} else {
		add(T_PREEMPTIONS, 1);
	}
	if (bpf_map_update_elem(&offs, &prev, &v, BPF_ANY))
		count_lost();
	return 0;
}

SEC("tracepoint/sched/sched_wakeup")
int on_wakeup(struct wakeup_rec *ctx)
{
	__u32 pid = ctx->pid;
	struct off *o = bpf_map_lookup_elem(&offs, &pid);
	if (!o || o->phase == PHASE_RUNNABLE)
		return 0;
	__u64 now = bpf_ktime_get_ns();
	add(T_BLOCKED, now - o->ts);
	if (o->phase == PHASE_BLOCKED_D)
		add(T_BLOCKED_D, now - o->ts);
	o->ts = now;
	o->phase = PHASE_RUNNABLE;
	return 0;
}

SEC("tracepoint/sched/sched_wakeup_new")
int on_wakeup_new(struct wakeup_rec *ctx)
{
	if (!ours())
		return 0;
	__u32 pid = ctx->pid;
	struct off v = {.ts = bpf_ktime_get_ns(), .phase = PHASE_RUNNABLE};
	if (bpf_map_update_elem(&offs, &pid, &v, BPF_ANY))
		count_lost();
	return 0;
}

/* Futex operations that wait (FUTEX_CMD_MASK of op). */
#define FUTEX_WAIT 0
#define FUTEX_LOCK_PI 6
#define FUTEX_WAIT_BITSET 9
#define FUTEX_WAIT_REQUEUE_PI 11
#define FUTEX_LOCK_PI2 13

SEC("tracepoint/syscalls/sys_enter_futex")
int on_futex_enter(struct futex_enter_rec *ctx)
{
	if (!ours())
		return 0;
	__u32 cmd = ctx->op & 0x7f;
	if (cmd != FUTEX_WAIT && cmd != FUTEX_LOCK_PI && cmd != FUTEX_WAIT_BITSET &&
	    cmd != FUTEX_WAIT_REQUEUE_PI && cmd != FUTEX_LOCK_PI2)
		return 0;
	__u32 tid = bpf_get_current_pid_tgid();
	__u64 now = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&futexes, &tid, &now, BPF_ANY))
		count_lost();
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_futex")
int on_futex_exit(void *ctx)
{
	__u32 tid = bpf_get_current_pid_tgid();
	__u64 *t = bpf_map_lookup_elem(&futexes, &tid);
	if (!t)
		return 0;
	add(T_FUTEX_WAIT, bpf_ktime_get_ns() - *t);
	add(T_FUTEX_WAITS, 1);
	bpf_map_delete_elem(&futexes, &tid);
	return 0;
}
