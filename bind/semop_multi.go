package bind

/*
#include <stdlib.h>
#include "semop_multi.h"
*/
import "C"

import (
	"time"
	"unsafe"
)

// Inject selects failures a test makes a native workload take, to prove its
// cleanup paths (see CT_INJECT_* in native/contend.h). Real runs use 0.
type Inject int

// Injectable failures.
const (
	InjectSemgetENOSPC Inject = C.CT_INJECT_SEMGET_ENOSPC // semget fails with ENOSPC
	InjectForkEAGAIN   Inject = C.CT_INJECT_FORK_EAGAIN   // the middle fork or pthread_create fails with EAGAIN
	// InjectDieAfterSemget kills the process between semget and its
	// report to the parent: the one moment a set has no reported id.
	InjectDieAfterSemget Inject = C.CT_INJECT_DIE_AFTER_SEMGET
)

// SemopMultiParams are the parameters of one semop-multi repetition.
type SemopMultiParams struct {
	Threads  int           // worker threads
	Sems     int           // semaphores in the array
	Duration time.Duration // how long main sleeps
	Pin      bool          // pin thread i to the i-th allowed CPU
	Inject   Inject        // tests only
	SemKey   int           // the set's key, chosen by the parent (internal/ipcown); 0: IPC_PRIVATE
	ReportFD int           // parent's report pipe, -1 for none
}

// SemopMultiResult is what one semop-multi repetition measured.
type SemopMultiResult struct {
	TotalOps       uint64   // sum of PerThread
	PerThread      []uint64 // operations of each thread (2 per loop)
	ElapsedNs      uint64   // release of the gate .. last join, CLOCK_MONOTONIC
	NominalNs      uint64   // the duration main slept
	CPUs           int      // online CPUs, as the original printed
	ThreadsCreated int
	SemID          int // the array's id (removed when SemopMulti returns)
}

// SemopMulti runs one repetition of native/semop_multi.c.
func SemopMulti(p SemopMultiParams) (SemopMultiResult, error) {
	n := max(p.Threads, 1)
	counts := (*C.uint64_t)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.uint64_t(0)))))
	defer C.free(unsafe.Pointer(counts))
	cp := C.struct_ct_semop_multi_params{
		threads:     C.int(p.Threads),
		sems:        C.int(p.Sems),
		duration_ns: C.uint64_t(p.Duration.Nanoseconds()),
		inject:      C.int(p.Inject),
		per_thread:  counts,
		sem_key:     C.int(int32(p.SemKey)),
		report_fd:   C.int(p.ReportFD),
	}
	if p.Pin {
		cp.pin = 1
	}
	var cr C.struct_ct_semop_multi_result
	rc := C.ct_semop_multi_run(&cp, &cr)
	r := SemopMultiResult{
		TotalOps:       uint64(cr.total_ops),
		ElapsedNs:      uint64(cr.elapsed_ns),
		NominalNs:      uint64(cr.nominal_ns),
		CPUs:           int(cr.cpus),
		ThreadsCreated: int(cr.threads_created),
		SemID:          int(cr.semid),
	}
	if rc == 0 {
		for _, c := range unsafe.Slice(counts, p.Threads) {
			r.PerThread = append(r.PerThread, uint64(c))
		}
	}
	return r, statusError("semop-multi", rc, &cr.status)
}
