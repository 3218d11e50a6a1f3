package bind

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "wis.h"
*/
import "C"

import (
	"errors"
	"reflect"
	"unsafe"
)

// WisMode says what will-it-scale's tasks are (C: processes, 0 or 1).
type WisMode int32

// Modes of will-it-scale tasks (its _threads and _processes builds).
const (
	WisThread  WisMode = 0
	WisProcess WisMode = 1
)

// Choices are the words of --mode.
func (WisMode) Choices() []Choice {
	return []Choice{{"thread", int64(WisThread)}, {"process", int64(WisProcess)}}
}

// WisParams is struct ct_wis_params: one repetition of a will-it-scale
// test (see params.go for the tags). SO, the compiled test, is set by the
// workload's run.
type WisParams struct {
	Test       CString `param:"test" usage:"the will-it-scale test, a C file (tests/futex4.c), compiled at run time"`
	Tasks      int32   `param:"tasks" min:"1" max:"1<<16" unit:"tasks" usage:"tasks counted (will-it-scale's -t): threads or processes, see --mode"`
	Mode       WisMode `param:"mode" order:"2" default:"thread" usage:"run the tasks as threads or as forked processes (will-it-scale's _threads, _processes)"`
	DurationNs Nanos   `param:"duration" default:"5s" min:"100ms" max:"24h" unit:"ns" usage:"the measured interval (will-it-scale's -s seconds)"`
	WarmupNs   Nanos   `param:"warmup-time" default:"1s" min:"10ms" max:"1h" unit:"ns" usage:"the tasks run this long before the measured interval (will-it-scale: 6 s)"`
	Pin        Bool    `param:"pin" default:"true" usage:"pin task i to the i-th allowed CPU, modulo (will-it-scale's default; false is its -n)"`
	ReportFD   int32
	JoinS      int32   // the leader's wait for cancelled task threads, s (0: CT_WIS_JOIN_S, 10)
	SO         CString // thread mode: the compiled test, a shared object read for its description (set by the workload's run)
	Exe        CString // the compiled leader, an executable that runs the tasks (set by the workload's run)
	PerTask    *uint64 // out: each task's count in the interval (set by Wis)
}

func init() {
	registerParams(reflect.TypeOf(WisParams{}), reflect.TypeOf(C.struct_ct_wis_params{}))
}

// WisResult is what one repetition of a will-it-scale test measured.
type WisResult struct {
	Description string
	ElapsedNs   uint64
	Iterations  uint64
	PerTask     []uint64
	ExtraTasks  int
	// LateTeardown: a cancelled task thread did not end within this
	// many seconds (0: every task ended); the counts, taken before the
	// stop, stand.
	LateTeardown int
}

// Wis loads the compiled test at p.SO and runs one repetition of it
// (native/wis.c).
func Wis(p WisParams) (WisResult, error) {
	n := max(int(p.Tasks), 1)
	per := (*C.uint64_t)(C.calloc(C.size_t(n), 8))
	defer C.free(unsafe.Pointer(per))
	p.PerTask = (*uint64)(unsafe.Pointer(per))
	var cr C.struct_ct_wis_result
	rc := C.ct_wis_run((*C.struct_ct_wis_params)(unsafe.Pointer(&p)), &cr)
	r := WisResult{
		Description:  C.GoString(&cr.description[0]),
		ElapsedNs:    uint64(cr.elapsed_ns),
		Iterations:   uint64(cr.iterations),
		ExtraTasks:   int(cr.extra_tasks),
		LateTeardown: int(cr.late_teardown),
	}
	if rc != 0 {
		err := statusError("wis", rc, &cr.status)
		var be *Error
		if errors.As(err, &be) && (be.Call == "wis" || be.Call == "task" || be.Call == "dlopen") {
			return r, errors.New("wis: " + be.Detail)
		}
		return r, err
	}
	r.PerTask = append([]uint64(nil), unsafe.Slice(p.PerTask, n)[:p.Tasks]...)
	return r, nil
}
