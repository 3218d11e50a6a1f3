package report

import (
	"strings"
	"testing"
	"time"

	"contend/internal/comparison"
	"contend/internal/results"
)

// TestWarningHead: a warning in short is what it names, without what
// follows from it; one headed by a single word keeps what that word is
// about.
func TestWarningHead(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"load average 7.22 on 2 CPUs: other work is running and will disturb the results", "load average 7.22 on 2 CPUs"},
		{"running in a virtual machine (cpu flag hypervisor; KVM): steal time and hypervisor-bound faults add noise", "running in a virtual machine (cpu flag hypervisor; KVM)"},
		{"5 other runnable threads right now", "5 other runnable threads right now"},
		{"unstable: time varies by 26.4% over 6 runs (stdev/mean; above 10% the runs are noisier than a quiet machine gives): see 'contend check' and 'contend tune'", "unstable: time varies by 26.4% over 6 runs"},
	} {
		if got := warningHead(c.in); got != c.want {
			t.Errorf("warningHead(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestSpanFigures: the figures that differ between the heads become
// their range, the others stay as they are.
func TestSpanFigures(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{"load average 2.31 on 2 CPUs"}, "load average 2.31 on 2 CPUs"},
		{[]string{"load average 3.00 on 2 CPUs", "load average 5.10 on 2 CPUs", "load average 2.31 on 2 CPUs"}, "load average 2.31 to 5.10 on 2 CPUs"},
		{[]string{"3 other runnable threads right now", "3 other runnable threads right now"}, "3 other runnable threads right now"},
		{[]string{"unstable: time varies by 26.4% over 6 runs", "unstable: time varies by 11% over 10 runs"}, "unstable: time varies by 11 to 26.4% over 6 to 10 runs"},
	} {
		if got := spanFigures(c.in); got != c.want {
			t.Errorf("spanFigures(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestBriefPooledFiles: compare of several files a side (no boots): the
// brief report says each side in one line ("2 files pooled"), not its
// files, and counts the files' warnings per side; with one file a side
// it says each file's warnings as they are; --full lists the files and
// every warning.
func TestBriefPooledFiles(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	mk := func(i int, base float64, warns ...string) *results.File {
		v := make([]float64, 8)
		for j := range v {
			v[j] = base * (1 + 0.01*float64(j%4))
		}
		f := file("faultme", []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}}, []string{""}, map[string][][]float64{"time": {v}})
		f.Start, f.Warnings = t0.Add(time.Duration(i)*time.Hour), warns
		return f
	}
	vm := "running in a virtual machine (KVM): steal time and hypervisor-bound faults add noise"
	// A side as compare --a F1 F2 makes it: named by its files.
	side := func(name string, fs ...*results.File) comparison.Side {
		var s comparison.Side
		var names []string
		for i, f := range fs {
			s.Parts = append(s.Parts, comparison.Part{Name: name + string(rune('1'+i)) + ".jsonl", File: f, Configs: []int{0}})
			names = append(names, s.Parts[i].Name)
		}
		s.Name = strings.Join(names, " + ")
		return s
	}
	r, err := comparison.Build([]comparison.Side{
		side("a", mk(0, 1e6, vm), mk(1, 1e6, vm, "load average 3.10 on 2 CPUs: other work is running")),
		side("b", mk(2, 2e6, vm), mk(3, 2e6, vm)),
	}, comparison.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteText(&b, r, Brief); err != nil {
		t.Fatal(err)
	}
	brief := b.String()
	for _, want := range []string{
		"  A  2 files pooled",
		"  B  2 files pooled",
		"warning: 4 of 4 files: running in a virtual machine (KVM)\n",
		"warning: 1 of 4 files (A 1 of 2, B 0 of 2): load average 3.10 on 2 CPUs\n",
	} {
		if !strings.Contains(brief, want) {
			t.Errorf("brief report lacks %q:\n%s", want, brief)
		}
	}
	if strings.Contains(brief, "a1.jsonl") || strings.Contains(brief, "steal time") {
		t.Errorf("brief report names a file or repeats a warning:\n%s", brief)
	}
	b.Reset()
	if err := WriteText(&b, r, Full); err != nil {
		t.Fatal(err)
	}
	if full := b.String(); strings.Count(full, "steal time") != 4 || !strings.Contains(full, "       a2.jsonl") {
		t.Errorf("the full report does not list the files and every warning:\n%s", full)
	}

	// One file a side: the warnings as the files said them.
	r, err = comparison.Build([]comparison.Side{side("a", mk(0, 1e6, vm)), side("b", mk(2, 2e6, vm))}, comparison.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := WriteText(&b, r, Brief); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "hypervisor-bound"); n != 2 {
		t.Errorf("one file a side: the VM warning %d times, want each file's (2):\n%s", n, b.String())
	}
}
