package bind

/*
#include "osim.h"
*/
import "C"

// OsimParams are the parameters of one osim repetition, in the original's
// argument order.
type OsimParams struct {
	Sems     int // lock semaphores (the array has Sems+1)
	Tasks    int // worker processes
	Loops    int // total loops of all tasks, rounded up per task
	BusyIn   int // volatile increments inside the critical section
	BusyOut  int // volatile increments outside it
	Inject   Inject
	SemKey   int // the set's key, chosen by the parent (internal/ipcown); 0: IPC_PRIVATE
	ReportFD int // parent's report pipe, -1 for none
}

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
	cp := C.struct_ct_osim_params{
		sems:      C.int(p.Sems),
		tasks:     C.int(p.Tasks),
		loops:     C.int(p.Loops),
		busy_in:   C.int(p.BusyIn),
		busy_out:  C.int(p.BusyOut),
		inject:    C.int(p.Inject),
		sem_key:   C.int(int32(p.SemKey)),
		report_fd: C.int(p.ReportFD),
	}
	var cr C.struct_ct_osim_result
	rc := C.ct_osim_run(&cp, &cr)
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
