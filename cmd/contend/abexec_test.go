package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"contend/analysis"
	"contend/internal/ab"
	"contend/internal/env"
	"contend/internal/results"
	"contend/internal/summary"
)

// script writes an executable /bin/sh script named name into a fresh
// directory and returns its path.
func script(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// sideString returns the sides of f's repetitions in run order ("abba...").
func sideString(f *results.File) string {
	var s string
	for _, rep := range f.Reps {
		s += f.Configs[rep.Config].Name
	}
	return s
}

// TestABExecTwoCommands runs two commands (one program with two
// arguments) in abba order after a warm-up pair and checks the order, the
// metrics of each side, the recorded argv, and that show and compare read
// the file.
func TestABExecTwoCommands(t *testing.T) {
	seed, _ := filepath.Abs("testdata/seeds/rostedt-without.json")
	dir := chdirTemp(t)
	// map is the length of the second argument: 7 when 'one arg' arrives
	// as one word.
	prog := script(t, "faultme", `echo "map=${#2}"; echo "time = $1 usecs"`+"\n")
	out := filepath.Join(dir, "ab.json")
	r := runCLI(t, "ab", "exec", "--preset", "faultme", "--metric", `map=map=(\d+):B`,
		"--a", prog+" 1000 'one arg'", "--b", prog+" 1100 x", "-n", "3", "--warmup", "1", "--order", "abba", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != "ab" || f.Workload != "exec:faultme" || f.Primary != "time" || len(f.Configs) != 2 || f.Configs[0].Name != "a" || f.Configs[1].Name != "b" {
		t.Fatalf("file: kind %s workload %s primary %s configs %+v", f.Kind, f.Workload, f.Primary, f.Configs)
	}
	if got := sideString(f); got != "ab"+"abbaab" {
		t.Errorf("run order %s, want ab (warm-up) + abbaab", got)
	}
	for i, want := range []string{"1000 'one arg'", "1100 x"} {
		if p, _ := f.ParamValue(i, "program"); p != prog {
			t.Errorf("side %d program %q", i, p)
		}
		if a, _ := f.ParamValue(i, "args"); a != want {
			t.Errorf("side %d args %q, want %q", i, a, want)
		}
	}
	for _, rep := range f.Reps {
		want := []float64{1000e3, 1100e3}[rep.Config]
		if rep.Status != results.StatusOK || rep.Metrics.Get("time") != want || rep.Metrics.Get("real") <= 0 {
			t.Errorf("rep %d (side %d): %s %s %v", rep.Index, rep.Config, rep.Status, rep.Error, rep.Metrics)
		}
	}
	if a, b := f.Values(0, "map"), f.Values(1, "map"); len(a) != 3 || a[0] != 7 || len(b) != 3 || b[0] != 1 {
		t.Errorf("map (length of the second argument) %v %v, want 7 and 1", a, b)
	}
	if f.Reps[2].Output != "map=7\ntime = 1000 usecs\n" {
		t.Errorf("output kept: %q", f.Reps[1].Output)
	}
	for _, want := range []string{"side A: program=" + prog + " args=1000 'one arg'", "side B: program=" + prog, "order: abba", "exec:faultme time: 1.000 ms -> 1.100 ms, HL +10.0%"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	// The sides of an ab ran in one boot: said under the headline.
	_, head, _ := strings.Cut(r.stdout, "exec:faultme time: ")
	head, _, _ = strings.Cut(head, "\n\n")
	if env.BootID() != "" && !strings.Contains(strings.Join(strings.Fields(head), " "), "A and B ran within one boot: the p-value covers this boot, not boot-to-boot variance") {
		t.Errorf("the headline does not say the sides ran within one boot:\n%s", r.stdout)
	}
	if s := runCLI(t, "show", out); s.code != 0 || !strings.Contains(s.stdout, "exec:faultme  b") {
		t.Errorf("show: %d\n%s%s", s.code, s.stdout, s.stderr)
	}
	if c := runCLI(t, "compare", out+":a", out+":b"); c.code != 0 || !strings.Contains(c.stdout, "time: 1.000 ms -> 1.100 ms") {
		t.Errorf("compare FILE:a FILE:b: %d\n%s%s", c.code, c.stdout, c.stderr)
	}
	// A side of external programs compares with a built-in workload's file.
	if c := runCLI(t, "compare", seed, out+":b"); c.code != 0 || !strings.Contains(c.stdout, "time") {
		t.Errorf("compare with faultme's file: %d\n%s%s", c.code, c.stdout, c.stderr)
	}
}

// TestABExecOneProgramPrepare runs one program on both sides; the prepare
// commands set what it reads, so the sides differ only by them.
func TestABExecOneProgramPrepare(t *testing.T) {
	dir := chdirTemp(t)
	setting := filepath.Join(dir, "setting")
	prog := script(t, "reader", `echo "time = $(cat `+setting+`) usecs"`+"\n")
	out := filepath.Join(dir, "ab.json")
	r := runCLI(t, "ab", "exec", "--metric", `t=time = (\d+) usecs:us:lower`, "--order", "random", "--seed", "7", "-n", "6",
		"--a-prepare", "echo 500 > "+setting+"; echo A ready", "--b-prepare", "echo 700 > "+setting, "--out", out, "--", prog)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	want := ""
	for _, s := range ab.OrderRandom.Sequence(6, 7) {
		want += []string{"a", "b"}[s]
	}
	if got := sideString(f); got != want {
		t.Errorf("run order %s, want %s (random, seed 7)", got, want)
	}
	if f.Workload != "exec:reader" || f.Primary != "t" {
		t.Errorf("workload %s primary %s", f.Workload, f.Primary)
	}
	for _, rep := range f.Reps {
		if want := []float64{500e3, 700e3}[rep.Config]; rep.Metrics.Get("t") != want {
			t.Errorf("rep %d side %d: t = %v, want %v", rep.Index, rep.Config, rep.Metrics.Get("t"), want)
		}
		notes := strings.Join(rep.Notes, "|")
		if (rep.Config == 0) != (notes == "prepare output: A ready") {
			t.Errorf("rep %d side %d notes %q", rep.Index, rep.Config, notes)
		}
	}
	for i, pr := range []string{"echo 500", "echo 700"} {
		if !strings.HasPrefix(f.Configs[i].Env["prepare"], pr) || f.Configs[i].Env["cwd"] == "" {
			t.Errorf("side %d env %v", i, f.Configs[i].Env)
		}
	}
	if !strings.Contains(r.stdout, "order: random (seed 7)") || !strings.Contains(r.stdout, "prepare 'echo 700") {
		t.Errorf("output:\n%s", r.stdout)
	}
}

func TestABExecPrepareFailureStops(t *testing.T) {
	dir := chdirTemp(t)
	out := filepath.Join(dir, "ab.json")
	count := filepath.Join(dir, "count")
	// Side B's prepare fails on its second call.
	bprep := "echo x >> " + count + "; test $(wc -l < " + count + ") -lt 2 || { echo no more >&2; exit 7; }"
	r := runCLI(t, "ab", "exec", "--order", "ab", "--a", "/bin/echo a", "--b", "/bin/echo b", "--b-prepare", bprep, "-n", "5",
		"--out", out, "--cleanup", "touch "+filepath.Join(dir, "cleaned"))
	if r.code != 1 || !strings.Contains(r.stderr, "side B prepare command") || !strings.Contains(r.stderr, "exit status 7") {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Reps) != 3 || f.Complete || sideString(f) != "aba" || f.Reps[2].Output != "a\n" {
		t.Errorf("want the 3 reps before the failure kept (a b a), got %q, complete %v", sideString(f), f.Complete)
	}
	if _, err := os.Stat(filepath.Join(dir, "cleaned")); err != nil {
		t.Error("cleanup command did not run after the failure")
	}
}

// TestABExecAA runs a null control (--aa) of one program, and one of a
// --a command with the adaptive stop.
func TestABExecAA(t *testing.T) {
	dir := chdirTemp(t)
	prog := script(t, "p", "echo 'time = 100 usecs'\n")
	out := filepath.Join(dir, "aa.json")
	r := runCLI(t, "ab", "exec", "--aa", "--preset", "faultme", "-n", "3", "--out", out, "--", prog)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	f, _ := results.Read(out)
	// The default order is random: each round has both sides.
	if s := sideString(f); len(s) != 6 || strings.Count(s[0:2], "a") != 1 || strings.Count(s[2:4], "a") != 1 || strings.Count(s[4:6], "a") != 1 || summary.ParamsText(f.Configs[0]) != summary.ParamsText(f.Configs[1]) {
		t.Errorf("--aa: order %s, sides %q %q", sideString(f), summary.ParamsText(f.Configs[0]), summary.ParamsText(f.Configs[1]))
	}
	if !strings.Contains(r.stdout, "time: 100.0 µs -> 100.0 µs") {
		t.Errorf("--aa output:\n%s", r.stdout)
	}
	out2 := filepath.Join(dir, "aa2.json")
	r = runCLI(t, "ab", "exec", "--aa", "--a", prog, "--until", "50%", "--min-runs", "3", "--max-runs", "5", "--out", out2)
	if r.code != 0 || !strings.Contains(r.stdout, "adaptive stop:") {
		t.Fatalf("adaptive --aa: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	f, _ = results.Read(out2)
	na, nb := len(f.Values(0, "real")), len(f.Values(1, "real"))
	if na != nb || na < 3 || na > 5 || f.Primary != "real" {
		t.Errorf("adaptive A/A ran %d+%d (primary %s), want equal counts within 3..5", na, nb, f.Primary)
	}
}

// TestABExecInterruptRestoresEvents runs one program with the events off
// for A and on for B, reading the event's state from the fake tracefs,
// and sends SIGINT in the middle.
func TestABExecInterruptRestoresEvents(t *testing.T) {
	dir := chdirTemp(t)
	root, enable := fakeTrace(t)
	out := filepath.Join(dir, "ab.json")
	cmd := contendCmd(t, "ab", "exec", "--trace-events", "lock", "--metric", `on=(?m)^(\d)$`, "-n", "100000", "--out", out, "--quiet",
		"--", "/bin/cat", filepath.Join(root, "events/lock/contention_begin/enable"))
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitReps(t, out, 4)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
	if enable("contention_begin") != "0" || enable("contention_end") != "1" {
		t.Errorf("events not restored after SIGINT: begin %s end %s", enable("contention_begin"), enable("contention_end"))
	}
	f, err := results.Read(out)
	if err != nil || len(f.Reps) < 4 || f.Complete {
		t.Fatalf("result file after SIGINT: %v", err)
	}
	if f.Configs[0].Env["trace-events"] != "lock disabled" || f.Configs[1].Env["trace-events"] != "lock enabled" {
		t.Errorf("side environments %v %v", f.Configs[0].Env, f.Configs[1].Env)
	}
	ok := 0
	for _, rep := range f.Reps {
		switch {
		case rep.Status == results.StatusInterrupted:
		case rep.Status != results.StatusOK:
			t.Errorf("rep %d: %s %s", rep.Index, rep.Status, rep.Error)
		case rep.Metrics.Get("on") != float64(rep.Config):
			t.Errorf("rep %d side %d saw the event at %v", rep.Index, rep.Config, rep.Metrics.Get("on"))
		default:
			ok++
		}
	}
	if ok < 4 {
		t.Errorf("%d repetitions saw the event's state, want at least 4", ok)
	}
}

// TestABExecProgramArgs checks that the flags after PROGRAM are its own.
func TestABExecProgramArgs(t *testing.T) {
	dir := chdirTemp(t)
	out := filepath.Join(dir, "ab.json")
	r := runCLI(t, "ab", "exec", "--aa", "-n", "1", "--out", out, "/bin/echo", "-n", "--until", "x")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	f, _ := results.Read(out)
	if a, _ := f.ParamValue(0, "args"); a != "-n --until x" || f.Reps[0].Output != "--until x" {
		t.Errorf("args %q output %q", a, f.Reps[0].Output)
	}
}

// TestABExecAADrift runs an A/A of a program whose printed value climbs
// by 1 at every run (a counter in a file: a machine that drifts), in
// --order random, and checks the shape of the report under drift: the
// headline's U test, the test within pairs with the p-value the
// signed-rank test gives the file's pairs and what the order lets it
// claim, and the drift warning of each side (issue 38).
func TestABExecAADrift(t *testing.T) {
	dir := chdirTemp(t)
	cnt := filepath.Join(dir, "count")
	prog := script(t, "drift", "c=$(cat "+cnt+" 2>/dev/null || echo 0); echo $((c+1)) > "+cnt+"; echo \"t=$((100+c))\"\n")
	out := filepath.Join(dir, "drift.json")
	r := runCLI(t, "ab", "exec", "--aa", "--order", "random", "--seed", "3", "-n", "6", "--metric", "t=t=([0-9]+):ms:lower", "--out", out, "--", prog)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	d, rel := f.PairDiffs("t")
	sr, err := analysis.SignedRank(d)
	if err != nil || len(d) != 6 || !rel {
		t.Fatalf("pairs: %v, %d differences (rel %v)", err, len(d), rel)
	}
	s := strings.Join(strings.Fields(r.stdout), " ")
	for _, want := range []string{
		"(U test, n=6+6): ",
		fmt.Sprintf("within pairs: t: B against A in each of 6 pairs, HL %+.1f%%, p=%.2g (Wilcoxon signed-rank); the sides' order was drawn in each pair", 100*math.Expm1(sr.Estimate), sr.P),
		"warning: side A drifts over run order (t, Mann-Kendall tau 1.00",
		"warning: side B drifts over run order (t, Mann-Kendall tau 1.00",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, r.stdout)
		}
	}
}
