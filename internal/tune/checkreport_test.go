package tune

import (
	"strings"
	"testing"
	"time"
)

// TestWriteCheck: every section of 'contend check' and the advice each
// leads to, in order, against reference text; a quiet machine is ready.
func TestWriteCheck(t *testing.T) {
	r := Readiness{
		Plan:     []Result{{Name: "thp", Status: StatusWouldSet, Detail: "always -> never"}},
		Load:     "2.00 1.00 0.50",
		Online:   []int{0, 1, 2, 3},
		Busy:     []Proc{{Pid: 9, Comm: "make", CPU: 0.5}, {Pid: 8, Comm: "cc", CPU: 0.25}, {Pid: 7, Comm: "idle", CPU: 0.001}},
		SMT:      "on",
		Throttle: map[string]int64{"core_throttle_count": 2, "package_throttle_count": 1, "other": 9},
		Cmdline:  []string{"quiet"},
	}
	var b strings.Builder
	WriteCheck(&b, r, 500*time.Millisecond, "pid 12 (contend run)")
	plan := r.Plan[0].String()
	want := `tune (what 'contend tune' would change):
  ` + plan + `
load:      2.00 1.00 0.50 (4 CPUs online)
CPU used during 500ms:
     50%  pid 9  make
     25%  pid 8  cc
isolated:  none; nohz_full: none (command line: quiet)
SMT:       on
frequency: not readable (no cpufreq: a VM, where the host decides)
memory:    free page reporting unknown (no /sys/devices)
throttling: core_throttle_count 2, package_throttle_count 1 (since boot, summed over CPUs)
lock:      held by pid 12 (contend run)
advice:
  - 'contend tune' (as root) would set 1 setting above; 'contend tune --reset' puts them back
  - other processes used 75% of a CPU (most: make, pid 9, 50%): stop them, or expect their noise in the runs
  - no isolated CPUs: for the steadiest runs boot with isolcpus=LIST nohz_full=LIST and give the same LIST to 'contend tune --cpus'
  - SMT is on: sibling threads share a core's units; for per-core figures turn it off (echo off > /sys/devices/system/cpu/smt/control)
  - the CPUs were thermally throttled since boot: compare the counters before and after a run, and cool the machine or lower its load
  - another benchmark runs now (pid 12 (contend run)): a new run waits for it
`
	if b.String() != want {
		t.Errorf("check:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	WriteCheck(&b, Readiness{Online: []int{0}, SMT: "off", Isolated: "1", Freq: "1 GHz", PageReporting: PageReportingOff}, time.Second, "")
	want = `tune (what 'contend tune' would change):
load:      unknown (1 CPU online)
CPU used during 1s: none above 1%
isolated:  1; nohz_full: none
SMT:       off
frequency: 1 GHz
memory:    free page reporting off
throttling: no thermal_throttle counters readable
lock:      free
ready: nothing to change that contend can see
`
	if b.String() != want {
		t.Errorf("quiet check:\n%s\nwant:\n%s", b.String(), want)
	}
}
