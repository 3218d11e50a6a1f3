package bind

/*
#include "mutex.h"
*/
import "C"

// MutexVariant selects the loop of the mutex test.
type MutexVariant int

// Variants of the mutex test.
const (
	MutexTrylock MutexVariant = C.CT_MUTEX_TRYLOCK // Mitake: trylock, on EBUSY lock + contended++
	MutexLock    MutexVariant = C.CT_MUTEX_LOCK    // Xiao (inferred): lock
)

// MutexParams are the parameters of one mutex repetition.
type MutexParams struct {
	Threads  int    // worker threads
	Locks    uint64 // lock/unlock pairs per thread; Threads x Locks fits in a C int
	Stack    uint64 // requested thread stack size, bytes
	Variant  MutexVariant
	ReportFD int // parent's report pipe, -1 for none
}

// MutexResult is what one mutex repetition measured.
type MutexResult struct {
	ThreadsNs      uint64 // gate unlock .. last join, CLOCK_MONOTONIC
	Counter        uint64 // the plain counter: Threads x Locks after a real run
	Contended      uint64 // trylock returned EBUSY (trylock variant; 0 otherwise)
	StackActual    uint64 // stack size the first thread got, bytes
	StackErr       error  // pthread_attr_setstacksize's error, nil if accepted
	StackHonoured  bool   // the threads ran on the requested stack size
	ThreadsCreated int
}

// Mutex runs one repetition of native/mutex.c.
func Mutex(p MutexParams) (MutexResult, error) {
	cp := C.struct_ct_mutex_params{
		threads:   C.int(p.Threads),
		locks:     C.uint64_t(p.Locks),
		stack:     C.uint64_t(p.Stack),
		variant:   C.int(p.Variant),
		report_fd: C.int(p.ReportFD),
	}
	var cr C.struct_ct_mutex_result
	rc := C.ct_mutex_run(&cp, &cr)
	r := MutexResult{
		ThreadsNs:      uint64(cr.threads_ns),
		Counter:        uint64(cr.counter),
		Contended:      uint64(cr.contended),
		StackActual:    uint64(cr.stack_actual),
		StackErr:       errnoOrNil(cr.stack_err),
		StackHonoured:  cr.stack_honoured != 0,
		ThreadsCreated: int(cr.threads_created),
	}
	return r, statusError("mutex", rc, &cr.status)
}

// ThreadStackMin returns the smallest thread stack pthread accepts here
// (sysconf(_SC_THREAD_STACK_MIN), PTHREAD_STACK_MIN).
func ThreadStackMin() int64 { return int64(C.ct_thread_stack_min()) }
