package bind

import "testing"

func TestSysbenchMutexCountsAddUp(t *testing.T) {
	const threads, locks = 4, 2000
	for _, rnd := range []SysbenchRand{RandThread, RandLibc} {
		for _, num := range []uint32{1, 4096} {
			r, err := SysbenchMutex(SysbenchMutexParams{Threads: threads, MutexNum: num, MutexLocks: locks,
				MutexLoops: 100, Rand: rnd, Stack: 64 << 10, ReportFD: -1})
			if err != nil {
				t.Fatalf("rand %d num %d: %v", rnd, num, err)
			}
			// With one mutex every increment is under the same lock;
			// with many the shared ++ races and may lose some.
			if num == 1 && r.GlobalVar != threads*locks {
				t.Errorf("rand %d num 1: global_var %d, want %d", rnd, r.GlobalVar, threads*locks)
			}
			if r.GlobalVar > threads*locks || r.GlobalVar == 0 {
				t.Errorf("rand %d num %d: global_var %d out of (0, %d]", rnd, num, r.GlobalVar, threads*locks)
			}
			if len(r.ThreadNs) != threads || r.ThreadsCreated != threads {
				t.Fatalf("per-thread times %d, created %d", len(r.ThreadNs), r.ThreadsCreated)
			}
			for i, ns := range r.ThreadNs {
				if ns == 0 || ns > r.TotalNs {
					t.Errorf("thread %d: %d ns, total %d ns", i, ns, r.TotalNs)
				}
			}
			if !r.StackHonoured && r.StackErr == nil && r.StackActual >= 64<<10 {
				t.Errorf("stack not honoured without a reason")
			}
			if r.Seed == 0 {
				t.Errorf("seed 0 recorded: the time seed was not taken")
			}
		}
	}
}

func TestSysbenchMutexZeroLoopsAndSeed(t *testing.T) {
	r, err := SysbenchMutex(SysbenchMutexParams{Threads: 2, MutexNum: 7, MutexLocks: 100, MutexLoops: 0, Stack: 64 << 10, Seed: 42, ReportFD: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Seed != 42 {
		t.Errorf("seed %d, want 42", r.Seed)
	}
}
