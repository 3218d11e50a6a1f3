package bind

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "plugin.h"
*/
import "C"

import (
	"errors"
	"reflect"
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

// Workers says what plugin workers are (C: processes, 0 or 1).
type Workers int32

// Kinds of plugin workers.
const (
	WorkersThreads   Workers = 0 // threads of the child
	WorkersProcesses Workers = 1 // processes forked after contend_setup
)

// Choices are the words of --workers.
func (Workers) Choices() []Choice {
	return []Choice{{"threads", int64(WorkersThreads)}, {"processes", int64(WorkersProcesses)}}
}

// PluginParams is struct ct_plugin_params: the parameters of one plugin
// repetition (see params.go for the tags).
type PluginParams struct {
	SO         CString `param:"so" usage:"the plugin, a shared object (./mytest.so)"` // given to dlopen (with a slash: not searched)
	Threads    int32   `param:"threads" default:"1" min:"1" max:"1<<20" unit:"threads" usage:"workers (threads or processes, see --workers)"`
	Processes  Workers `param:"workers" order:"5" default:"threads" usage:"run the workers as threads or as forked processes (will-it-scale's _threads, _processes)"`
	DurationNs Nanos   `param:"duration" default:"5s" min:"1ms" max:"24h" unit:"ns" usage:"duration mode: how long the workers run"`
	Pin        Bool    `param:"pin" default:"false" usage:"pin worker i to the i-th allowed CPU (modulo)"`
	Inject     Inject  // tests only: InjectForkEAGAIN
	ReportFD   int32
	PerThread  *uint64 // out: each worker's iterations (set by Plugin)
}

func init() {
	registerParams(reflect.TypeOf(PluginParams{}), reflect.TypeOf(C.struct_ct_plugin_params{}))
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
	n := max(int(p.Threads), 1)
	per := (*C.uint64_t)(C.calloc(C.size_t(n), 8))
	defer C.free(unsafe.Pointer(per))
	p.PerThread = (*uint64)(unsafe.Pointer(per))
	var cr C.struct_ct_plugin_result
	rc := C.ct_plugin_run((*C.struct_ct_plugin_params)(unsafe.Pointer(&p)), &cr)
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
	r.PerThread = append([]uint64(nil), unsafe.Slice(p.PerThread, n)[:p.Threads]...)
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
