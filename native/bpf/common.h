/* common.h: what contend's BPF programs share: the set of the child's
 * process ids (seeded by contend with the child's pid while it is held
 * stopped, grown by sched_process_fork), and a counter of what could not
 * be recorded (a full map). The sizes of the maps here are defaults:
 * contend sets every hash map's from the run before loading
 * (internal/evidence/bpfsize.go). No vmlinux.h: tracepoint records are declared
 * from their format files (/sys/kernel/tracing/events/.../format); the
 * few kernel structures read go through CO-RE relocations. */
#ifndef CONTEND_BPF_COMMON_H
#define CONTEND_BPF_COMMON_H

typedef unsigned char __u8;
typedef unsigned int __u32;
typedef int __s32;
typedef unsigned long long __u64;
typedef long long __s64;

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

/* tgids: a process id of the child or of a descendant -> 1. Thread ids
 * land here too (a fork tracepoint cannot tell a thread from a process
 * without reading the task): harmless, a lookup is by tgid. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps");

/* lost[0]: events not recorded because a map was full, counted on each
 * CPU apart (contend sums them): a counter shared by the CPUs would
 * bounce between them just when a full map makes every event fail. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

static __always_inline void count_lost(void)
{
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&lost, &k);
	if (v)
		*v += 1;
}

static __always_inline int ours(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	return bpf_map_lookup_elem(&tgids, &tgid) != 0;
}

/* sched/sched_process_fork (format: parent_pid at 12, child_pid at 20). */
struct fork_rec {
	__u64 common;
	__u32 parent_comm;
	__s32 parent_pid;
	__u32 child_comm;
	__s32 child_pid;
};

SEC("tracepoint/sched/sched_process_fork")
int on_fork(struct fork_rec *ctx)
{
	if (!ours())
		return 0;
	__u32 child = ctx->child_pid;
	__u8 one = 1;
	if (bpf_map_update_elem(&tgids, &child, &one, BPF_ANY))
		count_lost();
	return 0;
}

#endif
