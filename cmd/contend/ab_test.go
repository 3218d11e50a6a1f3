package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"contend/internal/results"
)

func fakeTrace(t *testing.T) (root string, enable func(string) string) {
	root, enable = fakeTraceDir(t)
	t.Setenv("CONTEND_TRACEFS", root)
	return root, enable
}

// fakeTraceDir is fakeTrace's tracefs without the environment: a
// parallel test gives its contends CONTEND_TRACEFS itself.
func fakeTraceDir(t *testing.T) (root string, enable func(string) string) {
	root = t.TempDir()
	for ev, v := range map[string]string{"contention_begin": "0", "contention_end": "1"} {
		d := filepath.Join(root, "events", "lock", ev)
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "enable"), []byte(v+"\n"), 0o644)
	}
	return root, func(ev string) string {
		b, _ := os.ReadFile(filepath.Join(root, "events", "lock", ev, "enable"))
		return strings.TrimSpace(string(b))
	}
}

func TestABTraceEventsEndToEnd(t *testing.T) {
	dir := chdirTemp(t)
	root, enable := fakeTrace(t)
	log := filepath.Join(dir, "states")
	// The prepare commands record the event state each side ran with.
	state := "cat " + filepath.Join(root, "events/lock/contention_begin/enable") + " >> " + log
	out := filepath.Join(dir, "ab.json")
	r := runCLI(t, "ab", "faultme", "--threads", "2", "--mem", "1MiB", "--trace-events", "lock",
		"--a-prepare", "printf A; "+state, "--b-prepare", "printf B; "+state, "-n", "3", "--warmup", "1", "--order", "abba", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != "ab" || len(f.Configs) != 2 || f.Configs[0].Name != "a" || f.Configs[1].Name != "b" {
		t.Fatalf("configs %+v", f.Configs)
	}
	if f.Configs[0].Env["trace-events"] != "lock disabled" || f.Configs[1].Env["trace-events"] != "lock enabled" {
		t.Errorf("side environments %v %v", f.Configs[0].Env, f.Configs[1].Env)
	}
	var sides, outputs string
	for _, rep := range f.Reps {
		sides += f.Configs[rep.Config].Name
		outputs += rep.Output[:1]
	}
	// warm-up pair, then abba over 3 pairs.
	if sides != "ab"+"abbaab" {
		t.Errorf("run order %s, want ab (warm-up) + abbaab", sides)
	}
	if outputs != strings.ToUpper(sides) {
		t.Errorf("prepare outputs %s do not follow the sides %s", outputs, sides)
	}
	b, _ := os.ReadFile(log)
	if got := strings.Join(strings.Fields(string(b)), ""); got != strings.NewReplacer("a", "0", "b", "1").Replace(sides) {
		t.Errorf("event states seen by the prepare commands %s, sides %s", got, sides)
	}
	if enable("contention_begin") != "0" || enable("contention_end") != "1" {
		t.Errorf("events not restored: begin %s end %s", enable("contention_begin"), enable("contention_end"))
	}
	for _, want := range []string{"side A: threads=2", "events lock enabled", "order: abba", "metric", "time"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if got := runCLI(t, "show", out); got.code != 0 || !strings.Contains(got.stdout, "faultme  b") {
		t.Errorf("show of an A/B file: %d\n%s", got.code, got.stdout)
	}
}

func TestABPrepareFailureStops(t *testing.T) {
	dir := chdirTemp(t)
	out := filepath.Join(dir, "ab.json")
	count := filepath.Join(dir, "count")
	// Side B's prepare fails on its second call.
	bprep := "echo x >> " + count + "; test $(wc -l < " + count + ") -lt 2 || { echo no more >&2; exit 7; }"
	r := runCLI(t, "ab", "faultme", "--mem", "1MiB", "--a", "--threads 1", "--b", "--threads 2", "--b-prepare", bprep, "-n", "5", "--out", out, "--cleanup", "touch "+filepath.Join(dir, "cleaned"))
	if r.code != 1 || !strings.Contains(r.stderr, "side B prepare command") || !strings.Contains(r.stderr, "exit status 7") {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Reps) != 3 || f.Complete {
		t.Errorf("want the 3 reps before the failure kept (A B A), got %d, complete %v", len(f.Reps), f.Complete)
	}
	if _, err := os.Stat(filepath.Join(dir, "cleaned")); err != nil {
		t.Error("cleanup command did not run after the failure")
	}
}

func TestABUsageErrors(t *testing.T) {
	fakeTrace(t)
	cases := map[string][]string{
		"same sides":         {"--mem", "1MiB"},
		"bad side flag":      {"--mem", "1MiB", "--b", "--nosuch 3"},
		"side not a flag":    {"--mem", "1MiB", "--b", "threads"},
		"bad side value":     {"--mem", "1MiB", "--b", "--threads 0"},
		"aa with b":          {"--mem", "1MiB", "--aa", "--b", "--threads 2"},
		"bad order":          {"--mem", "1MiB", "--b", "--threads 2", "--order", "ba"},
		"bad until":          {"--mem", "1MiB", "--b", "--threads 2", "--until", "200%"},
		"until and n":        {"--mem", "1MiB", "--b", "--threads 2", "--until", "5%", "-n", "4"},
		"max without until":  {"--mem", "1MiB", "--b", "--threads 2", "--max-runs", "9"},
		"max above 200":      {"--mem", "1MiB", "--b", "--threads 2", "--until", "5%", "--max-runs", "201"},
		"missing group":      {"--mem", "1MiB", "--trace-events", "nosuch"},
		"unterminated quote": {"--mem", "1MiB", "--b", "--threads '2"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			dir := chdirTemp(t)
			r := runCLI(t, append([]string{"ab", "faultme"}, args...)...)
			if r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || r.stdout != "" {
				t.Errorf("exit %d stdout %q stderr %q: want 2 and one line", r.code, r.stdout, r.stderr)
			}
			if fs := listFiles(t, dir); len(fs) != 0 {
				t.Errorf("files left: %v", fs)
			}
		})
	}
}

func TestABAdaptiveAndAA(t *testing.T) {
	dir := chdirTemp(t)
	out := filepath.Join(dir, "aa.json")
	r := runCLI(t, "ab", "faultme", "--mem", "1MiB", "--threads", "1", "--aa", "--until", "50%", "--min-runs", "3", "--max-runs", "6", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	f, _ := results.Read(out)
	na, nb := len(f.Values(0, "time")), len(f.Values(1, "time"))
	if na != nb || na < 3 || na > 6 {
		t.Errorf("adaptive A/A ran %d+%d, want equal counts within 3..6", na, nb)
	}
	if !strings.Contains(r.stdout, "adaptive stop:") {
		t.Errorf("no adaptive decision in output:\n%s", r.stdout)
	}
}

// TestABInterruptRestoresEvents sends SIGINT in the middle of an A/B run.
func TestABInterruptRestoresEvents(t *testing.T) {
	dir := chdirTemp(t)
	_, enable := fakeTrace(t)
	out := filepath.Join(dir, "ab.json")
	cmd := contendCmd(t, "ab", "faultme", "--threads", "2", "--mem", "16MiB", "--trace-events", "lock", "-n", "100000", "--out", out, "--quiet")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitReps(t, out, 3)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
	if enable("contention_begin") != "0" || enable("contention_end") != "1" {
		t.Errorf("events not restored after SIGINT: begin %s end %s", enable("contention_begin"), enable("contention_end"))
	}
	if f, err := results.Read(out); err != nil || len(f.Reps) < 3 {
		t.Errorf("result file after SIGINT: %v", err)
	}
}

// TestABRestoresEventsOnEveryExit ends A/B runs with a tracefs switch in
// each way but SIGKILL of contend: a failed prepare command, a timed-out
// repetition, and SIGTERM; the events must be as they were each time.
func TestABRestoresEventsOnEveryExit(t *testing.T) {
	_, enable := fakeTrace(t)
	check := func(how string) {
		t.Helper()
		if enable("contention_begin") != "0" || enable("contention_end") != "1" {
			t.Errorf("%s: events not restored: begin %s end %s", how, enable("contention_begin"), enable("contention_end"))
		}
	}
	dir := chdirTemp(t)
	r := runCLI(t, "ab", "faultme", "--threads", "2", "--mem", "1MiB", "--trace-events", "lock", "-n", "3",
		"--b-prepare", "exit 9", "--out", filepath.Join(dir, "p.json"))
	if r.code != 1 || !strings.Contains(r.stderr, "side B prepare") {
		t.Errorf("failed prepare: exit %d %q", r.code, r.stderr)
	}
	check("failed prepare")

	r = runCLI(t, "ab", "faultme", "--threads", "2", "--mem", "1GiB", "--trace-events", "lock", "-n", "1",
		"--timeout", "1ms", "--out", filepath.Join(dir, "t.json"))
	if f, err := results.Read(filepath.Join(dir, "t.json")); err != nil || f.Counts(-1)[results.StatusTimeout] != 2 {
		t.Errorf("timed-out repetitions: exit %d, %v", r.code, err)
	}
	check("timeout")

	cmd := contendCmd(t, "ab", "faultme", "--threads", "2", "--mem", "16MiB", "--trace-events", "lock", "-n", "100000", "--out", filepath.Join(dir, "s.json"), "--quiet")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitReps(t, filepath.Join(dir, "s.json"), 2)
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("SIGTERM: exit %d, want 130", code)
	}
	check("SIGTERM")
}
