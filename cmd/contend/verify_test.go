package main

import (
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/results"
)

func TestVerifyAlternatesAndReports(t *testing.T) {
	dir := chdirTemp(t)
	bin := buildC(t, fakeFaultme)
	out := filepath.Join(dir, "v.json")
	r := runCLI(t, "verify", "faultme", "--threads", "2", "--mem", "1MiB", "-n", "3", "--margin", "10%", "--out", out, "--", bin, "900")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"verify faultme", "contend:  threads=2 mem=1MiB", "original: program=" + bin + " args=900",
		"3 ok, 0 failed", "ratio", "95% CI", "verdict on time, margin ±10%:", "90% CI of the ratio"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, r.stdout)
		}
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != "verify" || len(f.Configs) != 2 || f.Configs[0].Name != "contend" || f.Configs[1].Name != "original" || len(f.Reps) != 6 {
		t.Fatalf("file: %s %+v %d reps", f.Kind, f.Configs, len(f.Reps))
	}
	// Rounds alternate the order: c o, o c, c o.
	var order []int
	for _, rep := range f.Reps {
		order = append(order, rep.Config)
		if rep.Status != results.StatusOK {
			t.Errorf("rep %d: %s %s", rep.Index, rep.Status, rep.Error)
		}
	}
	if got := fmtInts(order); got != "0 1 1 0 0 1" {
		t.Errorf("order %s", got)
	}
	if v := f.Values(1, "time"); len(v) != 3 || v[0] != 900e3 {
		t.Errorf("original times %v", v)
	}
	if s := runCLI(t, "show", out); s.code != 0 || !strings.Contains(s.stdout, "faultme  original") {
		t.Errorf("show: %d %s", s.code, s.stdout)
	}
}

func fmtInts(xs []int) string {
	var s []string
	for _, x := range xs {
		s = append(s, string(rune('0'+x)))
	}
	return strings.Join(s, " ")
}

func TestVerifyUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"verify", "faultme", "--mem", "1MiB"}, "which original program?"},
		{[]string{"verify", "faultme", "--margin", "200%", "--", "true"}, "--margin"},
		{[]string{"verify", "faultme", "--metric", "x=(\\d+)", "--", "true"}, "do not include faultme's primary metric time"},
		{[]string{"verify", "nosuch"}, `no workload "nosuch"`},
	} {
		dir := chdirTemp(t)
		r := runCLI(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
		if fs := listFiles(t, dir); len(fs) != 0 {
			t.Errorf("%v: files left %v", c.args, fs)
		}
	}
}
