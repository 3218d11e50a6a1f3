package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"contend/internal/env"
	"contend/internal/results"
	"contend/internal/run"
)

// TestEveryCommandWarnsOfTheEnvironment: every command that runs
// repetitions gives the same environment warnings for the same
// configuration (a machine made loaded, virtual, busy and with 2 CPUs
// through the env test hooks): load, runnable threads and VM for all of
// them, in the file and on stderr, and the oversubscription of 8 threads
// on 2 CPUs for the workload commands. verify and exec gave none (they
// never called env.Diagnose), sweep no oversubscription for a fixed
// thread count.
func TestEveryCommandWarnsOfTheEnvironment(t *testing.T) {
	fake := env.Fingerprint{"cpu.online": "2", "loadavg": "9.00 9.00 9.00", "virt": "kvm", "cpu.governor": "performance", "smt": "off", "thp.enabled": "never"}
	oldEnv, oldStale := captureEnv, run.Stale
	t.Cleanup(func() { captureEnv, run.Stale = oldEnv, oldStale; env.OverrideRunnableForTest(-1) })
	captureEnv = func() env.Fingerprint {
		f := env.Fingerprint{}
		for k, v := range fake {
			f[k] = v
		}
		return f
	}
	run.Stale = func() string { return "" }
	env.OverrideRunnableForTest(3)
	machineWide := env.Diagnose(fake, 0, false)
	over := slices.DeleteFunc(env.Diagnose(fake, 8, true), func(w string) bool { return slices.Contains(machineWide, w) })
	if len(machineWide) != 3 || len(over) != 1 {
		t.Fatalf("the fake machine gives %q and %q", machineWide, over)
	}
	dir := chdirTemp(t)
	bin := buildC(t, fakeFaultme)
	wl := []string{"faultme", "--threads", "8", "--mem", "1MiB"}
	for _, c := range []struct {
		name     string
		args     []string
		threaded bool
	}{
		{"run", append(append([]string{"run"}, wl...), "-n", "1"), true},
		{"ab", append(append([]string{"ab"}, wl...), "--aa", "-n", "1"), true},
		{"sweep", []string{"sweep", "faultme", "--threads", "8", "--param", "mem=1MiB,2MiB", "-n", "1"}, true},
		{"verify", append(append([]string{"verify"}, wl...), "-n", "3", "--", bin, "900"), true},
		{"exec", []string{"exec", "-n", "1", "--", "/bin/true"}, false},
		{"ab exec", []string{"ab", "exec", "--aa", "-n", "1", "--", "/bin/true"}, false},
	} {
		out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".json")
		args := append([]string{c.args[0]}, append([]string{"--evidence", "none", "--out", out}, c.args[1:]...)...)
		if c.name == "ab exec" || c.name == "sweep" {
			args = append([]string{c.args[0], c.args[1], "--evidence", "none", "--out", out}, c.args[2:]...)
		}
		r := runCLI(t, args...)
		if r.code != 0 {
			t.Errorf("%s: exit %d\n%s", c.name, r.code, r.stderr)
			continue
		}
		f, err := results.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		want := machineWide
		if c.threaded {
			want = append(slices.Clone(machineWide), over...)
		}
		var got []string
		for _, w := range f.Warnings {
			if slices.Contains(machineWide, w) || slices.Contains(over, w) {
				got = append(got, w)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: environment warnings %q, want %q", c.name, got, want)
		}
		for _, w := range want {
			if !strings.Contains(r.stderr, "warning: "+w+"\n") {
				t.Errorf("%s: stderr lacks %q:\n%s", c.name, w, r.stderr)
			}
		}
	}
}
