/* percpu.bpf.c: where each CPU's per-CPU data is, for contend's lock
 * collector, which names a lock in a per-CPU area by what it is: a run
 * queue's lock (rq->__lock, in the per-CPU `runqueues`) as runqueues,
 * and, where /proc/kallsyms lists the per-CPU symbols and
 * __per_cpu_offset (CONFIG_KALLSYMS_ALL), any other by its symbol.
 *
 * The program is never attached: contend runs it once with
 * BPF_PROG_TEST_RUN, args[0] the number of CPUs, args[1] the address of
 * __per_cpu_offset (0 where kallsyms does not list it). It writes, per
 * CPU c:
 *  - offsets[c] = __per_cpu_offset[c], read from kernel memory (when
 *    args[1] is given);
 *  - rq_locks[c] = &cpu_rq(c)->__lock: the run queue of the CPU it runs
 *    on is found through the current task's CFS run queue
 *    (se.cfs_rq->rq, CONFIG_FAIR_GROUP_SCHED; checked by rq->cpu), and
 *    another CPU's is as far from it as that CPU's copy of a per-CPU map
 *    value is from this CPU's (every per-CPU object of CPU c is at its
 *    per-CPU pointer plus __per_cpu_offset[c], so the distance between
 *    two CPUs' copies is the same for all of them). 0 where it cannot be
 *    told.
 * Reading pointers as numbers needs CAP_PERFMON (root). No common.h: no
 * set of the child's tasks here. */
typedef unsigned int __u32;
typedef int __s32;
typedef unsigned long long __u64;

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

#define MAX_CPUS 1024

/* Only what is read, relocated by CO-RE against the kernel's BTF. */
struct raw_spinlock {
	int lock;
};
struct rq {
	struct raw_spinlock __lock;
	int cpu;
} __attribute__((preserve_access_index));
struct cfs_rq {
	struct rq *rq;
} __attribute__((preserve_access_index));
struct sched_entity {
	struct cfs_rq *cfs_rq;
} __attribute__((preserve_access_index));
struct task_struct {
	struct sched_entity se;
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MAX_CPUS);
	__type(key, __u32);
	__type(value, __u64);
} offsets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MAX_CPUS);
	__type(key, __u32);
	__type(value, __u64);
} rq_locks SEC(".maps");

/* A per-CPU value whose copies' addresses are compared. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} probe SEC(".maps");

SEC("raw_tp")
int read_percpu(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 n = ctx->args[0];
	__u64 base = ctx->args[1];
	__u32 zero = 0, me = bpf_get_smp_processor_id();
	__u64 rq_lock = 0;
	if (bpf_core_field_exists(((struct sched_entity *)0)->cfs_rq)) {
		struct task_struct *t = (struct task_struct *)bpf_get_current_task();
		struct cfs_rq *cfs = BPF_CORE_READ(t, se.cfs_rq);
		struct rq *rq = cfs ? BPF_CORE_READ(cfs, rq) : 0;
		if (rq && BPF_CORE_READ(rq, cpu) == (int)me)
			rq_lock = (__u64)__builtin_preserve_access_index(&rq->__lock);
	}
	__u64 *mine = bpf_map_lookup_percpu_elem(&probe, &zero, me);
	for (int i = 0; i < MAX_CPUS; i++) {
		if (i >= n)
			break;
		__u32 cpu = i; /* the key, on the stack: i stays bounded */
		if (base) {
			__u64 off = 0;
			if (bpf_probe_read_kernel(&off, sizeof(off), (const void *)(base + (__u64)i * sizeof(__u64))) == 0)
				bpf_map_update_elem(&offsets, &cpu, &off, BPF_ANY);
		}
		__u64 *theirs = bpf_map_lookup_percpu_elem(&probe, &zero, cpu);
		if (rq_lock && mine && theirs) {
			/* Two pointers subtracted make a number (the verifier
			 * allows it with CAP_PERFMON); the asm keeps clang from
			 * adding rq_lock to a pointer instead. */
			__u64 d = (__u64)theirs;
			asm volatile("%[d] -= %[m]" : [d] "+r"(d) : [m] "r"(mine));
			__u64 l = rq_lock + d;
			bpf_map_update_elem(&rq_locks, &cpu, &l, BPF_ANY);
		}
	}
	return 0;
}
