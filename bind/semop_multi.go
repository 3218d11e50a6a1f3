package bind

/*
#include <stdlib.h>
#include "semop_multi.h"
*/
import "C"

import (
	"reflect"
	"unsafe"
)

// Inject selects failures a test makes a native workload take, to prove its
// cleanup paths (see CT_INJECT_* in native/contend.h). Real runs use 0.
type Inject int32

// Injectable failures.
const (
	InjectSemgetENOSPC Inject = C.CT_INJECT_SEMGET_ENOSPC // semget fails with ENOSPC
	InjectForkEAGAIN   Inject = C.CT_INJECT_FORK_EAGAIN   // the middle fork or pthread_create fails with EAGAIN
	// InjectDieAfterSemget kills the process between semget and its
	// report to the parent: the one moment a set has no reported id.
	InjectDieAfterSemget Inject = C.CT_INJECT_DIE_AFTER_SEMGET
	// InjectMadviseEINVAL makes faultme's madvise fail with EINVAL, as it
	// does on a kernel built without THP.
	InjectMadviseEINVAL Inject = C.CT_INJECT_MADVISE_EINVAL
	// InjectPinMoved widens the middle pinned worker's CPU mask to every
	// CPU after it was pinned, as a cpuset change would: the runner's
	// check of each worker's mask must fail the run.
	InjectPinMoved Inject = C.CT_INJECT_PIN_MOVED
)

// SemopMultiParams is struct ct_semop_multi_params: the parameters of one
// semop-multi repetition (see params.go for the tags; the defaults of
// --threads and --sems depend on the machine: internal/workload).
type SemopMultiParams struct {
	Threads    int32   `param:"threads" min:"1" max:"1<<22" unit:"threads" usage:"worker threads"`
	Sems       int32   `param:"sems" min:"1" max:"1<<20" unit:"semaphores" usage:"semaphores in the array; thread i uses i mod sems"`
	DurationNs Nanos   `param:"duration" default:"30s" min:"1ms" max:"24h" unit:"ns" usage:"how long main sleeps while the threads run (original: 30 s)"`
	Pin        Bool    `param:"pin" default:"false" usage:"pin thread i to the i-th allowed CPU (mod their count)"`
	Inject     Inject  // tests only
	PerThread  *uint64 // out: each thread's operations (set by SemopMulti)
	SemKey     int32   // the set's key, chosen by the parent (internal/ipcown); 0: IPC_PRIVATE
	ReportFD   int32   // parent's report pipe, -1 for none
}

func init() {
	registerParams(reflect.TypeOf(SemopMultiParams{}), reflect.TypeOf(C.struct_ct_semop_multi_params{}))
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
	n := max(int(p.Threads), 1)
	counts := (*C.uint64_t)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.uint64_t(0)))))
	defer C.free(unsafe.Pointer(counts))
	p.PerThread = (*uint64)(unsafe.Pointer(counts))
	var cr C.struct_ct_semop_multi_result
	rc := C.ct_semop_multi_run((*C.struct_ct_semop_multi_params)(unsafe.Pointer(&p)), &cr)
	r := SemopMultiResult{
		TotalOps:       uint64(cr.total_ops),
		ElapsedNs:      uint64(cr.elapsed_ns),
		NominalNs:      uint64(cr.nominal_ns),
		CPUs:           int(cr.cpus),
		ThreadsCreated: int(cr.threads_created),
		SemID:          int(cr.semid),
	}
	if rc == 0 {
		r.PerThread = append(r.PerThread, unsafe.Slice(p.PerThread, int(p.Threads))...)
	}
	return r, statusError("semop-multi", rc, &cr.status)
}
