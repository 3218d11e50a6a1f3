package bind

/*
#include "faultme.h"
*/
import "C"

import (
	"reflect"
	"unsafe"
)

// THP selects what faultme does about transparent huge pages.
type THP int32

// THP modes of faultme.
const (
	THPLeave THP = C.CT_THP_LEAVE // no madvise: the system setting decides
	THPNever THP = C.CT_THP_NEVER // MADV_NOHUGEPAGE: 4 KiB faults
	THPHuge  THP = C.CT_THP_HUGE  // MADV_HUGEPAGE: one fault per 2 MiB
)

// Choices are the words of --thp.
func (THP) Choices() []Choice {
	return []Choice{{"leave", int64(THPLeave)}, {"never", int64(THPNever)}, {"huge", int64(THPHuge)}}
}

// FaultmeParams is struct ct_faultme_params: the parameters of one faultme
// repetition (see params.go for the tags).
type FaultmeParams struct {
	Threads  int32  `param:"threads" default:"400" min:"1" max:"1<<22" unit:"threads" usage:"reader threads (original: 400)"`
	Mem      Bytes  `param:"mem" default:"10GiB" min:"1" max:"UserSpace" unit:"bytes" usage:"bytes to map and read (original: 10 GiB)"`
	Stride   Bytes  `param:"stride" default:"4096" min:"1" max:"UserSpace" unit:"bytes" usage:"bytes between reads (original: 4096, any page size)"`
	THP      THP    `param:"thp" default:"leave" usage:"THP: leave as set, never (MADV_NOHUGEPAGE), huge (MADV_HUGEPAGE)"`
	ReportFD int32  // parent's report pipe, -1 for none
	Inject   Inject // tests only: InjectMadviseEINVAL
}

func init() {
	registerParams(reflect.TypeOf(FaultmeParams{}), reflect.TypeOf(C.struct_ct_faultme_params{}))
}

// FaultmeResult is what one faultme repetition measured.
type FaultmeResult struct {
	ElapsedNs        uint64 // timed region, CLOCK_MONOTONIC
	PagesTouched     uint64 // reads done by all workers
	MinFlt, MajFlt   uint64 // faults of the process during the timed region
	RSSAnonKiB       uint64 // RssAnon after the timed region
	RSSAnonBeforeKiB uint64 // RssAnon just before it, the threads created
	ThreadsCreated   int
	// THPEINVAL: --thp never, and MADV_NOHUGEPAGE failed with EINVAL
	// (a kernel without THP, where never holds); the run went on.
	THPEINVAL bool
}

// Faultme runs one repetition of native/faultme.c.
func Faultme(p FaultmeParams) (FaultmeResult, error) {
	var cr C.struct_ct_faultme_result
	rc := C.ct_faultme_run((*C.struct_ct_faultme_params)(unsafe.Pointer(&p)), &cr)
	return faultmeResult(rc, &cr)
}

// FaultmeLean returns the bytes of p as struct ct_faultme_params for a lean
// child (native/lean.c, which sets the report pipe and a test's injection
// itself), and the function that reads that child's result bytes back into
// a FaultmeResult.
func FaultmeLean(p FaultmeParams) (params []byte, result func(rc int, b []byte) (FaultmeResult, error)) {
	return leanBytes(&p), func(rc int, b []byte) (FaultmeResult, error) {
		var cr C.struct_ct_faultme_result
		if err := leanStruct(&cr, b); err != nil {
			return FaultmeResult{}, err
		}
		return faultmeResult(C.int(rc), &cr)
	}
}

func faultmeResult(rc C.int, cr *C.struct_ct_faultme_result) (FaultmeResult, error) {
	r := FaultmeResult{
		ElapsedNs:        uint64(cr.elapsed_ns),
		PagesTouched:     uint64(cr.pages_touched),
		MinFlt:           uint64(cr.minflt),
		MajFlt:           uint64(cr.majflt),
		RSSAnonKiB:       uint64(cr.rss_anon_kb),
		RSSAnonBeforeKiB: uint64(cr.rss_anon_before_kb),
		ThreadsCreated:   int(cr.threads_created),
		THPEINVAL:        cr.thp_einval != 0,
	}
	return r, statusError("faultme", rc, &cr.status)
}
