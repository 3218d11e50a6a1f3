package bind

/*
#include <stdlib.h>
#include "sysbench_mutex.h"
*/
import "C"

import (
	"syscall"
	"unsafe"
)

// SysbenchRand selects how sysbench-mutex picks a mutex.
type SysbenchRand int

// Generators of sysbench-mutex.
const (
	RandThread SysbenchRand = C.CT_SBM_RAND_THREAD // per-thread xoroshiro128+ (sysbench 1.0.20)
	RandLibc   SysbenchRand = C.CT_SBM_RAND_LIBC   // glibc rand(), one lock for all (sysbench 0.4)
)

// SysbenchMutexParams are the parameters of one sysbench-mutex repetition.
type SysbenchMutexParams struct {
	Threads    int
	MutexNum   uint32 // mutexes in the array
	MutexLocks uint32 // iterations per thread
	MutexLoops uint32 // empty-loop iterations before each lock
	Rand       SysbenchRand
	Stack      uint64 // thread stack size, bytes
	Seed       uint32 // srandom seed, 0 for the time
	ReportFD   int    // parent's report pipe, -1 for none
}

// SysbenchMutexResult is what one sysbench-mutex repetition measured.
type SysbenchMutexResult struct {
	TotalNs        uint64   // start barrier .. last join: sysbench's "total time"
	ThreadNs       []uint64 // each thread's event time: its "execution time"
	GlobalVar      uint64   // the shared counter after the run
	StackActual    uint64   // stack size the first thread got, bytes
	StackErr       error    // pthread_attr_setstacksize's error, nil if accepted
	StackHonoured  bool
	ThreadsCreated int
	Seed           uint32 // the seed used
}

// SysbenchMutex runs one repetition of native/sysbench_mutex.c.
func SysbenchMutex(p SysbenchMutexParams) (SysbenchMutexResult, error) {
	n := max(p.Threads, 1)
	buf := (*C.uint64_t)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.uint64_t(0)))))
	if buf == nil {
		return SysbenchMutexResult{}, &Error{Workload: "sysbench-mutex", Call: "calloc", Errno: syscall.ENOMEM, Detail: "for per-thread times"}
	}
	defer C.free(unsafe.Pointer(buf))
	cp := C.struct_ct_sbm_params{
		threads:     C.int(p.Threads),
		mutex_num:   C.uint32_t(p.MutexNum),
		mutex_locks: C.uint32_t(p.MutexLocks),
		mutex_loops: C.uint32_t(p.MutexLoops),
		rand:        C.int(p.Rand),
		stack:       C.uint64_t(p.Stack),
		seed:        C.uint32_t(p.Seed),
		thread_ns:   buf,
		report_fd:   C.int(p.ReportFD),
	}
	var cr C.struct_ct_sbm_result
	rc := C.ct_sbm_run(&cp, &cr)
	r := SysbenchMutexResult{
		TotalNs:        uint64(cr.total_ns),
		GlobalVar:      uint64(cr.global_var),
		StackActual:    uint64(cr.stack_actual),
		StackErr:       errnoOrNil(cr.stack_err),
		StackHonoured:  cr.stack_honoured != 0,
		ThreadsCreated: int(cr.threads_created),
		Seed:           uint32(cr.seed),
	}
	if rc == 0 {
		r.ThreadNs = append(r.ThreadNs, unsafe.Slice((*uint64)(unsafe.Pointer(buf)), n)...)
	}
	return r, statusError("sysbench-mutex", rc, &cr.status)
}
