package bind

import (
	"errors"
	"syscall"
	"testing"
)

func TestFaultmeCountsAddUp(t *testing.T) {
	const mem = 8 << 20
	for _, threads := range []int{1, 3, 7} {
		r, err := Faultme(FaultmeParams{Threads: int32(threads), Mem: mem, Stride: 4096, THP: THPNever, ReportFD: -1})
		if err != nil {
			t.Fatal(err)
		}
		if r.PagesTouched != mem/4096 {
			t.Errorf("threads=%d: pages touched %d, want %d", threads, r.PagesTouched, mem/4096)
		}
		if r.ThreadsCreated != threads {
			t.Errorf("threads created %d, want %d", r.ThreadsCreated, threads)
		}
		if r.ElapsedNs == 0 {
			t.Errorf("elapsed 0")
		}
		// Every page is read once: at least one minor fault per page
		// (fresh mapping, 4 KiB pages forced by MADV_NOHUGEPAGE).
		if r.MinFlt < mem/4096 {
			t.Errorf("threads=%d: %d minor faults for %d pages: the reads did not fault", threads, r.MinFlt, mem/4096)
		}
	}
}

func TestFaultmeOddStride(t *testing.T) {
	// ceil(mem/stride) pages when stride does not divide mem.
	r, err := Faultme(FaultmeParams{Threads: 4, Mem: 1<<20 + 1, Stride: 8192, THP: THPLeave, ReportFD: -1})
	if err != nil {
		t.Fatal(err)
	}
	if want := uint64((1<<20 + 1 + 8191) / 8192); r.PagesTouched != want {
		t.Errorf("pages touched %d, want %d", r.PagesTouched, want)
	}
}

func TestFaultmeMmapFailureNamesCall(t *testing.T) {
	_, err := Faultme(FaultmeParams{Threads: 1, Mem: 1 << 62, Stride: 4096, ReportFD: -1})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want *bind.Error", err)
	}
	if e.Call != "mmap" || !errors.Is(err, syscall.ENOMEM) {
		t.Errorf("got call %q errno %v, want mmap ENOMEM; message %q", e.Call, e.Errno, err)
	}
}

// TestFaultmeTHPNeverEINVAL: MADV_NOHUGEPAGE failing with EINVAL (as on a
// kernel without THP; injected) does not fail --thp never: the run goes on
// and says so. MADV_HUGEPAGE failing so is a failure, naming the call.
func TestFaultmeTHPNeverEINVAL(t *testing.T) {
	r, err := Faultme(FaultmeParams{Threads: 2, Mem: 1 << 20, Stride: 4096, THP: THPNever, ReportFD: -1, Inject: InjectMadviseEINVAL})
	if err != nil {
		t.Fatalf("--thp never with EINVAL: %v", err)
	}
	if !r.THPEINVAL || r.PagesTouched != 256 {
		t.Errorf("THPEINVAL %v, pages %d: want true, 256", r.THPEINVAL, r.PagesTouched)
	}
	r, err = Faultme(FaultmeParams{Threads: 2, Mem: 1 << 20, Stride: 4096, THP: THPNever, ReportFD: -1})
	if err != nil || r.THPEINVAL {
		t.Errorf("a real MADV_NOHUGEPAGE here: %v, THPEINVAL %v", err, r.THPEINVAL)
	}
	_, err = Faultme(FaultmeParams{Threads: 2, Mem: 1 << 20, Stride: 4096, THP: THPHuge, ReportFD: -1, Inject: InjectMadviseEINVAL})
	var e *Error
	if !errors.As(err, &e) || e.Call != "madvise" || !errors.Is(err, syscall.EINVAL) {
		t.Errorf("--thp huge with EINVAL: %v, want madvise EINVAL", err)
	}
}
