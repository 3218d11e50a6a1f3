package bind

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"contend/internal/cpuset"
)

// The duration runner (native/duration.c) through its probe workers: every
// worker runs and is counted, the stop flag ends a duration run, a worker's
// error is reported by worker, and no two workers' counters share a line or
// a pair of lines.

func TestDurationRunnerCountsEveryWorker(t *testing.T) {
	// Each probe worker counts one before it looks at the stop flag, so
	// that one scheduled only after the 300 ms (a loaded machine) counts.
	r, err := durationProbe(durationProbeParams{Threads: 4, DurationNs: 300e6, FailWorker: -1})
	if err != nil {
		t.Fatal(err)
	}
	var sum uint64
	for i, n := range r.PerThread {
		if n == 0 {
			t.Errorf("worker %d counted nothing: %v", i, r.PerThread)
		}
		sum += n
	}
	if r.Started != 4 || len(r.PerThread) != 4 || sum != r.Total {
		t.Errorf("started %d, counts %v, total %d", r.Started, r.PerThread, r.Total)
	}
	// Every worker returned because the runner set the stop flag, after
	// the duration.
	if r.Stopped != 4 || r.ElapsedNs < 300e6 || r.JoinedNs < r.ElapsedNs {
		t.Errorf("stopped %d of 4, elapsed %d ns, joined %d ns (want >= 300 ms, joined >= elapsed)", r.Stopped, r.ElapsedNs, r.JoinedNs)
	}
	for i, c := range r.CPU {
		if c != -1 {
			t.Errorf("worker %d was given CPU %d without pinning", i, c)
		}
	}
}

// TestDurationRunnerPreparesBeforeTheGate: every worker's setup (prepare)
// is done when the first worker's work begins, so that no setup is inside
// the timed region (plugin thread mode set up each worker's struct
// contend_thread after the gate).
func TestDurationRunnerPreparesBeforeTheGate(t *testing.T) {
	for _, dur := range []uint64{0, 50e6} {
		r, err := durationProbe(durationProbeParams{Threads: 8, DurationNs: dur, FailWorker: -1})
		if err != nil {
			t.Fatal(err)
		}
		for i, n := range r.Prepared {
			if n != 8 {
				t.Errorf("duration %d ns: worker %d began with %d of 8 workers prepared: %v", dur, i, n, r.Prepared)
				break
			}
		}
	}
}

// With no duration the stop flag is set from the start and the runner waits
// for the workers to return (a plugin's fixed mode).
func TestDurationRunnerNoDuration(t *testing.T) {
	r, err := durationProbe(durationProbeParams{Threads: 3, FailWorker: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Total != 3000 || r.Stopped != 3 || r.ElapsedNs == 0 {
		t.Errorf("total %d (want 3000), stopped %d (want 3), elapsed %d", r.Total, r.Stopped, r.ElapsedNs)
	}
	for i, n := range r.PerThread {
		if n != 1000 {
			t.Errorf("worker %d counted %d, want 1000", i, n)
		}
	}
}

func TestDurationRunnerWorkerError(t *testing.T) {
	r, err := durationProbe(durationProbeParams{Threads: 3, DurationNs: 100e6, FailWorker: 1, FailErrno: int(syscall.EIDRM)})
	var e *Error
	if !errors.As(err, &e) || e.Call != "probe" || e.Detail != "by worker 2 of 3" || !errors.Is(err, syscall.EIDRM) {
		t.Fatalf("error %v, want probe by worker 2 of 3 failing with EIDRM", err)
	}
	// The others ran until stopped and were counted.
	if r.Started != 3 || r.Stopped != 2 || r.PerThread[1] != 0 || r.Total != r.PerThread[0]+r.PerThread[2] {
		t.Errorf("started %d, stopped %d, counts %v, total %d", r.Started, r.Stopped, r.PerThread, r.Total)
	}
}

// TestDurationRunnerSlotStride checks that the workers' slots are CT_SLOT
// apart and aligned, so that no two workers, nor a worker and the stop
// flag, share a 64-byte line or a 128-byte pair of lines (the adjacent-line
// prefetcher's unit).
func TestDurationRunnerSlotStride(t *testing.T) {
	const pair = 128
	r, err := durationProbe(durationProbeParams{Threads: 8, FailWorker: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r.SlotBytes != DurationSlotBytes || r.SlotBytes%pair != 0 {
		t.Fatalf("slot %d bytes, want CT_SLOT %d, a multiple of %d", r.SlotBytes, DurationSlotBytes, pair)
	}
	for i, a := range r.SlotAddr {
		if a == 0 || a%uint64(r.SlotBytes) != 0 {
			t.Errorf("worker %d's slot %#x is not aligned to %d bytes", i, a, r.SlotBytes)
		}
		if i > 0 && a-r.SlotAddr[i-1] != uint64(r.SlotBytes) {
			t.Errorf("workers %d and %d: slots %#x and %#x, want a stride of %d", i-1, i, r.SlotAddr[i-1], a, r.SlotBytes)
		}
	}
	// Which worker (-1: the stop flag) uses each pair of lines, from the
	// first to the last byte of its counters.
	owner := map[uint64]int{r.StopAddr / pair: -1}
	for i, a := range r.SlotAddr {
		for b := a / pair; b <= (a+durationSlotUsed-1)/pair; b++ {
			if o, ok := owner[b]; ok && o != i {
				t.Errorf("worker %d shares the %d-byte pair of lines at %#x with %d (-1: the stop flag)", i, pair, b*pair, o)
			}
			owner[b] = i
		}
	}
}

func TestDurationRunnerPins(t *testing.T) {
	allowed, err := cpuset.Affinity(0)
	if err != nil {
		t.Skip(err)
	}
	r, err := durationProbe(durationProbeParams{Threads: 3, DurationNs: 300e6, Pin: true, FailWorker: -1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if want := allowed[i%len(allowed)]; r.CPU[i] != want || r.RanOn[i] != want {
			t.Errorf("worker %d given CPU %d, ran on %d; want %d", i, r.CPU[i], r.RanOn[i], want)
		}
	}
}

// TestDurationRunnerChecksPinning: each pinned worker reads its mask
// back; a worker whose mask is not the one CPU it was pinned to (widened
// to every CPU after pinning, as a cpuset change would) fails the run,
// naming the worker and the CPU.
func TestDurationRunnerChecksPinning(t *testing.T) {
	allowed, err := cpuset.Affinity(0)
	if err != nil || len(allowed) < 2 {
		t.Skipf("needs 2 allowed CPUs: %v %v", allowed, err)
	}
	_, err = durationProbe(durationProbeParams{Threads: 4, DurationNs: 50e6, Pin: true, Inject: InjectPinMoved, FailWorker: -1})
	want := fmt.Sprintf("worker 3 of 4 was pinned to CPU %d but its mask holds other CPUs", allowed[2%len(allowed)])
	if err == nil || !errors.Is(err, syscall.EINVAL) || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want EINVAL and %q", err, want)
	}
	if _, err := durationProbe(durationProbeParams{Threads: 4, DurationNs: 50e6, Pin: false, Inject: InjectPinMoved, FailWorker: -1}); err != nil {
		t.Errorf("unpinned: %v", err)
	}
}

// A failed pthread_create releases the threads created straight into a
// return: their work never runs, and the runner does not sleep the hour.
func TestDurationRunnerStartFailure(t *testing.T) {
	r, err := durationProbe(durationProbeParams{Threads: 4, DurationNs: 3600e9, Inject: InjectForkEAGAIN, FailWorker: -1})
	if err == nil || !errors.Is(err, syscall.EAGAIN) ||
		!strings.Contains(err.Error(), "pthread_create of thread 3 of 4 (2 created; raise ulimit -u, kernel.threads-max") {
		t.Errorf("error %v, want pthread_create EAGAIN of thread 3 of 4", err)
	}
	if r.Started != 2 || r.Total != 0 || r.SlotAddr[0] != 0 || r.SlotAddr[1] != 0 || r.ElapsedNs != 0 {
		t.Errorf("started %d (want 2), total %d, slots %v (work must not run), elapsed %d", r.Started, r.Total, r.SlotAddr, r.ElapsedNs)
	}
	if _, err := durationProbe(durationProbeParams{Threads: 0, FailWorker: -1}); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("no threads: %v, want EINVAL", err)
	}
}
