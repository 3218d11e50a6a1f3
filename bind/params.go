package bind

/*
#include <stdlib.h>
*/
import "C"

import (
	"sync"
	"time"
)

// Parameter structs: each workload's parameters are one Go struct in this
// package (FaultmeParams, OsimParams, ...), field for field the C struct its
// run takes (native/NAME.h): same order, offsets, sizes and names (modulo
// case and underscores). TestParamLayouts checks every field against cgo's
// view of the C struct; the struct is passed to C by pointer, so there is
// no conversion to keep in step. A field that is a user's parameter says
// so in tags, which internal/workload reads once, at init, to build the
// flags, validation, `contend help`, sweeps and result-file params:
//
//	param:"NAME"     the flag's name, without dashes
//	usage:"TEXT"     one line for --help and `contend help WORKLOAD`
//	default:"TEXT"   the original's default, as a user would type it
//	min:"X" max:"X"  inclusive bounds in the kind's syntax (4096, 16KiB,
//	                 1ms, 1<<22, MaxInt32); min defaults to 0, max to
//	                 the largest value of the field's type
//	unit:"WORD"      what a number counts ("threads", "bytes", "ns")
//	order:"N"        list the parameter N-th, where the C order is not
//	                 the original's order
//
// A parameter's kind is its field's Go type: Bytes is a size, Nanos a
// duration, Bool a flag, CString a text, a type with a Choices method an
// enumeration (the choice's Value is what C gets), any other integer a
// count. Fields without a param tag (ReportFD, SemKey, Inject,
// out-buffers) are set by the workload's run, not by the user.

// Bytes is a size in bytes (a C uint64_t).
type Bytes uint64

// Nanos is a duration in nanoseconds (a C uint64_t).
type Nanos uint64

// Duration returns n as a time.Duration.
func (n Nanos) Duration() time.Duration { return time.Duration(n) }

// Bool is a C int that is 0 or 1.
type Bool int32

// BoolOf returns b as a C truth value.
func BoolOf(b bool) Bool {
	if b {
		return 1
	}
	return 0
}

// True tells whether b is not 0.
func (b Bool) True() bool { return b != 0 }

// Choice is one value of an enumerated parameter: the word a user types
// and the value C receives.
type Choice struct {
	Name  string
	Value int64
}

// Enum is implemented by the types of enumerated parameters: Choices lists
// the words in the order help prints them.
type Enum interface{ Choices() []Choice }

// CString is a C string (const char *) in a parameter struct. Its text is
// in C memory, allocated once per distinct text and process (CStringOf), so
// that a parameter struct holding one may be passed to C and copied freely.
type CString struct{ p *C.char }

var cstrings = struct {
	sync.Mutex
	m map[string]*C.char
}{m: map[string]*C.char{}}

// CStringOf returns the C string of s. Texts are interned: a process
// allocates each distinct text once and never frees it (parameters take a
// handful of texts).
func CStringOf(s string) CString {
	cstrings.Lock()
	defer cstrings.Unlock()
	p, ok := cstrings.m[s]
	if !ok {
		p = C.CString(s)
		cstrings.m[s] = p
	}
	return CString{p}
}

// String returns the text of s ("" for a nil string).
func (s CString) String() string {
	if s.p == nil {
		return ""
	}
	return C.GoString(s.p)
}
