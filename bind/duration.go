package bind

/*
#include <stdlib.h>
#include "duration.h"
*/
import "C"

import "unsafe"

// DurationSlotBytes is the stride of the workers' counters in the duration
// runner (CT_SLOT, native/duration.h), which semop-multi and plugins share.
const DurationSlotBytes = C.CT_SLOT

// durationSlotUsed is the size of the counters in a slot (struct ct_slot).
const durationSlotUsed = C.sizeof_struct_ct_slot

// durationProbeParams are the parameters of one run of the duration runner
// with its probe workers (ct_duration_probe): the runner has no Go caller
// of its own, semop-multi and plugins call it from C.
type durationProbeParams struct {
	Threads    int
	DurationNs uint64 // 0: each worker counts 1000 and returns
	Pin        bool
	Inject     Inject
	FailWorker int // this worker returns FailErrno at once; -1: none
	FailErrno  int
}

// durationProbeResult is what the probe workers recorded.
type durationProbeResult struct {
	Started   int
	ElapsedNs uint64 // gate .. last worker returned
	JoinedNs  uint64 // gate .. last join
	Total     uint64
	Stopped   uint64   // workers that saw the stop flag when they returned
	PerThread []uint64 // counts
	SlotAddr  []uint64 // each worker's slot
	CPU       []int    // the CPU each worker was given, -1 for none
	RanOn     []int    // sched_getcpu() in each worker
	Prepared  []int    // the workers prepared when each worker's work began
	StopAddr  uint64   // the stop flag
	SlotBytes int
}

// durationProbe runs native/duration.c's runner with the probe workers.
func durationProbe(p durationProbeParams) (durationProbeResult, error) {
	n := max(p.Threads, 1)
	u64 := func() *C.uint64_t { return (*C.uint64_t)(C.calloc(C.size_t(n), 8)) }
	i32 := func() *C.int { return (*C.int)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.int(0))))) }
	per, addr, cpu, ran, prep, stop := u64(), u64(), i32(), i32(), i32(), u64()
	defer func() {
		for _, a := range []unsafe.Pointer{unsafe.Pointer(per), unsafe.Pointer(addr), unsafe.Pointer(cpu), unsafe.Pointer(ran), unsafe.Pointer(prep), unsafe.Pointer(stop)} {
			C.free(a)
		}
	}()
	cp := C.struct_ct_duration_probe_params{
		threads:     C.int(p.Threads),
		duration_ns: C.uint64_t(p.DurationNs),
		inject:      C.int(p.Inject),
		fail_worker: C.int(p.FailWorker),
		fail_errno:  C.int(p.FailErrno),
		per_thread:  per,
		slot_addr:   addr,
		cpu:         cpu,
		ran_on:      ran,
		prepared:    prep,
		stop_addr:   stop,
	}
	if p.Pin {
		cp.pin = 1
	}
	var cr C.struct_ct_duration_probe_result
	rc := C.ct_duration_probe(&cp, &cr)
	r := durationProbeResult{
		Started:   int(cr.started),
		ElapsedNs: uint64(cr.elapsed_ns),
		JoinedNs:  uint64(cr.joined_ns),
		Total:     uint64(cr.total),
		Stopped:   uint64(cr.stopped),
		StopAddr:  uint64(*stop),
		SlotBytes: int(cr.slot_bytes),
	}
	for i := 0; i < p.Threads; i++ {
		r.PerThread = append(r.PerThread, uint64(unsafe.Slice(per, n)[i]))
		r.SlotAddr = append(r.SlotAddr, uint64(unsafe.Slice(addr, n)[i]))
		r.CPU = append(r.CPU, int(unsafe.Slice(cpu, n)[i]))
		r.RanOn = append(r.RanOn, int(unsafe.Slice(ran, n)[i]))
		r.Prepared = append(r.Prepared, int(unsafe.Slice(prep, n)[i]))
	}
	return r, statusError("runner", rc, &cr.status)
}
