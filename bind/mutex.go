package bind

/*
#include "mutex.h"
*/
import "C"

import (
	"reflect"
	"unsafe"
)

// MutexVariant selects the loop of the mutex test.
type MutexVariant int32

// Variants of the mutex test.
const (
	MutexTrylock MutexVariant = C.CT_MUTEX_TRYLOCK // Mitake: trylock, on EBUSY lock + contended++
	MutexLock    MutexVariant = C.CT_MUTEX_LOCK    // Xiao (inferred): lock
)

// Choices are the words of --variant.
func (MutexVariant) Choices() []Choice {
	return []Choice{{"trylock", int64(MutexTrylock)}, {"lock", int64(MutexLock)}}
}

// MutexParams is struct ct_mutex_params: the parameters of one mutex
// repetition (see params.go for the tags). Threads x Locks must fit in a
// C int.
type MutexParams struct {
	Threads  int32        `param:"threads" default:"1000" min:"1" max:"1<<22" unit:"threads" usage:"threads (original: 1000)"`
	Locks    uint64       `param:"locks" default:"300000" min:"1" max:"MaxInt32" unit:"locks" usage:"lock/unlock pairs per thread (original: 300000)"`
	Stack    Bytes        `param:"stack" default:"32KiB" min:"16KiB" max:"MaxStack" unit:"bytes" usage:"thread stack size (original: 32 KiB)"`
	Variant  MutexVariant `param:"variant" default:"trylock" usage:"trylock (Mitake's mainc.c, counts contention) or lock (Xiao's original)"`
	ReportFD int32        // parent's report pipe, -1 for none
}

func init() {
	registerParams(reflect.TypeOf(MutexParams{}), reflect.TypeOf(C.struct_ct_mutex_params{}))
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
	var cr C.struct_ct_mutex_result
	rc := C.ct_mutex_run((*C.struct_ct_mutex_params)(unsafe.Pointer(&p)), &cr)
	return mutexResult(rc, &cr)
}

// MutexLean returns the bytes of p as struct ct_mutex_params for a lean
// child (native/lean.c), and the function that reads that child's result
// bytes back into a MutexResult.
func MutexLean(p MutexParams) (params []byte, result func(rc int, b []byte) (MutexResult, error)) {
	return leanBytes(&p), func(rc int, b []byte) (MutexResult, error) {
		var cr C.struct_ct_mutex_result
		if err := leanStruct(&cr, b); err != nil {
			return MutexResult{}, err
		}
		return mutexResult(C.int(rc), &cr)
	}
}

func mutexResult(rc C.int, cr *C.struct_ct_mutex_result) (MutexResult, error) {
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

// ThreadStackDefault returns the stack of a thread created with default
// attributes, as faultme's threads are: glibc takes the soft RLIMIT_STACK
// (ulimit -s), or its own default when that is unlimited; 0 when unknown.
func ThreadStackDefault() int64 { return int64(C.ct_thread_stack_default()) }
