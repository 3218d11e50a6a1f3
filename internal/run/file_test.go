package run

import (
	"errors"
	"strings"
	"testing"

	"contend/internal/external"
	"contend/internal/results"
	"contend/internal/workload"
)

// TestHeaders: a workload's file has its metrics, the process metrics and
// one configuration per value set; an external program's has the
// extracted and the process metrics (an import's only the extracted);
// a program's configuration quotes what a shell would need quoted.
func TestHeaders(t *testing.T) {
	w, ok := workload.Lookup("faultme")
	if !ok {
		t.Skip("no faultme")
	}
	v, err := w.Resolve(map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	f := NewFile("ab", w, []workload.Values{v, v}, []string{"a", "b"}, "label")
	if f.Kind != "ab" || len(f.Configs) != 2 || f.Configs[1].Name != "b" || len(f.Configs[0].Params) != len(w.Params) || f.Label != "label" {
		t.Errorf("workload file: %+v", f)
	}
	if _, ok := f.Metric("maxrss"); !ok {
		t.Errorf("no process metric in %v", f.Metrics)
	}
	s, err := external.ParseSpec(`t=t=(\d+):us`)
	if err != nil {
		t.Fatal(err)
	}
	if f := ExternalFile("exec", "exec:x", []external.Spec{s}, "t", ""); len(f.Metrics) != 1+len(workload.ProcessMetrics) || f.Primary != "t" {
		t.Errorf("exec file metrics %v", f.Metrics)
	}
	if f := ExternalFile("import", "x", []external.Spec{s}, "t", ""); len(f.Metrics) != 1 {
		t.Errorf("import file metrics %v", f.Metrics)
	}
	c := ProgramConfig("a", []string{"./p", "-x", "a b", "it's", ""}, false)
	if c.Params[0].Value != "./p" || c.Params[1].Value != `-x 'a b' 'it'\''s' ''` {
		t.Errorf("program config %+v", c.Params)
	}
	if c := ProgramConfig("", []string{"cd /tmp &&", "ls"}, true); len(c.Params) != 1 || c.Params[0].Name != "shell" || c.Params[0].Value != "cd /tmp && ls" {
		t.Errorf("shell config %+v", c.Params)
	}
}

// TestVerifyFile: verify's file has the configurations contend and
// original, the program's metrics added once (a metric the workload has
// already is not listed twice) and its warnings.
func TestVerifyFile(t *testing.T) {
	w, ok := workload.Lookup("faultme")
	if !ok {
		t.Skip("no faultme")
	}
	v, err := w.Resolve(map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	extra, err := external.ParseSpec(`extra=x=(\d+):us`)
	if err != nil {
		t.Fatal(err)
	}
	same, err := external.ParseSpec(w.Primary + `=y=(\d+):ns`)
	if err != nil {
		t.Fatal(err)
	}
	f := VerifyFile(w, v, []string{"w1"}, []external.Spec{extra, same}, []string{"./orig", "-n"}, "l")
	base := NewFile("verify", w, []workload.Values{v}, []string{"contend"}, "l")
	if f.Kind != "verify" || len(f.Configs) != 2 || f.Configs[0].Name != "contend" || f.Configs[1].Name != "original" {
		t.Errorf("configs %+v", f.Configs)
	}
	if len(f.Metrics) != len(base.Metrics)+1 || len(f.Warnings) != 1 {
		t.Errorf("%d metrics (base %d), warnings %v", len(f.Metrics), len(base.Metrics), f.Warnings)
	}
}

// TestOutMode checks what --append and --replace say: each alone with an
// --out, both refused, either without --out refused, a directory refused
// in every mode, nothing asked a new file.
func TestOutMode(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		out       string
		app, repl bool
		want      results.Mode
		err       string
	}{
		{"x.json", false, false, results.ModeNew, ""},
		{"x.json", true, false, results.ModeAppend, ""},
		{"x.json", false, true, results.ModeReplace, ""},
		{"x.json", true, true, results.ModeNew, "--append and --replace exclude each other"},
		{"", true, false, results.ModeNew, "--append needs --out FILE"},
		{"", false, true, results.ModeNew, "--replace needs --out FILE"},
		{dir, false, false, results.ModeNew, "is a directory"},
		{dir, true, false, results.ModeNew, "is a directory"},
	} {
		m, err := OutMode(c.out, c.app, c.repl)
		var ue *workload.UsageError
		if m != c.want || c.err == "" && err != nil || c.err != "" && (!errors.As(err, &ue) || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%q append=%v replace=%v: %v, %v", c.out, c.app, c.repl, m, err)
		}
	}
}
