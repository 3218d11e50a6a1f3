package external

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"contend/internal/workload"
)

// usageText returns err's text, failing unless it is a usage error
// (exit status 2 in contend).
func usageText(t *testing.T, err error) string {
	t.Helper()
	var ue *workload.UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("error %v (%T), want a *workload.UsageError", err, err)
	}
	return ue.Msg
}

// TestMetricSpecs: --preset's metrics come first and give the primary
// metric; --metric adds to them, the first one primary without a preset;
// a name given twice, a bad spec or an unknown preset is refused, naming
// the flag.
func TestMetricSpecs(t *testing.T) {
	specs, primary, pre, err := MetricSpecs("faultme", []string{`extra=x (\d+)`})
	if err != nil || pre == nil || pre.Name != "faultme" || primary != "time" {
		t.Fatalf("faultme preset: %v %q %v", err, primary, pre)
	}
	if n := len(specs); n != len(pre.Metrics)+1 || specs[n-1].Name != "extra" {
		t.Errorf("specs %v, want the preset's then extra", specs)
	}
	specs, primary, pre, err = MetricSpecs("", []string{`a=a(\d)`, `b=b(\d)`})
	if err != nil || pre != nil || primary != "a" || len(specs) != 2 {
		t.Errorf("no preset: %v %q %v %v", err, primary, pre, specs)
	}
	for _, c := range []struct {
		preset string
		texts  []string
		want   string
	}{
		{"", []string{`a=(\d)`, `a=x(\d)`}, "--metric a: given twice (or also in --preset)"},
		{"faultme", []string{`time=(\d)`}, "--metric time: given twice (or also in --preset)"},
		{"", []string{`x`}, "--metric: "},
		{"nope", nil, "--preset: "},
	} {
		_, _, _, err := MetricSpecs(c.preset, c.texts)
		if msg := usageText(t, err); !strings.HasPrefix(msg, c.want) {
			t.Errorf("%q %q: %q, want it to start with %q", c.preset, c.texts, msg, c.want)
		}
	}
}

// TestProgramMetrics: without a metric the primary one is real; a
// metric named as a process metric is refused.
func TestProgramMetrics(t *testing.T) {
	specs, primary, err := ProgramMetrics("", nil)
	if err != nil || primary != "real" || len(specs) != 0 {
		t.Errorf("no metric: %v %q %v", err, primary, specs)
	}
	_, _, err = ProgramMetrics("", []string{`real=x(\d)`})
	want := "--metric real: real is measured by contend for every repetition (wait4); give the extracted metric another name, such as real_out"
	if msg := usageText(t, err); msg != want {
		t.Errorf("%q, want %q", msg, want)
	}
	if !IsProcessMetric("maxrss") || IsProcessMetric("time") {
		t.Errorf("IsProcessMetric: maxrss is one, time is not")
	}
}

// TestCheckProgram: a missing path, a directory, a file without x bits
// and a name not in PATH are refused, each with its reason and what gave
// the program; an executable path and a name found in PATH pass.
func TestCheckProgram(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := LookPath
	defer func() { LookPath = old }()
	LookPath = func(p string) (string, error) {
		if p == "there" {
			return "/bin/there", nil
		}
		return "", errors.New("not found")
	}
	for _, c := range []struct{ what, p, want string }{
		{"exec", dir + "/nosuch", "exec: " + dir + "/nosuch: no such file"},
		{"--a", dir, "--a: " + dir + " is not an executable file"},
		{"--b", plain, "--b: " + plain + " is not an executable file"},
		{"ab exec", "nosuch", "ab exec: nosuch: not found in PATH (give a path such as ./nosuch)"},
	} {
		if msg := usageText(t, CheckProgram(c.what, c.p)); msg != c.want {
			t.Errorf("%s %s: %q, want %q", c.what, c.p, msg, c.want)
		}
	}
	if err := CheckProgram("exec", "there"); err != nil {
		t.Errorf("a program in PATH: %v", err)
	}
	if err := CheckProgram("exec", "/bin/sh"); err != nil {
		t.Errorf("/bin/sh: %v", err)
	}
}

// TestNameAndTimeout: the workload name of a program's file and the
// default timeout of a program.
func TestNameAndTimeout(t *testing.T) {
	if n := Name("./dir/faultme40", false); n != "exec:faultme40" {
		t.Errorf("Name: %q", n)
	}
	if n := Name("./dir/faultme40", true); n != "exec:sh" {
		t.Errorf("Name with shell: %q", n)
	}
	if d := Timeout(0); d != time.Hour {
		t.Errorf("Timeout(0) = %s, want 1h", d)
	}
	if d := Timeout(3 * time.Second); d != 3*time.Second {
		t.Errorf("Timeout(3s) = %s", d)
	}
}

// TestVerifySpecs: without --metric or --preset, the workload's preset;
// a metric in another unit than the workload's, a process metric, or
// metrics without the workload's primary one are refused.
func TestVerifySpecs(t *testing.T) {
	w, ok := workload.Lookup("faultme")
	if !ok {
		t.Fatal("no faultme")
	}
	specs, err := VerifySpecs(w, nil)
	pre, _ := LookupPreset("faultme")
	if err != nil || len(specs) != len(pre.Metrics) {
		t.Fatalf("faultme's preset: %v %v", err, specs)
	}
	parse := func(texts ...string) []Spec {
		var ss []Spec
		for _, x := range texts {
			s, err := ParseSpec(x)
			if err != nil {
				t.Fatal(err)
			}
			ss = append(ss, s)
		}
		return ss
	}
	if _, err := VerifySpecs(w, parse(`time=(\d+):us`)); err != nil {
		t.Errorf("time in us (ns is its base unit): %v", err)
	}
	for _, c := range []struct {
		specs []Spec
		want  string
	}{
		{parse(`time=(\d+):B`), "metric time: the original's is in bytes, faultme's in ns"},
		{parse(`x=(\d+)`), "verify faultme: the original's metrics (x) do not include faultme's primary metric time"},
		{parse(`x=(\d+)`, `y=(\d+)`), "verify faultme: the original's metrics (x, y) do not include faultme's primary metric time"},
		{parse(`user=(\d+):ns`), "--metric user: user is measured by contend for every repetition (wait4); name the extracted metric differently"},
	} {
		if msg := usageText(t, mustErr(VerifySpecs(w, c.specs))); msg != c.want {
			t.Errorf("%q, want %q", msg, c.want)
		}
	}
	p, _ := workload.Lookup("plugin")
	if msg := usageText(t, mustErr(VerifySpecs(p, nil))); msg != "verify plugin: the workload names no preset for its original's output; give --preset or --metric" {
		t.Errorf("plugin: %q", msg)
	}
}

func mustErr(_ []Spec, err error) error { return err }
