package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fakeSys makes a 2-CPU fake sysfs/procfs without cpufreq, as this VM is.
func fakeSys(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for p, v := range map[string]string{
		"sys/devices/system/cpu/online":              "0-1",
		"sys/devices/system/cpu/smt/active":          "0",
		"proc/sys/kernel/randomize_va_space":         "2",
		"proc/sys/kernel/perf_event_max_sample_rate": "100000",
		"proc/irq/0/smp_affinity_list":               "0-1",
		"proc/irq/5/smp_affinity_list":               "0-1",
		"proc/loadavg":                               "0.10 0.20 0.30 1/50 9",
	} {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("CONTEND_SYSROOT", root)
	t.Setenv("CONTEND_TUNE_STATE", filepath.Join(root, "state/tune.json"))
	return root
}

func TestTuneCheckReset(t *testing.T) {
	root := fakeSys(t)
	r := runCLI(t, "check", "--interval", "10ms")
	if r.code != 0 || !strings.Contains(r.stdout, "aslr      would set      2 -> 0") || !strings.Contains(r.stdout, "governor  not available") ||
		!strings.Contains(r.stdout, "SMT:       off") || !strings.Contains(r.stdout, "load:      0.10 0.20 0.30 (2 CPUs online)") || !strings.Contains(r.stdout, "advice:") {
		t.Errorf("check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "tune")
	if r.code != 0 || !strings.Contains(r.stdout, "aslr      set            2 -> 0") || !strings.Contains(r.stdout, "irq       set            2 of 2 files (0)") || !strings.Contains(r.stdout, "previous values saved") {
		t.Errorf("tune: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "env")
	if !strings.Contains(r.stdout, "tune.aslr           0") || !strings.Contains(r.stdout, "tune.state          tuned by contend tune") {
		t.Errorf("env after tune:\n%s", r.stdout)
	}
	r = runCLI(t, "tune", "--reset")
	if r.code != 0 || !strings.Contains(r.stdout, "aslr      restored       0 -> 2") {
		t.Errorf("tune --reset: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "proc/irq/5/smp_affinity_list")); string(b) != "0-1\n" {
		t.Errorf("irq 5 after reset: %q", b)
	}
}

func TestTuneBadInput(t *testing.T) {
	fakeSys(t)
	dir := chdirTemp(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tune", "--thp", "sometimes"}, "--thp"},
		{[]string{"tune", "--cpus", "7"}, "--cpus: CPU 7 is not online"},
		{[]string{"tune", "--cpus", "x"}, "--cpus"},
		{[]string{"tune", "--perf-rate", "0"}, "--perf-rate"},
		{[]string{"tune", "--reset", "--cpus", "1"}, "--cpus does not apply"},
		{[]string{"tune", "now"}, "no arguments"},
		{[]string{"check", "--interval", "2h"}, "--interval"},
	} {
		before := listFiles(t, dir)
		assertUsageError(t, runCLI(t, c.args...), c.want, dir, before)
	}
}

func TestCompleteTuneTHP(t *testing.T) {
	got := strings.Join(complete(newApp(nil, nil), []string{"tune", "--thp", ""}), " ")
	if got != "always madvise never" {
		t.Errorf("tune --thp completes %q, want always madvise never", got)
	}
	if got := strings.Join(complete(newApp(nil, nil), []string{"run", "faultme", "--thp", ""}), " "); got != "leave never huge" {
		t.Errorf("run faultme --thp completes %q, want faultme's choices", got)
	}
}

// TestCheckNamesPathsFromRoot: check names the files it could not read
// from "/" ("no /sys/devices/system/cpu/smt/active"), as tune's reasons do;
// it printed "no sys/devices/...".
func TestCheckNamesPathsFromRoot(t *testing.T) {
	root := fakeSys(t)
	os.Remove(filepath.Join(root, "sys/devices/system/cpu/smt/active"))
	r := runCLI(t, "check", "--interval", "10ms")
	if r.code != 0 || !strings.Contains(r.stdout, "SMT:       unknown (no /sys/devices/system/cpu/smt/active)") ||
		!strings.Contains(r.stdout, "no cpufreq in /sys/devices/system/cpu/cpu*/cpufreq") {
		t.Errorf("check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if m := regexp.MustCompile(`(^|[^/\w])(sys|proc)/`).FindString(r.stdout); m != "" {
		t.Errorf("check names a path without its leading / (%q):\n%s", m, r.stdout)
	}
}

// TestCheckCountsInWords: check on one CPU with one saved value says "1
// CPU online", "1 value saved" and "would set 1 setting" (it said "1 CPUs
// online", "1 values saved", "setting(s)").
func TestCheckCountsInWords(t *testing.T) {
	root := fakeSys(t)
	os.WriteFile(filepath.Join(root, "sys/devices/system/cpu/online"), []byte("0\n"), 0o644)
	os.WriteFile(filepath.Join(root, "proc/sys/kernel/perf_event_max_sample_rate"), []byte("1\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "state"), 0o755)
	state := `{"saved":"2026-01-01T00:00:00Z","pid":1,"entries":[{"setting":"aslr","path":"proc/sys/kernel/randomize_va_space","old":"2"}]}`
	if err := os.WriteFile(filepath.Join(root, "state/tune.json"), []byte(state), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "check", "--interval", "10ms")
	for _, want := range []string{"(1 CPU online)", "(1 value saved)", "would set 1 setting above"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("check lacks %q: exit %d\n%s%s", want, r.code, r.stdout, r.stderr)
		}
	}
}
