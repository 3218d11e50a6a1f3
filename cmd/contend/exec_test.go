package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"contend/internal/results"
	"contend/internal/testutil"
)

// buildC compiles src with the system compiler (see testutil.BuildC).
func buildC(t *testing.T, src string, flags ...string) string {
	return testutil.BuildC(t, src, flags...)
}

// fakeFaultme prints what faultme prints; "fail" as argument exits 1
// on the second run (a counter file next to it).
const fakeFaultme = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	printf("map=1073741824\n");
	fflush(stdout);
	if (argc > 1 && !strcmp(argv[1], "fail")) {
		fprintf(stderr, "mmap: Cannot allocate memory\n");
		return 255;
	}
	printf("time = %d usecs\n", argc > 1 ? atoi(argv[1]) : 1000);
	return 0;
}
`

func TestExecPresetAndMetric(t *testing.T) {
	dir := chdirTemp(t)
	bin := buildC(t, fakeFaultme)
	out := filepath.Join(dir, "e.json")
	r := runCLI(t, "exec", "-n", "3", "--warmup", "1", "--preset", "faultme", "--all",
		"--metric", `map=map=(\d+):B`, "--out", out, "--label", "fake", "--", bin, "2500")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"exec:p  program=", "args=2500", "repetitions: 3 (3 ok)", "time    ms    3   2.500", "map     GiB   3   1.000", "real ", "maxrss "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.stdout)
		}
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != "exec" || f.Workload != "exec:p" || f.Primary != "time" || len(f.Reps) != 4 || !f.Reps[0].Warmup || f.Label != "fake" {
		t.Errorf("file: kind %s workload %s primary %s reps %d", f.Kind, f.Workload, f.Primary, len(f.Reps))
	}
	if v, _ := f.ParamValue(0, "program"); v != bin {
		t.Errorf("program param %q", v)
	}
	if m, _ := f.Metric("time"); m.Unit != "ns" || m.Better != "lower" {
		t.Errorf("time described as %+v", m)
	}
	if f.Reps[1].Output != "map=1073741824\ntime = 2500 usecs\n" || f.Reps[1].Metrics.Get("map") != 1<<30 {
		t.Errorf("rep: %+v", f.Reps[1])
	}
	s := runCLI(t, "show", out)
	if s.code != 0 || !strings.Contains(s.stdout, "repetitions: 3 (3 ok)") {
		t.Errorf("show: %d %s %s", s.code, s.stdout, s.stderr)
	}
}

func TestExecFailuresKeepOutput(t *testing.T) {
	dir := chdirTemp(t)
	bin := buildC(t, fakeFaultme)
	out := filepath.Join(dir, "f.json")
	r := runCLI(t, "exec", "-n", "2", "--preset", "faultme", "--out", out, "--", bin, "fail")
	if r.code != 1 {
		t.Errorf("exit %d, want 1 (no repetition succeeded)", r.code)
	}
	if !strings.Contains(r.stderr, "p exited with status 255; last line of output: mmap: Cannot allocate memory") {
		t.Errorf("stderr: %s", r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Reps[0].Status != results.StatusFailed || !strings.Contains(f.Reps[0].Output, "map=1073741824") || f.Reps[0].Metrics.Get("real") <= 0 {
		t.Errorf("failed rep: %+v", f.Reps[0])
	}
	// A metric that is not in the output fails the repetition by name.
	r = runCLI(t, "exec", "-n", "1", "--metric", `ops=ops/sec (\d+)`, "--out", filepath.Join(dir, "g.json"), "--", bin)
	if r.code != 1 || !strings.Contains(r.stderr, `metric ops: no match of /ops/sec (\d+)/ in the output`) {
		t.Errorf("missing metric: %d %s", r.code, r.stderr)
	}
}

func TestExecNoMetricTimeoutAndFormatOriginal(t *testing.T) {
	dir := chdirTemp(t)
	r := runCLI(t, "exec", "-n", "2", "--format", "original", "--out", filepath.Join(dir, "s.json"), "--shell", "--", "echo", "contended:42")
	if r.code != 0 || r.stdout != "contended:42\ncontended:42\n" {
		t.Errorf("format original: %d %q %s", r.code, r.stdout, r.stderr)
	}
	out := filepath.Join(dir, "t.json")
	r = runCLI(t, "exec", "-n", "1", "--timeout", "200ms", "--out", out, "--", "sleep", "30")
	if r.code != 1 || !strings.Contains(r.stderr, "timed out after 200ms") {
		t.Errorf("timeout: %d %s", r.code, r.stderr)
	}
	if f, err := results.Read(out); err != nil || f.Reps[0].Status != results.StatusTimeout || f.Primary != "real" {
		t.Errorf("timeout file: %v %+v", err, f)
	}
}

func TestExecUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"exec"}, "which program?"},
		{[]string{"exec", "--", "/nonexistent/x"}, "no such file"},
		{[]string{"exec", "--", "no-such-program-here"}, "not found in PATH"},
		{[]string{"exec", "--preset", "nosuch", "--", "true"}, `--preset: "nosuch" is not accepted; accepted: faultme, mutex, osim, semop-multi, sysbench, wis` + "\n"},
		{[]string{"exec", "--preset", "time", "--", "true"}, "use it with import; accepted: faultme, mutex, osim, semop-multi, sysbench, wis\n"},
		{[]string{"verify", "faultme", "--preset", "time", "--", "true"}, "use it with import"},
		{[]string{"exec", "--metric", "real=real (\\d+)", "--", "true"}, "measured by contend"},
		{[]string{"exec", "--metric", "x=(\\d+):parsecs", "--", "true"}, `unknown unit "parsecs"`},
		{[]string{"exec", "--metric", "x=\\d+", "--", "true"}, "no capture group"},
		{[]string{"exec", "-n", "0", "--", "true"}, "--runs"},
	}
	for _, c := range cases {
		dir := chdirTemp(t)
		r := runCLI(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d stderr %q, want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
		if fs := listFiles(t, dir); len(fs) != 0 {
			t.Errorf("%v: files left: %v", c.args, fs)
		}
	}
}

const seedFaultme = "/work/shared/seeds/000_d7e92e058cbd48a1.txt"

func TestImportSeedMail(t *testing.T) {
	if _, err := os.Stat(seedFaultme); err != nil {
		t.Skip("seed mails not available")
	}
	dir := chdirTemp(t)
	all := filepath.Join(dir, "all.json")
	r := runCLI(t, "import", "--preset", "faultme", "--out", all, seedFaultme)
	if r.code != 0 || !strings.Contains(r.stdout, "repetitions: 9 (9 ok)") {
		t.Fatalf("import: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	f, err := results.Read(all)
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != "import" || f.Workload != "import:faultme" || f.Reps[0].Metrics.Get("time") != 11302617e3 || f.Reps[8].Metrics.Get("time") != 6796688e3 {
		t.Errorf("file: %s %s %+v", f.Kind, f.Workload, f.Reps[0])
	}
	if !strings.Contains(f.Reps[0].Output, "time = 11302617 usecs") {
		t.Errorf("record text: %q", f.Reps[0].Output)
	}
	before := filepath.Join(dir, "before.json")
	r = runCLI(t, "import", "--preset", "faultme", "--select", "1..5", "--label", "without", "--out", before, seedFaultme)
	if r.code != 0 || !strings.Contains(r.stdout, "repetitions: 5 (5 ok)") {
		t.Errorf("select 1..5: %s %s", r.stdout, r.stderr)
	}
	r = runCLI(t, "import", "--preset", "faultme", "--from", "52", "--out", filepath.Join(dir, "after.json"), seedFaultme)
	if r.code != 0 || !strings.Contains(r.stdout, "repetitions: 4 (4 ok)") {
		t.Errorf("from 52: %s %s", r.stdout, r.stderr)
	}
	r = runCLI(t, "import", "--metric", `t=time = (\d+) usecs:us:lower`, "--select", "6..", "--out", filepath.Join(dir, "m.json"), seedFaultme)
	if r.code != 0 || !strings.Contains(r.stdout, "repetitions: 4 (4 ok)") {
		t.Errorf("--metric select 6..: %s %s", r.stdout, r.stderr)
	}
	for _, bad := range [][]string{
		{"import", seedFaultme},
		{"import", "--preset", "osim", seedFaultme},
		{"import", "--preset", "faultme", "--select", "20..", seedFaultme},
		{"import", "--preset", "faultme", "/nonexistent.txt"},
	} {
		if r := runCLI(t, bad...); r.code != 2 {
			t.Errorf("%v: exit %d %s", bad, r.code, r.stderr)
		}
	}
}

func TestShowOriginalOfExec(t *testing.T) {
	dir := chdirTemp(t)
	out := filepath.Join(dir, "e.json")
	if r := runCLI(t, "exec", "-n", "2", "--metric", `x=x=(\d+)`, "--out", out, "--quiet", "--", "/bin/echo", "x=5"); r.code != 0 {
		t.Fatalf("exec: %d %s", r.code, r.stderr)
	}
	r := runCLI(t, "show", "--format", "original", out)
	if r.code != 0 || r.stdout != "x=5\nx=5\n" {
		t.Errorf("show --format original of an exec file: %d %q", r.code, r.stdout)
	}
}

// TestExecKilledContendTakesGrandchildren SIGKILLs contend while the
// program of an exec repetition has a background grandchild (sleep 30):
// the grandchild must end too (the launcher kills the repetition's group
// when contend dies; PR_SET_PDEATHSIG alone reached only the direct child).
func TestExecKilledContendTakesGrandchildren(t *testing.T) {
	dir := chdirTemp(t)
	pidFile := filepath.Join(dir, "bg.pid")
	script := "sleep 30 & echo $! >" + pidFile + ".tmp; mv " + pidFile + ".tmp " + pidFile + "; wait"
	cmd := contendCmd(t, "exec", "-n", "1", "--quiet", "--out", filepath.Join(dir, "g.json"), "--shell", "--", script)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	deadline := time.Now().Add(30 * time.Second)
	for pid == 0 && time.Now().Before(deadline) {
		if b, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if pid == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the program did not start its background sleep")
	}
	bg, _ := procOf(pid)
	cmd.Process.Kill()
	cmd.Wait()
	deadline = time.Now().Add(10 * time.Second)
	for processAlive(bg) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the background grandchild %d survived contend's SIGKILL by 10 s", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// processAlive reports whether process p (seen before) still exists and
// is not a zombie: its pid with its start time, since on a busy machine a
// pid is reused within seconds.
func processAlive(p proc) bool {
	now, ok := procOf(p.pid)
	return ok && now.start == p.start && now.state != "Z"
}

// TestHelpMaxRSS: the maxrss topic says what the metric includes, and a
// workload's help points to it.
func TestHelpMaxRSS(t *testing.T) {
	r := runCLI(t, "help", "maxrss")
	for _, want := range []string{"launcher", "/usr/bin/time", "Go runtime", "original C program"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("help maxrss lacks %q: %+v", want, r)
		}
	}
	if r := runCLI(t, "help", "faultme"); !strings.Contains(r.stdout, "contend help maxrss") {
		t.Errorf("help faultme does not point to help maxrss:\n%s", r.stdout)
	}
}

// TestKilledContendTakesWorkers SIGKILLs contend while an osim repetition's
// worker processes run: the child (Pdeathsig) and its workers
// (PR_SET_PDEATHSIG towards the child) must all end.
func TestKilledContendTakesWorkers(t *testing.T) {
	dir := chdirTemp(t)
	cmd := contendCmd(t, "run", "osim", "--sems", "2", "--tasks", "4", "--loops", "2000000000", "--busy-in", "1000",
		"-n", "1", "--quiet", "--timeout", "5m", "--out", filepath.Join(dir, "o.json"))
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var group []int
	deadline := time.Now().Add(30 * time.Second)
	for len(group) < 5 && time.Now().Before(deadline) {
		group = nil
		for _, c := range procsWith(3, cmd.Process.Pid) { // children of contend
			group = procsWith(4, c) // its process group
		}
		time.Sleep(10 * time.Millisecond)
	}
	var seen []proc
	for _, pid := range group {
		if p, ok := procOf(pid); ok {
			seen = append(seen, p)
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if len(group) < 5 {
		t.Fatalf("found %d processes of the repetition, want the child and 4 workers", len(group))
	}
	deadline = time.Now().Add(10 * time.Second)
	for _, p := range seen {
		for processAlive(p) {
			if time.Now().After(deadline) {
				syscall.Kill(-group[0], syscall.SIGKILL)
				t.Fatalf("process %d of the repetition survived contend's SIGKILL by 10 s", p.pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// procsWith returns the live processes whose /proc/PID/stat field (1-based
// after the command: 3 ppid, 4 pgrp) equals v.
func procsWith(field, v int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > field-2 && f[0] != "Z" && f[field-2] == strconv.Itoa(v) {
			out = append(out, pid)
		}
	}
	return out
}

// TestShowOriginalParams reads --format original from result files whose
// parameters are not what this contend writes: a file older than a
// parameter (its default is used, as the run had it) and an edited value
// (an error naming it; before, the workload's v.Int panicked).
func TestShowOriginalParams(t *testing.T) {
	dir := t.TempDir()
	seed, err := os.ReadFile("testdata/seeds/rostedt-with.json")
	if err != nil {
		t.Fatal(err)
	}
	want := runOK(t, "show", "--format", "original", "testdata/seeds/rostedt-with.json").stdout
	old := strings.Replace(string(seed), `,
        {
          "name": "thp",
          "value": "leave"
        }`, "", 1)
	edited := strings.Replace(string(seed), `"value": "10737418240"`, `"value": "10GiB"`, 1)
	if old == string(seed) || edited == string(seed) {
		t.Fatal("the seed file's layout changed: fix the test's edits")
	}
	for name, text := range map[string]string{"old.json": old, "edited.json": edited} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if r := runCLI(t, "show", "--format", "original", filepath.Join(dir, "old.json")); r.code != 0 || r.stdout != want {
		t.Errorf("a file without --thp: %d %q %s, want %q", r.code, r.stdout, r.stderr, want)
	}
	r := runCLI(t, "show", "--format", "original", filepath.Join(dir, "edited.json"))
	if r.code == 0 || !strings.Contains(r.stderr, `--mem: "10GiB" is not a canonical value`) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("an edited --mem: %d %q", r.code, r.stderr)
	}
}

// TestExecKillsWhatLeftTheGroup: `exec --shell` of a program that leaves a
// `setsid sleep` behind, on a normal end and on a timeout: after contend
// returns, no process it started is left below it (counted by pid), and
// each repetition's notes say what was killed. On the old code one sleep
// per repetition was left.
func TestExecKillsWhatLeftTheGroup(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	dir := chdirTemp(t)
	// Each repetition waits until its sleep has left the group (a file
	// named by the shell's pid).
	prog := `f=` + dir + `/left-$$; setsid sh -c "echo x >$f; exec sleep 60" & while [ ! -s $f ]; do sleep 0.01; done; echo ok`
	for _, c := range []struct {
		name string
		args []string
		n    int
	}{
		{"normal", []string{"-n", "3"}, 3},
		{"timeout", []string{"-n", "2", "--timeout", "1s"}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			script := prog
			if c.name == "timeout" {
				script += "; exec sleep 100"
			}
			before := map[int]bool{}
			for _, p := range descendants(procs(), os.Getpid()) {
				before[p.pid] = true
			}
			out := filepath.Join(dir, c.name+".json")
			r := runCLI(t, append(append([]string{"exec"}, c.args...), "--quiet", "--out", out, "--shell", "--", script)...)
			var left []string
			for _, p := range descendants(procs(), os.Getpid()) {
				if !before[p.pid] {
					left = append(left, fmt.Sprintf("%d (%s)", p.pid, p.state))
					syscall.Kill(p.pid, syscall.SIGKILL)
				}
			}
			if len(left) > 0 {
				t.Errorf("processes left below contend after exec: %s; stderr %s", strings.Join(left, ", "), r.stderr)
			}
			f, err := results.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Reps) != c.n {
				t.Fatalf("%d repetitions, want %d", len(f.Reps), c.n)
			}
			for _, rep := range f.Reps {
				if c.name == "timeout" && rep.Status != results.StatusTimeout {
					t.Errorf("repetition %d: %s, want timeout (1s was not enough to start a sleep?)", rep.Index, rep.Status)
				}
				if !strings.Contains(rep.Output, "ok") {
					// Timed out before its sleep left the group (a
					// loaded machine): the group kill took it.
					t.Logf("repetition %d timed out before its sleep left the group", rep.Index)
					continue
				}
				if n := strings.Join(rep.Notes, "|"); !strings.Contains(n, "killed 1 process that the program left running outside its process group") {
					t.Errorf("repetition %d: notes %q, want the killed sleep", rep.Index, n)
				}
			}
		})
	}
}
