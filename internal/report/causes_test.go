package report

import (
	"encoding/json"
	"strings"
	"testing"

	"contend/internal/comparison"
	"contend/internal/results"
)

// TestCompareNamesTHP: sides whose THP settings differ (generic kernel
// 'always' against an -rt kernel without THP) get a warning naming THP
// as a cause, before the headline, in text, markdown and JSON; sides with
// the same THP, or a side that did not record it, get none.
func TestCompareNamesTHP(t *testing.T) {
	mk := func(thp string, base float64) *results.File {
		v := make([]float64, 8)
		for i := range v {
			v[i] = base * (1 + 0.01*float64(i%4))
		}
		f := file("faultme", []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}}, []string{""}, map[string][][]float64{"time": {v}})
		if thp != "" {
			f.Env["thp.enabled"] = thp
			if thp == "not built" {
				f.Env["thp.defrag"], f.Env["thp.use_zero_page"] = thp, thp
			} else {
				f.Env["thp.defrag"], f.Env["thp.use_zero_page"] = "madvise", "1"
			}
		}
		return f
	}
	r, err := comparison.Build([]comparison.Side{comparison.FileSide("generic", mk("always", 1e6), 0), comparison.FileSide("rt", mk("not built", 3e6), 0)}, comparison.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Causes) != 1 || !strings.Contains(r.Causes[0], "thp.enabled: A always, B not built") || !strings.Contains(r.Causes[0], "huge zero page") {
		t.Fatalf("causes %q", r.Causes)
	}
	var text strings.Builder
	if err := Write(&text, r, "text"); err != nil {
		t.Fatal(err)
	}
	one := strings.Join(strings.Fields(text.String()), " ")
	warn := strings.Index(one, "warning: transparent huge pages differ between the sides")
	head := strings.Index(one, HeadlineFor(r, r.Pairs[0]))
	if warn < 0 || head < 0 || warn > head {
		t.Errorf("the THP warning (at %d) is not before the headline (at %d):\n%s", warn, head, text.String())
	}
	var md strings.Builder
	Write(&md, r, "markdown")
	if !strings.Contains(md.String(), "- **warning:** transparent huge pages differ") {
		t.Errorf("markdown lacks the THP warning:\n%s", md.String())
	}
	var js strings.Builder
	Write(&js, r, "json")
	var j struct {
		Causes []string `json:"env_causes"`
	}
	if err := json.Unmarshal([]byte(js.String()), &j); err != nil || len(j.Causes) != 1 {
		t.Errorf("json env_causes %q, %v", j.Causes, err)
	}
	// Only thp.defrag differs: it is named.
	a, b := mk("madvise", 1e6), mk("madvise", 1e6)
	a.Env["thp.defrag"], b.Env["thp.defrag"] = "madvise", "always"
	r, err = comparison.Build([]comparison.Side{comparison.FileSide("a", a, 0), comparison.FileSide("b", b, 0)}, comparison.Options{Alpha: 0.05})
	if err != nil || len(r.Causes) != 1 || !strings.Contains(r.Causes[0], "thp.defrag: A madvise, B always") {
		t.Errorf("defrag only: %v %q", err, r.Causes)
	}
	for _, c := range [][2]string{{"madvise", "madvise"}, {"always", ""}} {
		r, err := comparison.Build([]comparison.Side{comparison.FileSide("a", mk(c[0], 1e6), 0), comparison.FileSide("b", mk(c[1], 1e6), 0)}, comparison.Options{Alpha: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Causes) != 0 {
			t.Errorf("thp %q against %q: causes %q", c[0], c[1], r.Causes)
		}
	}
}

// TestBriefSaysTheCauses: the brief text (compare's default) keeps what
// moves the measurement by itself, as the full text does, once: here that
// the runs were measured in a VM under TCG, whose timings include the
// emulation.
func TestBriefSaysTheCauses(t *testing.T) {
	mk := func(base float64) *results.File {
		v := make([]float64, 8)
		for i := range v {
			v[i] = base * (1 + 0.01*float64(i%4))
		}
		f := file("faultme", []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}}, []string{""}, map[string][][]float64{"time": {v}})
		f.Env["vm.accel"], f.Env["vm.cpus"], f.Env["vm.mem"], f.Env["vm.qemu"] = "tcg", "2", "1024 MiB", "7.2.22"
		return f
	}
	r, err := comparison.Build([]comparison.Side{comparison.FileSide("a", mk(1e6), 0), comparison.FileSide("b", mk(2e6), 0)}, comparison.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []Detail{Brief, BriefAll, Full} {
		var b strings.Builder
		if err := WriteText(&b, r, d); err != nil {
			t.Fatal(err)
		}
		if one := strings.Join(strings.Fields(b.String()), " "); strings.Count(one, "warning: measured in a VM (TCG;") != 1 || !strings.Contains(one, "the timings include the emulation") {
			t.Errorf("detail %v: not one VM note:\n%s", d, b.String())
		}
	}
}

// TestCompareNamesKernelConfig: sides whose kernels contend built from a
// tree with configs that differ in an option that changes contention
// (kbuild.config.*) get a warning naming the options before the
// headline; the build's time and objects rebuilt differ without being an
// environment difference; kernels of one config get no warning.
func TestCompareNamesKernelConfig(t *testing.T) {
	mk := func(mc, rev string, secs string, base float64) *results.File {
		v := make([]float64, 8)
		for i := range v {
			v[i] = base * (1 + 0.01*float64(i%4))
		}
		f := file("faultme", []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}}, []string{""}, map[string][][]float64{"time": {v}})
		f.Env["kbuild.config.SCHED_MC"], f.Env["kbuild.config.NR_CPUS"] = mc, "64"
		f.Env["kbuild.revision"], f.Env["kbuild.build_seconds"], f.Env["kbuild.objects_rebuilt"] = rev, secs, secs
		return f
	}
	r, err := comparison.Build([]comparison.Side{comparison.FileSide("a", mk("y", "aaa", "100", 1e6), 0), comparison.FileSide("b", mk("n", "bbb", "7", 2e6), 0)}, comparison.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Causes) != 1 || !strings.Contains(r.Causes[0], "CONFIG_SCHED_MC: A y, B n") || strings.Contains(r.Causes[0], "NR_CPUS") {
		t.Fatalf("causes %q", r.Causes)
	}
	var keys []string
	for _, d := range r.EnvDiffs {
		keys = append(keys, d.Key)
	}
	if strings.Join(keys, " ") != "kbuild.config.SCHED_MC kbuild.revision" {
		t.Errorf("environment differences %q: want the option and the revision, not the build's time nor objects", keys)
	}
	var text strings.Builder
	if err := Write(&text, r, "text"); err != nil {
		t.Fatal(err)
	}
	one := strings.Join(strings.Fields(text.String()), " ")
	warn := strings.Index(one, "warning: the kernels' configs differ in options that change what contention looks like")
	head := strings.Index(one, HeadlineFor(r, r.Pairs[0]))
	if warn < 0 || head < 0 || warn > head {
		t.Errorf("the config warning (at %d) is not before the headline (at %d):\n%s", warn, head, text.String())
	}
	r, err = comparison.Build([]comparison.Side{comparison.FileSide("a", mk("y", "aaa", "100", 1e6), 0), comparison.FileSide("b", mk("y", "bbb", "7", 2e6), 0)}, comparison.Options{Alpha: 0.05})
	if err != nil || len(r.Causes) != 0 {
		t.Errorf("one config: causes %q, %v", r.Causes, err)
	}
}

// TestCompareNamesPageReporting: sides where free page reporting differs
// (a guest whose host takes back freed memory against one whose host does
// not) get a warning naming it; sides that agree, or a side that did not
// record it, get none.
func TestCompareNamesPageReporting(t *testing.T) {
	mk := func(pr string) *results.File {
		f := file("faultme", []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}}, []string{""}, map[string][][]float64{"time": {{1, 2, 3, 4, 5, 6}}})
		if pr != "" {
			f.Env["mem.page_reporting"] = pr
		}
		return f
	}
	on := "on (virtio-balloon, free blocks of 2 MiB and more)"
	r, err := comparison.Build([]comparison.Side{comparison.FileSide("a", mk(on), 0), comparison.FileSide("b", mk("off"), 0)}, comparison.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Causes) != 1 || !strings.Contains(r.Causes[0], "free page reporting differs between the sides (A "+on+", B off)") {
		t.Fatalf("causes %q", r.Causes)
	}
	for _, c := range [][2]string{{on, on}, {"off", ""}} {
		r, err := comparison.Build([]comparison.Side{comparison.FileSide("a", mk(c[0]), 0), comparison.FileSide("b", mk(c[1]), 0)}, comparison.Options{Alpha: 0.05})
		if err != nil || len(r.Causes) != 0 {
			t.Errorf("page reporting %q against %q: %v, causes %q", c[0], c[1], err, r.Causes)
		}
	}
}
