package bind

import (
	"errors"
	"syscall"
	"testing"
)

func TestMutexCountsAddUp(t *testing.T) {
	const threads, locks = 50, 2000
	for _, v := range []MutexVariant{MutexTrylock, MutexLock} {
		r, err := Mutex(MutexParams{Threads: threads, Locks: locks, Stack: 32 << 10, Variant: v, ReportFD: -1})
		if err != nil {
			t.Fatalf("variant %d: %v", v, err)
		}
		if r.Counter != threads*locks {
			t.Errorf("variant %d: counter %d, want %d", v, r.Counter, threads*locks)
		}
		if r.Contended > threads*locks {
			t.Errorf("variant %d: contended %d > %d", v, r.Contended, threads*locks)
		}
		if v == MutexLock && r.Contended != 0 {
			t.Errorf("lock variant counted %d contended", r.Contended)
		}
		if r.ThreadsCreated != threads {
			t.Errorf("threads created %d", r.ThreadsCreated)
		}
		if r.ThreadsNs == 0 {
			t.Errorf("threads phase took 0 ns")
		}
		// The 32 KiB request is either honoured or the refusal is reported.
		if r.StackHonoured {
			if r.StackErr != nil || r.StackActual < 32<<10 {
				t.Errorf("honoured, but err %v, actual %d", r.StackErr, r.StackActual)
			}
		} else if r.StackErr == nil && r.StackActual >= 32<<10 {
			t.Errorf("not honoured without a reason: err nil, actual %d", r.StackActual)
		}
	}
}

func TestMutexRepeatedCallsResetGlobals(t *testing.T) {
	for i := 0; i < 2; i++ {
		r, err := Mutex(MutexParams{Threads: 3, Locks: 100, Stack: 64 << 10, ReportFD: -1})
		if err != nil {
			t.Fatal(err)
		}
		if r.Counter != 300 {
			t.Errorf("call %d: counter %d, want 300", i, r.Counter)
		}
	}
}

func TestMutexRefusedStackIsReported(t *testing.T) {
	// Below PTHREAD_STACK_MIN: the CLI refuses it; the C side must say
	// so rather than silently use the default.
	r, err := Mutex(MutexParams{Threads: 2, Locks: 10, Stack: 1024, ReportFD: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r.StackHonoured || !errors.Is(r.StackErr, syscall.EINVAL) {
		t.Errorf("1 KiB stack: honoured %v, err %v; want refused with EINVAL", r.StackHonoured, r.StackErr)
	}
	if r.Counter != 20 {
		t.Errorf("counter %d, want 20", r.Counter)
	}
}

func TestMutexBadParams(t *testing.T) {
	_, err := Mutex(MutexParams{Threads: 0, Locks: 1, Stack: 32 << 10, ReportFD: -1})
	var e *Error
	if !errors.As(err, &e) || e.Errno != syscall.EINVAL {
		t.Errorf("threads 0: got %v, want EINVAL", err)
	}
}

func TestThreadStackMin(t *testing.T) {
	if n := ThreadStackMin(); n < 2048 || n > 1<<20 {
		t.Errorf("PTHREAD_STACK_MIN %d is implausible", n)
	}
}
