package bind

/*
#include "faultme.h"
*/
import "C"

// THP selects what faultme does about transparent huge pages.
type THP int

// THP modes of faultme.
const (
	THPLeave THP = C.CT_THP_LEAVE // no madvise: the system setting decides
	THPNever THP = C.CT_THP_NEVER // MADV_NOHUGEPAGE: 4 KiB faults
	THPHuge  THP = C.CT_THP_HUGE  // MADV_HUGEPAGE: one fault per 2 MiB
)

// FaultmeParams are the parameters of one faultme repetition.
type FaultmeParams struct {
	Threads  int    // worker threads
	Mem      uint64 // bytes mapped
	Stride   uint64 // bytes between reads
	THP      THP
	ReportFD int // parent's report pipe, -1 for none
}

// FaultmeResult is what one faultme repetition measured.
type FaultmeResult struct {
	ElapsedNs      uint64 // timed region, CLOCK_MONOTONIC
	PagesTouched   uint64 // reads done by all workers
	MinFlt, MajFlt uint64 // faults of the process during the timed region
	RSSAnonKiB     uint64 // RssAnon after the timed region
	ThreadsCreated int
}

// Faultme runs one repetition of native/faultme.c.
func Faultme(p FaultmeParams) (FaultmeResult, error) {
	cp := C.struct_ct_faultme_params{
		threads:   C.int(p.Threads),
		mem:       C.uint64_t(p.Mem),
		stride:    C.uint64_t(p.Stride),
		thp:       C.int(p.THP),
		report_fd: C.int(p.ReportFD),
	}
	var cr C.struct_ct_faultme_result
	rc := C.ct_faultme_run(&cp, &cr)
	r := FaultmeResult{
		ElapsedNs:      uint64(cr.elapsed_ns),
		PagesTouched:   uint64(cr.pages_touched),
		MinFlt:         uint64(cr.minflt),
		MajFlt:         uint64(cr.majflt),
		RSSAnonKiB:     uint64(cr.rss_anon_kb),
		ThreadsCreated: int(cr.threads_created),
	}
	return r, statusError("faultme", rc, &cr.status)
}
