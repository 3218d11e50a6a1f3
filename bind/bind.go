// Package bind is the Go side of contend's C ABI (native/contend.h): one Go
// function per native workload, taking Go parameter types and returning Go
// result types, with a non-zero errno turned into an *Error.
//
// Each call runs one whole repetition in C: no Go code runs while it is
// timed. The C files here are one-line #includes of native/*.c, so that
// each is its own compilation unit; the blank import of the root package
// makes edits in native/ rebuild this package (see contend.go).
package bind

/*
#cgo CFLAGS: -O2 -Wall -Wextra -Wno-unused-parameter -pthread -I${SRCDIR}/../native
#cgo LDFLAGS: -pthread
#include "contend.h"
*/
import "C"

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	_ "contend" // rebuild when native/ changes
)

// Error is a failure reported by a native workload: the errno and the call
// that returned it, or, with Call "worker", a worker process that died.
type Error struct {
	Workload string        // for example "faultme"
	Call     string        // the failing call, for example "mmap"
	Errno    syscall.Errno // the error number the call returned
	Detail   string        // what the call was doing, in words
}

func (e *Error) Error() string {
	if e.Call == "worker" && e.Detail != "" {
		// A worker process died (killed by a signal, exited early): no
		// call failed, and the errno (ECHILD) is only the native code's
		// marker for it; the detail says it all.
		return fmt.Sprintf("%s: worker %s", e.Workload, e.Detail)
	}
	s := fmt.Sprintf("%s: %s failed: %s (%s)", e.Workload, e.Call, ErrnoName(e.Errno), e.Errno.Error())
	if e.Detail != "" {
		s = fmt.Sprintf("%s: %s %s failed: %s (%s)", e.Workload, e.Call, e.Detail, ErrnoName(e.Errno), e.Errno.Error())
	}
	return s
}

// Unwrap lets errors.Is(err, syscall.ENOMEM) work.
func (e *Error) Unwrap() error { return e.Errno }

// ErrnoName returns the symbolic name of an errno, such as "ENOMEM".
func ErrnoName(e syscall.Errno) string {
	if n := unix.ErrnoName(e); n != "" {
		return n
	}
	return fmt.Sprintf("errno %d", int(e))
}

func statusError(workload string, rc C.int, st *C.struct_ct_status) error {
	if rc == 0 {
		return nil
	}
	return &Error{
		Workload: workload,
		Call:     C.GoString(&st.call[0]),
		Errno:    syscall.Errno(rc),
		Detail:   C.GoString(&st.detail[0]),
	}
}

// CCVersion returns the version of the C compiler that built native/.
func CCVersion() string { return C.GoString(C.ct_cc_version()) }

// CCFlags returns the effective settings native/ was compiled with, as the
// compiler's predefined macros show them (optimisation level first), then
// the compiler version: what CGO_CFLAGS really did, not what it said.
func CCFlags() string { return C.GoString(C.ct_cc_flags()) }

// LaunchArg is argv[1] of the launcher of external programs
// (native/launch.c): a C constructor runs it before the Go runtime starts.
const LaunchArg = "__launch"

// LeanArg is argv[1] of a lean repetition child (native/lean.c): `contend
// __lean NAME PARAMS-HEX` runs the workload's C from a constructor before
// the Go runtime starts, and reports "lean RC RESULT-HEX".
const LeanArg = "__lean"

// leanBytes returns the bytes of a parameter struct whose layout is its C
// struct's (registerParams checks it), for a lean child.
func leanBytes[T any](p *T) []byte {
	return append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(p)), unsafe.Sizeof(*p))...)
}

// leanStruct fills a C result struct from the bytes a lean child reported.
func leanStruct[T any](dst *T, b []byte) error {
	if n := int(unsafe.Sizeof(*dst)); len(b) != n {
		return fmt.Errorf("the lean child's result has %d bytes, not the %d of its C struct: a child of another contend build?", len(b), n)
	}
	copy(unsafe.Slice((*byte)(unsafe.Pointer(dst)), len(b)), b)
	return nil
}

func errnoOrNil(e C.int) error {
	if e == 0 {
		return nil
	}
	return syscall.Errno(e)
}
