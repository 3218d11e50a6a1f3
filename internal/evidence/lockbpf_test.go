package evidence

import (
	"fmt"
	"testing"
)

// TestLockKindOf: the flags of lock:contention_begin map to the kinds the
// tracefs collector names from their text.
func TestLockKindOf(t *testing.T) {
	for flags, want := range map[uint32]string{
		0: "spinlock", lcbSpin: "spinlock", lcbSpin | lcbRead: "rwlock", lcbSpin | lcbWrite: "rwlock",
		lcbRead: "rwsem_read", lcbWrite: "rwsem_write", lcbMutex: "mutex", lcbMutex | lcbSpin: "mutex",
		lcbRT: "rtmutex", lcbPercpu | lcbRead: "percpu_rwsem",
	} {
		if got := lockKindOf(flags); got != want {
			t.Errorf("lockKindOf(%#x) = %q, want %q", flags, got, want)
		}
	}
}

// fakeSyms is a symbol table: text from 0x1000, lock text 0x2000-0x3000,
// data from 0x10000.
func fakeSyms() *kallsyms {
	return &kallsyms{
		addrs:    []uint64{0x1000, 0x1100, 0x2000, 0x2100, 0x3000, 0x10000, 0x10040, 0x20000},
		names:    []string{"_stext", "do_mmap", "__lock_text_start", "_raw_spin_lock", "rwsem_down_write_slowpath", "jiffies_lock", "big_table", "_end"},
		kinds:    []byte{'t', 't', 't', 't', 't', 'd', 'b', 'b'},
		lockText: [2]uint64{0x2000, 0x3000},
		stext:    0x1000,
		end:      0x20000,
	}
}

// TestKallsymsNames: a caller is the first frame outside the locking
// functions (lock text, or a name of one); a static lock is named by its
// data symbol, with the offset within 4 KiB, else not at all (a heap
// address, or too far from a symbol to be in it).
func TestKallsymsNames(t *testing.T) {
	k := fakeSyms()
	if got := k.caller([]uint64{0x2108, 0x3010, 0x1104, 0x1008}); got != "do_mmap" {
		t.Errorf("caller = %q, want do_mmap", got)
	}
	if got := k.caller([]uint64{0x2108, 0}); got != "_raw_spin_lock" {
		t.Errorf("caller of an all-locking stack = %q, want its last frame", got)
	}
	if got := k.caller(nil); got != "unknown" {
		t.Errorf("caller of no stack = %q", got)
	}
	for a, want := range map[uint64]string{
		0x10000: "jiffies_lock", 0x10008: "jiffies_lock+0x8", 0x10040: "big_table", 0x10040 + 4096: "",
		0x1100: "", 0xffff888000000000: "",
	} {
		if got := k.data(a); got != want {
			t.Errorf("data(%#x) = %q, want %q", a, got, want)
		}
	}
}

// TestAggregateLocks: rows sum per kind, per lock and per caller; only
// the lockTop largest total waits of each are kept, with their average.
func TestAggregateLocks(t *testing.T) {
	rows := []lockAgg{
		{"mmap_lock", "__vm_munmap", "rwsem_write", 10, 1000, 300},
		{"mmap_lock", "vm_mmap_pgoff", "rwsem_write", 5, 500, 400},
		{"mmap_lock", "lock_mm_and_find_vma", "rwsem_read", 2, 20, 15},
	}
	for i := 0; i < 2*lockTop; i++ {
		rows = append(rows, lockAgg{fmt.Sprintf("spinlock@f%02d", i), fmt.Sprintf("f%02d", i), "spinlock", 1, uint64(i + 1), uint64(i + 1)})
	}
	m := aggregateLocks(rows)
	want := map[string]float64{
		"k.lock.rwsem_write.count": 15, "k.lock.rwsem_write.wait": 1500, "k.lock.rwsem_write.max_wait": 400,
		"k.lock.rwsem_read.count": 2, "k.lock.spinlock.count": 2 * lockTop, "k.lock.mutex.count": 0,
		LockContended + "mmap_lock": 17, LockWait + "mmap_lock": 1520, LockMaxWait + "mmap_lock": 400, LockAvgWait + "mmap_lock": 1520.0 / 17,
		LockCallerContended + "__vm_munmap": 10, LockCallerWait + "vm_mmap_pgoff": 500, LockCallerAvgWait + "__vm_munmap": 100,
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	locks, callers := 0, 0
	for k := range m {
		if len(k) > len(LockContended) && k[:len(LockContended)] == LockContended {
			locks++
		}
		if len(k) > len(LockCallerContended) && k[:len(LockCallerContended)] == LockCallerContended {
			callers++
		}
	}
	if locks != lockTop || callers != lockTop {
		t.Errorf("%d locks and %d callers kept, want %d of each", locks, callers, lockTop)
	}
	// The smallest waits are the ones left out.
	if _, ok := m[LockContended+"spinlock@f00"]; ok {
		t.Error("the smallest wait was kept")
	}
	if _, ok := m[LockContended+fmt.Sprintf("spinlock@f%02d", 2*lockTop-1)]; !ok {
		t.Error("the largest spinlock wait was left out")
	}
}
