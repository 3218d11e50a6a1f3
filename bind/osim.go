package bind

/*
#include "osim.h"
*/
import "C"

import (
	"reflect"
	"unsafe"
)

// OsimParams is struct ct_osim_params: the parameters of one osim
// repetition, in the original's argument order (see params.go for the
// tags).
type OsimParams struct {
	Sems     int32  `param:"sems" default:"64" min:"1" max:"1<<20" unit:"semaphores" usage:"lock semaphores; worker i uses i mod sems (array: sems+1)"`
	Tasks    int32  `param:"tasks" default:"256" min:"1" max:"1<<22" unit:"processes" usage:"worker processes"`
	Loops    int32  `param:"loops" default:"1000000" min:"1" unit:"loops" usage:"lock/unlock loops of all tasks together (ceil per task)"`
	BusyIn   int32  `param:"busy-in" default:"0" unit:"increments" usage:"volatile increments inside the critical section"`
	BusyOut  int32  `param:"busy-out" default:"0" unit:"increments" usage:"volatile increments outside the critical section"`
	Inject   Inject // tests only
	SemKey   int32  // the set's key, chosen by the parent (internal/ipcown); 0: IPC_PRIVATE
	ReportFD int32  // parent's report pipe, -1 for none
}

func init() { registerParams(reflect.TypeOf(OsimParams{}), reflect.TypeOf(C.struct_ct_osim_params{})) }

// OsimResult is what one osim repetition measured.
type OsimResult struct {
	LoopsPerTask     int    // ceil(Loops / Tasks)
	TotalLoops       int64  // Tasks * LoopsPerTask
	ElapsedNs        uint64 // just before SETALL .. wait-for-zero returned, CLOCK_MONOTONIC
	NVCSw, NIVCSw    uint64 // voluntary and involuntary context switches of all workers
	UTimeNs, STimeNs uint64 // user and system CPU time of all workers
	TasksForked      int
	SemID            int // the array's id (removed when Osim returns)
}

// Osim runs one repetition of native/osim.c. It forks Tasks worker
// processes that run only C.
func Osim(p OsimParams) (OsimResult, error) {
	var cr C.struct_ct_osim_result
	rc := C.ct_osim_run((*C.struct_ct_osim_params)(unsafe.Pointer(&p)), &cr)
	return osimResult(rc, &cr)
}

// OsimLean returns the bytes of p as struct ct_osim_params for a lean
// child (native/lean.c, which sets the report pipe, the set's key and a
// test's injection itself), and the function that reads that child's
// result bytes back into an OsimResult.
func OsimLean(p OsimParams) (params []byte, result func(rc int, b []byte) (OsimResult, error)) {
	return leanBytes(&p), func(rc int, b []byte) (OsimResult, error) {
		var cr C.struct_ct_osim_result
		if err := leanStruct(&cr, b); err != nil {
			return OsimResult{}, err
		}
		return osimResult(C.int(rc), &cr)
	}
}

func osimResult(rc C.int, cr *C.struct_ct_osim_result) (OsimResult, error) {
	r := OsimResult{
		LoopsPerTask: int(cr.loops_per_task),
		TotalLoops:   int64(cr.total_loops),
		ElapsedNs:    uint64(cr.elapsed_ns),
		NVCSw:        uint64(cr.nvcsw),
		NIVCSw:       uint64(cr.nivcsw),
		UTimeNs:      uint64(cr.utime_ns),
		STimeNs:      uint64(cr.stime_ns),
		TasksForked:  int(cr.tasks_forked),
		SemID:        int(cr.semid),
	}
	return r, statusError("osim", rc, &cr.status)
}
