package ab

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"contend/internal/evidence"
	"contend/internal/limits"
	"contend/internal/results"
	"contend/internal/workload"
)

// options are the A/B flags as given when only those in set were typed,
// with the defaults of the command line (abFlags in cmd/contend).
func options(set ...string) Options {
	o := Options{Order: OrderAB, Seed: 1, MinRuns: 5, MaxRuns: 30, Alpha: 0.05,
		PrepareTimeout: time.Minute, Evidence: "default", Set: map[string]bool{}}
	for _, s := range set {
		o.Set[s] = true
	}
	return o
}

func usageMsg(t *testing.T, err error) string {
	t.Helper()
	var ue *workload.UsageError
	if !errors.As(err, &ue) {
		t.Fatalf("error %v (%T), want a *workload.UsageError", err, err)
	}
	return ue.Msg
}

// TestNewPlanRefuses: each flag combination the A/B commands refuse,
// with its message.
func TestNewPlanRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		o    func() Options
		want string
	}{
		{"aa with --b", func() Options { o := options("aa", "b"); o.AA = true; return o },
			"--aa runs the same configuration on both sides: it cannot be combined with --b, --b-prepare, --b-evidence or --trace-events"},
		{"aa with --trace-events", func() Options { o := options("trace-events"); o.AA, o.Trace = true, "lock"; return o },
			"--aa runs the same configuration on both sides: it cannot be combined with --b, --b-prepare, --b-evidence or --trace-events"},
		{"empty trace", func() Options { o := options("trace-events"); o.Trace = " "; return o },
			"--trace-events: empty; accepted: GROUP or GROUP:EVENT, such as lock"},
		{"seed without random", func() Options { o := options("seed"); o.Order = OrderABBA; return o },
			"--seed goes with --order random (the order abba draws nothing); give --order random or drop --seed"},
		{"min-runs alone", func() Options { return options("min-runs") }, "--min-runs and --max-runs need --until"},
		{"max-runs alone", func() Options { return options("max-runs") }, "--min-runs and --max-runs need --until"},
		{"max below min", func() Options {
			o := options("until", "min-runs", "max-runs")
			o.Until, o.MinRuns, o.MaxRuns = 0.05, 9, 6
			return o
		}, "--max-runs: 6 is out of range; accepted: an integer from --min-runs (9) to 200"},
		{"until and -n", func() Options { o := options("until", "runs"); o.Until = 0.05; return o },
			"-n/--runs and --until exclude each other: --until decides the count between --min-runs and --max-runs"},
		{"bad --evidence", func() Options { o := options("evidence"); o.Evidence = "nope"; return o }, "--evidence: "},
		{"bad --b-evidence", func() Options { o := options("b-evidence"); o.SideEvidence[1] = "nope"; return o }, "--b-evidence: "},
	} {
		_, err := NewPlan(c.o())
		if msg := usageMsg(t, err); !strings.HasPrefix(msg, c.want) {
			t.Errorf("%s: %q, want %q", c.name, msg, c.want)
		}
	}
}

// TestNewPlanSides: the sides' evidence (--evidence for a side without
// its own, side A's for B under --aa) and prepare commands; the
// adaptive flags count only with --until.
func TestNewPlanSides(t *testing.T) {
	def, _ := evidence.Parse("default")
	o := options("a-evidence")
	o.SideEvidence[0] = "none"
	p, err := NewPlan(o)
	if err != nil || !p.SideEvidence || len(p.Evidence[0]) != 0 || !slices.Equal(p.Evidence[1], def) {
		t.Errorf("--a-evidence none: %v %v %v", err, p.SideEvidence, p.Evidence)
	}
	o = options("aa", "a-evidence", "a-prepare")
	o.AA, o.SideEvidence[0], o.Prepare[0] = true, "perf", "echo a"
	if p, err = NewPlan(o); err != nil || !slices.Equal(p.Evidence[0], p.Evidence[1]) || p.Prepare[1] != "echo a" {
		t.Errorf("--aa: side B takes side A's evidence and prepare: %v %v %q", err, p.Evidence, p.Prepare)
	}
	o = options()
	if p, err = NewPlan(o); err != nil || p.SideEvidence || p.Until != 0 || p.MaxRuns != 0 || !slices.Equal(p.Evidence[0], def) {
		t.Errorf("no side flags: %v %+v", err, p)
	}
	o = options("until", "max-runs")
	o.Until, o.MaxRuns = 0.05, 12
	if p, err = NewPlan(o); err != nil || p.Until != 0.05 || p.MinRuns != 5 || p.MaxRuns != 12 {
		t.Errorf("--until 5%% --max-runs 12: %v %+v", err, p)
	}
}

// TestCheckDistinct: the same run on both sides is refused unless a
// prepare command, trace events, evidence or --aa tells them apart.
func TestCheckDistinct(t *testing.T) {
	p, _ := NewPlan(options())
	want := "sides A and B are the same configuration: give --a/--b flags, --a-prepare/--b-prepare, --a-evidence/--b-evidence, or --trace-events (or --aa for a null control)"
	if msg := usageMsg(t, p.CheckDistinct(true, "--a/--b flags")); msg != want {
		t.Errorf("%q, want %q", msg, want)
	}
	if err := p.CheckDistinct(false, "x"); err != nil {
		t.Errorf("different runs: %v", err)
	}
	for _, q := range []Plan{
		{Evidence: p.Evidence, Prepare: [2]string{"", "echo b"}},
		{Evidence: p.Evidence, Trace: "lock"},
		{Evidence: [2][]string{nil, {"perf"}}},
		{Evidence: p.Evidence, AA: true},
	} {
		if err := q.CheckDistinct(true, "x"); err != nil {
			t.Errorf("%+v: %v", q, err)
		}
	}
}

// TestSetup: the adaptive rule and the number of pairs, each side's
// evidence and prepare command recorded in its configuration, and the
// refusals (--until with --append, --trace-events with lock evidence).
func TestSetup(t *testing.T) {
	file := func() *results.File { return &results.File{Configs: []results.Config{{Name: "a"}, {Name: "b"}}} }
	o := options("a-evidence", "b-prepare")
	o.SideEvidence[0], o.Prepare[1] = "none", "sysctl x=1"
	p, _ := NewPlan(o)
	f := file()
	r, err := p.Setup(f, []string{"sched"}, 8, results.ModeNew)
	if err != nil || r.Rule != nil || r.Pairs != 8 || len(r.ConfigEvidence) != 2 {
		t.Fatalf("fixed run: %v %+v", err, r)
	}
	if !slices.Equal(r.Evidence, evidence.Union(p.Evidence[0], p.Evidence[1])) {
		t.Errorf("evidence %v, want the union of the sides'", r.Evidence)
	}
	want0 := map[string]string{"evidence": evidence.Describe(nil)}
	want1 := map[string]string{"evidence": evidence.Describe(p.Evidence[1]), "prepare": "sysctl x=1"}
	if !maps.Equal(f.Configs[0].Env, want0) || !maps.Equal(f.Configs[1].Env, want1) {
		t.Errorf("configs' env %v %v, want %v %v", f.Configs[0].Env, f.Configs[1].Env, want0, want1)
	}
	p, _ = NewPlan(options())
	if r, _ := p.Setup(file(), []string{"sched"}, 8, results.ModeNew); r.Evidence != nil || r.ConfigEvidence != nil {
		t.Errorf("no side evidence: %+v, want the command's --evidence (nil)", r)
	}
	o = options("until", "min-runs", "max-runs")
	o.Until, o.MinRuns, o.MaxRuns = 0.05, 4, 20
	p, _ = NewPlan(o)
	if r, err := p.Setup(file(), nil, 6, results.ModeNew); err != nil || r.Rule == nil || r.Pairs != 20 || r.Rule.MaxRuns != 20 {
		t.Errorf("adaptive: %v %+v", err, r)
	}
	_, err = p.Setup(file(), nil, 6, results.ModeAppend)
	if msg := usageMsg(t, err); msg != "--append: an adaptive A/B run (--until) cannot append, its stopping rule counts from its first pair; give another --out" {
		t.Errorf("adaptive --append: %q", msg)
	}
	o = options("trace-events")
	o.Trace = "lock"
	p, _ = NewPlan(o)
	_, err = p.Setup(file(), []string{"sched", "lock"}, 6, results.ModeNew)
	if msg := usageMsg(t, err); msg != "--trace-events and --evidence lock (or locktrace) may both use tracefs (lock falls back to it without BPF): give one of them" {
		t.Errorf("trace and lock: %q", msg)
	}
}

// TestSideFlags: --a/--b texts as workload flags: NAME VALUE, NAME=VALUE,
// a boolean alone, the same value twice; and every refusal.
func TestSideFlags(t *testing.T) {
	w, _ := workload.Lookup("plugin")
	got, err := SideFlags(w, "a", "--threads 4 --pin --duration=2s --threads 4")
	want := map[string]string{"threads": "4", "pin": "true", "duration": "2s"}
	if err != nil || !maps.Equal(got, want) {
		t.Errorf("got %v %v, want %v", got, err, want)
	}
	for _, c := range []struct{ text, want string }{
		{"threads 4", `--b: "threads" is not a flag; give workload flags such as '--threads 4'`},
		{"--nosuch 1", "--b: plugin has no parameter --nosuch; see 'contend help plugin'"},
		{"--evidence none", "--b: --evidence is not a workload parameter; give the side's collectors with --b-evidence LIST (such as --b-evidence none)"},
		{"--threads", "--b: --threads needs a value"},
		{"--threads 2 --threads 3", `--b: --threads given twice ("2", then "3"); give it once`},
		{"'unclosed", "--b: "},
	} {
		_, err := SideFlags(w, "b", c.text)
		if msg := usageMsg(t, err); !strings.HasPrefix(msg, c.want) {
			t.Errorf("%q: %q, want %q", c.text, msg, c.want)
		}
	}
}

// TestSides: the shared flags with each side's own on top; --aa runs
// --a on both sides; a bad value names its side; the same values on
// both sides are refused.
func TestSides(t *testing.T) {
	w, _ := workload.Lookup("faultme")
	m := limits.Machine{CPUs: 64, ThreadsMax: 1 << 20, PidMax: 1 << 22, StackMin: 16384, ThreadStack: 8 << 20}
	p, _ := NewPlan(options("b"))
	sides, warns, err := p.Sides(w, map[string]string{"mem": "1MB", "threads": "2"}, [2]string{"", "--threads 4"}, m)
	if err != nil || sides[0].Int("threads") != 2 || sides[1].Int("threads") != 4 || sides[0]["mem"] != sides[1]["mem"] {
		t.Fatalf("%v %v", err, sides)
	}
	if len(warns) != 2 || !strings.HasPrefix(warns[0], "--mem 1MB is decimal") {
		t.Errorf("warnings %q, want the decimal note of each side", warns)
	}
	_, _, err = p.Sides(w, map[string]string{"mem": "1MiB"}, [2]string{"", "--threads 0"}, m)
	if msg := usageMsg(t, err); !strings.HasPrefix(msg, "side B: --threads: 0 is out of range") {
		t.Errorf("%q", msg)
	}
	_, _, err = p.Sides(w, map[string]string{"mem": "1MiB"}, [2]string{"--threads 2", "--threads 2"}, m)
	if msg := usageMsg(t, err); !strings.HasPrefix(msg, "sides A and B are the same configuration: give --a/--b flags") {
		t.Errorf("%q", msg)
	}
	o := options("aa")
	o.AA = true
	p, _ = NewPlan(o)
	sides, _, err = p.Sides(w, map[string]string{"mem": "1MiB"}, [2]string{"--threads 3", ""}, m)
	if err != nil || sides[1].Int("threads") != 3 || !maps.Equal(sides[0], sides[1]) {
		t.Errorf("--aa: %v %v", err, sides)
	}
}
