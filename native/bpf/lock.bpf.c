/* lock.bpf.c: kernel lock contention of contend's child and its
 * descendants, aggregated in the kernel per lock and per call stack, as
 * `perf lock contention -b` does: lock:contention_begin stores the time
 * and the lock's class (the mmap_lock or the siglock of the task's own
 * process, told through the kernel's BTF) per (task, lock address);
 * lock:contention_end adds the wait to the (lock, flags) entry, exact.
 * A kernel stack walk costs microseconds (3-13 us an event measured on
 * a 2-CPU VM, against about 1 us for the rest), so the stack is walked
 * on a sample: the first contention of each lock, and one in
 * stack_every of the others on each CPU; the sampled contentions are
 * added to the (lock, flags, stack) entry as well, which tells the
 * callers' shares. */
#include "common.h"
#include <bpf/bpf_core_read.h>

#define STACK_DEPTH 16

/* Only what is read, relocated by CO-RE against the kernel's BTF. */
struct rw_semaphore {
	long count;
};
struct spinlock {
	int lock;
};
struct futex_hash_bucket {
	int waiters;
	struct spinlock lock;
} __attribute__((preserve_access_index));
struct futex_private_hash {
	unsigned int hash_mask;
	struct futex_hash_bucket queues[];
} __attribute__((preserve_access_index));
struct mm_struct {
	struct rw_semaphore mmap_lock;
	struct futex_private_hash *futex_phash;
} __attribute__((preserve_access_index));
struct sighand_struct {
	struct spinlock siglock;
} __attribute__((preserve_access_index));
struct task_struct {
	struct mm_struct *mm;
	struct sighand_struct *sighand;
} __attribute__((preserve_access_index));

/* lock/contention_begin: lock_addr at 8, flags at 16; contention_end:
 * lock_addr at 8, ret at 16. */
struct begin_rec {
	__u64 common;
	__u64 lock_addr;
	__u32 flags;
};
struct end_rec {
	__u64 common;
	__u64 lock_addr;
	__s32 ret;
};

/* Classes of locks found by their place (class in the key; addr 0):
 * the mmap_lock of the task's mm, the siglock of its process's
 * sighand_struct (shared by its threads), the locks of its process's
 * futex hash buckets. */
#define CLASS_MMAP_LOCK 1
#define CLASS_SIGLOCK 2
/* A bucket's lock of the process's private futex hash (6.16 on: a
 * threaded process gets its own, mm->futex_phash). */
#define CLASS_FUTEX_BUCKET 3

struct start_key {
	__u32 tid;
	__u32 pad;
	__u64 addr;
};
struct start_val {
	__u64 ts;
	__s32 stack; /* kernel stack id; negative when not sampled or lost */
	__u32 flags;
	__u32 class;
	__u32 sampled; /* the stack was walked (stack may still be < 0) */
};
struct agg_key {
	__u64 addr; /* the lock's address; 0 when class says what it is */
	__s32 stack; /* kernel stack id (callers only); waits: 0 */
	__u32 flags;
	__u32 class;
	__u32 pad;
};

struct agg_val {
	__u64 count;
	__u64 total;
	__u64 max;
};

/* stack_every: one in stack_every contentions on a CPU has its stack
 * walked (besides each lock's first); set by contend at load. */
volatile const __u32 stack_every = 16;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct start_key);
	__type(value, struct start_val);
} starts SEC(".maps");

/* waits: every contention per (lock, flags), stack 0; callers: the
 * sampled ones per (lock, flags, stack). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, struct agg_key);
	__type(value, struct agg_val);
} waits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, struct agg_key);
	__type(value, struct agg_val);
} callers SEC(".maps");

/* tick[0]: this CPU's contentions, for the sample. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} tick SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 8192);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

SEC("tracepoint/lock/contention_begin")
int on_begin(struct begin_rec *ctx)
{
	if (!ours())
		return 0;
	struct start_key k = {.tid = (__u32)bpf_get_current_pid_tgid(), .addr = ctx->lock_addr};
	struct start_val v = {.flags = ctx->flags, .stack = -1};
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct mm_struct *mm = BPF_CORE_READ(t, mm);
	if (mm && (__u64)__builtin_preserve_access_index(&mm->mmap_lock) == ctx->lock_addr)
		v.class = CLASS_MMAP_LOCK;
	struct sighand_struct *sh = BPF_CORE_READ(t, sighand);
	if (!v.class && sh && (__u64)__builtin_preserve_access_index(&sh->siglock) == ctx->lock_addr)
		v.class = CLASS_SIGLOCK;
	if (!v.class && mm && bpf_core_field_exists(mm->futex_phash)) {
		struct futex_private_hash *ph = BPF_CORE_READ(mm, futex_phash);
		if (ph) {
			__u64 first = (__u64)__builtin_preserve_access_index(&ph->queues[0]);
			__u64 size = bpf_core_type_size(struct futex_hash_bucket);
			__u64 n = (__u64)BPF_CORE_READ(ph, hash_mask) + 1;
			__u64 off = bpf_core_field_offset(struct futex_hash_bucket, lock);
			__u64 a = ctx->lock_addr;
			if (size && a >= first && a < first + n * size && (a - first) % size == off)
				v.class = CLASS_FUTEX_BUCKET;
		}
	}
	__u32 zero = 0;
	__u32 *n = bpf_map_lookup_elem(&tick, &zero);
	if (n && ++*n >= stack_every) {
		*n = 0;
		v.sampled = 1;
	}
	if (!v.sampled) {
		struct agg_key a = {.addr = v.class ? 0 : ctx->lock_addr, .flags = v.flags, .class = v.class};
		v.sampled = !bpf_map_lookup_elem(&waits, &a);
	}
	if (v.sampled)
		v.stack = bpf_get_stackid(ctx, &stacks, 0);
	v.ts = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&starts, &k, &v, BPF_ANY))
		count_lost();
	return 0;
}

/* add adds a wait of d ns to the entry a of m. */
static __always_inline void add(void *m, struct agg_key *a, __u64 d)
{
	struct agg_val *w = bpf_map_lookup_elem(m, a);
	if (!w) {
		struct agg_val z = {};
		bpf_map_update_elem(m, a, &z, BPF_NOEXIST);
		w = bpf_map_lookup_elem(m, a);
		if (!w) {
			count_lost();
			return;
		}
	}
	__sync_fetch_and_add(&w->count, 1);
	__sync_fetch_and_add(&w->total, d);
	if (d > w->max)
		w->max = d;
}

SEC("tracepoint/lock/contention_end")
int on_end(struct end_rec *ctx)
{
	struct start_key k = {.tid = (__u32)bpf_get_current_pid_tgid(), .addr = ctx->lock_addr};
	struct start_val *v = bpf_map_lookup_elem(&starts, &k);
	if (!v)
		return 0;
	__u64 d = bpf_ktime_get_ns() - v->ts;
	struct agg_key a = {.addr = v->class ? 0 : ctx->lock_addr, .flags = v->flags, .class = v->class};
	__u32 sampled = v->sampled;
	__s32 stack = v->stack;
	bpf_map_delete_elem(&starts, &k);
	add(&waits, &a, d);
	if (sampled) {
		a.stack = stack;
		add(&callers, &a, d);
	}
	return 0;
}
