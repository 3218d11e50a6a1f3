package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"

	"contend/internal/workload"
)

// ChildArg is the hidden first argument that turns the contend binary into
// a repetition child: `contend __child WORKLOAD PARAMS-JSON`.
const ChildArg = "__child"

// reportFD is the child's end of the report pipe (the first ExtraFiles
// entry of the parent's exec.Cmd).
const reportFD = 3

// reportEnv tells the child that fd 3 is the report pipe.
const reportEnv = "CONTEND_REPORT_FD"

// ChildMain runs one repetition in this process and returns its exit
// status. It is called from main before anything else is set up, so that
// the child stays lean. The result goes to the parent as one line
// "result JSON" (or "error TEXT") on the report pipe; C code writes its
// "ipc sem ID" lines to the same pipe before its timed region.
func ChildMain(args []string) int {
	// Keep the Go runtime out of the measurement: no GC during the one
	// cgo call, and the call stays on this thread. GOMAXPROCS 1: a cgo
	// call keeps its P, and while another P is idle sysmon neither takes
	// it back nor sleeps for the call's first 10 ms, but wakes every
	// 20 us or so, preempting a worker each time (faultme 4 threads x
	// 256 MiB: 13-29 switch-ins of runtime threads in a 20-30 ms timed
	// region, about 2 with one P). With one P it is handed off at
	// sysmon's second look and sysmon sleeps until the call returns
	// (TestChildRuntimeQuietDuringCall).
	debug.SetGCPercent(-1)
	runtime.GOMAXPROCS(1)
	runtime.LockOSThread()

	rfd := reportFD
	if os.Getenv(reportEnv) != "3" {
		// Run by hand (debugging, benchmarks): report on stdout.
		rfd = 1
	}
	report := os.NewFile(uintptr(rfd), "report")
	fail := func(format string, a ...any) int {
		msg := fmt.Sprintf(format, a...)
		if report != nil {
			fmt.Fprintf(report, "error %s\n", oneLine(msg))
		}
		fmt.Fprintln(os.Stderr, "contend child:", msg)
		return 1
	}
	if len(args) != 2 {
		return fail("usage: contend %s WORKLOAD PARAMS-JSON (internal)", ChildArg)
	}
	w, ok := workload.Lookup(args[0])
	if !ok {
		return fail("unknown workload %q", args[0])
	}
	var v workload.Values
	if err := json.Unmarshal([]byte(args[1]), &v); err != nil {
		return fail("bad parameters: %v", err)
	}
	key, _ := strconv.ParseInt(os.Getenv(semKeyEnv), 10, 32)
	s, err := w.Run(v, workload.Runtime{ReportFD: rfd, SemKey: int(key)})
	if err != nil {
		return fail("%v", err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		return fail("cannot encode the result: %v", err)
	}
	if _, err := fmt.Fprintf(report, "result %s\n", b); err != nil {
		return fail("cannot report the result: %v", err)
	}
	return 0
}

func oneLine(s string) string {
	out := []rune{}
	for _, r := range s {
		if r == '\n' || r == '\r' {
			r = ' '
		}
		out = append(out, r)
	}
	return string(out)
}
