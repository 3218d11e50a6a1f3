package bind

/*
#include <stdlib.h>
#include "sysbench_mutex.h"
*/
import "C"

import (
	"reflect"
	"syscall"
	"unsafe"
)

// SysbenchRand selects how sysbench-mutex picks a mutex.
type SysbenchRand int32

// Generators of sysbench-mutex.
const (
	RandThread SysbenchRand = C.CT_SBM_RAND_THREAD // per-thread xoroshiro128+ (sysbench 1.0.20)
	RandLibc   SysbenchRand = C.CT_SBM_RAND_LIBC   // glibc rand(), one lock for all (sysbench 0.4)
)

// Choices are the words of --rand.
func (SysbenchRand) Choices() []Choice {
	return []Choice{{"thread", int64(RandThread)}, {"libc", int64(RandLibc)}}
}

// SysbenchMutexParams is struct ct_sbm_params: the parameters of one
// sysbench-mutex repetition, with sysbench's option names and defaults
// (see params.go for the tags).
type SysbenchMutexParams struct {
	Threads    int32        `param:"threads" default:"1" min:"1" max:"1<<22" unit:"threads" usage:"worker threads (sysbench --threads, default 1)"`
	MutexNum   uint32       `param:"mutex-num" default:"4096" min:"1" max:"1<<24" unit:"mutexes" usage:"total size of mutex array (sysbench default 4096)"`
	MutexLocks uint32       `param:"mutex-locks" default:"50000" min:"1" max:"MaxInt32" unit:"locks" usage:"number of mutex locks to do per thread (sysbench default 50000)"`
	MutexLoops uint32       `param:"mutex-loops" default:"10000" max:"MaxInt32" unit:"loops" usage:"number of empty loops to do outside mutex lock (sysbench default 10000)"`
	Rand       SysbenchRand `param:"rand" default:"thread" usage:"mutex pick: thread (per-thread xoroshiro128+, sysbench 1.0.20) or libc (rand(), sysbench 0.4)"`
	Stack      Bytes        `param:"thread-stack-size" default:"64KiB" min:"16KiB" max:"MaxStack" unit:"bytes" usage:"size of stack per thread (sysbench default 64K)"`
	Seed       uint32       `param:"rand-seed" default:"0" unit:"seed" usage:"seed for srandom(); 0 uses the current time (sysbench default)"`
	ThreadNs   *uint64      // out: each thread's event time (set by SysbenchMutex)
	ReportFD   int32        // parent's report pipe, -1 for none
}

func init() {
	registerParams(reflect.TypeOf(SysbenchMutexParams{}), reflect.TypeOf(C.struct_ct_sbm_params{}))
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
	n := max(int(p.Threads), 1)
	buf := (*C.uint64_t)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.uint64_t(0)))))
	if buf == nil {
		return SysbenchMutexResult{}, &Error{Workload: "sysbench-mutex", Call: "calloc", Errno: syscall.ENOMEM, Detail: "for per-thread times"}
	}
	defer C.free(unsafe.Pointer(buf))
	p.ThreadNs = (*uint64)(unsafe.Pointer(buf))
	var cr C.struct_ct_sbm_result
	rc := C.ct_sbm_run((*C.struct_ct_sbm_params)(unsafe.Pointer(&p)), &cr)
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
		r.ThreadNs = append(r.ThreadNs, unsafe.Slice(p.ThreadNs, n)...)
	}
	return r, statusError("sysbench-mutex", rc, &cr.status)
}
