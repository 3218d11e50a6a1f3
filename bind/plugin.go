package bind

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "plugin.h"
*/
import "C"

import (
	"errors"
	"syscall"
	"unsafe"
)

// Plugin modes (native/contend_plugin.h).
const (
	PluginDuration = C.CONTEND_DURATION
	PluginFixed    = C.CONTEND_FIXED
	// PluginABI is the plugin ABI version this contend runs.
	PluginABI = C.CONTEND_PLUGIN_ABI
	// PluginMaxCounters is the number of extra counters a plugin may name.
	PluginMaxCounters = C.CONTEND_MAX_COUNTERS
)

// PluginParams are the parameters of one plugin repetition.
type PluginParams struct {
	SO         string // path given to dlopen (with a slash: not searched)
	Threads    int    // workers: threads, or processes with Processes
	Processes  bool   // fork worker processes instead of creating threads
	DurationNs uint64 // duration mode
	Pin        bool
	Inject     Inject // tests only: InjectForkEAGAIN
	ReportFD   int
}

// PluginResult is what one plugin repetition measured.
type PluginResult struct {
	Mode           int
	Description    string
	ElapsedNs      uint64
	Iterations     uint64
	PerThread      []uint64
	Counters       []string // names of the extra counters
	CounterTotals  []uint64
	WorkersStarted int // threads created or processes forked
}

// Plugin loads the plugin at p.SO and runs one repetition of it
// (native/plugin.c). Missing symbols and a wrong ABI version are errors
// that say so; a plugin crashing in a thread kills the calling process with
// its signal, one crashing in a worker process is an error naming the
// signal (the other workers are killed and reaped).
func Plugin(p PluginParams) (PluginResult, error) {
	cso := C.CString(p.SO)
	defer C.free(unsafe.Pointer(cso))
	n := max(p.Threads, 1)
	per := (*C.uint64_t)(C.calloc(C.size_t(n), 8))
	defer C.free(unsafe.Pointer(per))
	pin, procs := 0, 0
	if p.Pin {
		pin = 1
	}
	if p.Processes {
		procs = 1
	}
	cp := C.struct_ct_plugin_params{
		so:          cso,
		threads:     C.int(p.Threads),
		processes:   C.int(procs),
		duration_ns: C.uint64_t(p.DurationNs),
		pin:         C.int(pin),
		inject:      C.int(p.Inject),
		report_fd:   C.int(p.ReportFD),
		per_thread:  per,
	}
	var cr C.struct_ct_plugin_result
	rc := C.ct_plugin_run(&cp, &cr)
	r := PluginResult{
		Mode:           int(cr.mode),
		Description:    C.GoString(&cr.description[0]),
		ElapsedNs:      uint64(cr.elapsed_ns),
		Iterations:     uint64(cr.iterations),
		WorkersStarted: int(cr.workers_started),
	}
	if rc != 0 {
		err := statusError("plugin", rc, &cr.status)
		var be *Error
		if errors.As(err, &be) && be.Call == "dlopen" {
			return r, &dlopenError{be.Detail, be.Errno}
		}
		if errors.As(err, &be) && (be.Call == "plugin" || be.Call == "worker") {
			// The detail says it all; errno adds nothing.
			return r, errors.New("plugin: " + be.Detail)
		}
		return r, err
	}
	pt := unsafe.Slice((*uint64)(unsafe.Pointer(per)), n)
	r.PerThread = append([]uint64(nil), pt[:p.Threads]...)
	for i := 0; i < int(cr.ncounters); i++ {
		r.Counters = append(r.Counters, C.GoString(&cr.counter_names[i][0]))
		r.CounterTotals = append(r.CounterTotals, uint64(cr.counters[i]))
	}
	return r, nil
}

// dlopenError is a failed dlopen: dlerror()'s text, and the errno that
// fits it (ENOENT, EACCES, ENOEXEC; see plugin_dlopen_errno), for
// errors.Is.
type dlopenError struct {
	detail string
	errno  syscall.Errno
}

func (e *dlopenError) Error() string {
	return "plugin: " + e.detail + " (dlopen: " + ErrnoName(e.errno) + ")"
}

func (e *dlopenError) Unwrap() error { return e.errno }
