package ab

import (
	"maps"
	"slices"
	"strings"
	"time"

	"contend/analysis"
	"contend/internal/evidence"
	"contend/internal/external"
	"contend/internal/limits"
	"contend/internal/results"
	"contend/internal/workload"
)

// Options are the A/B flags of a command line (ab WORKLOAD, ab exec) as
// given, read but not judged; Set names the flags the user gave (without
// dashes).
type Options struct {
	AA             bool
	Prepare        [2]string // --a-prepare, --b-prepare
	Cleanup        string
	Trace          string // --trace-events
	Order          Order
	Seed           uint64
	Until          float64 // --until, a relative half-width
	MinRuns        int
	MaxRuns        int
	Alpha          float64
	PrepareTimeout time.Duration
	Evidence       string    // --evidence, both sides
	SideEvidence   [2]string // --a-evidence, --b-evidence
	Set            map[string]bool
}

// Plan is a checked A/B command line, apart from what the sides run
// (workload values or programs).
type Plan struct {
	AA             bool
	Prepare        [2]string
	Cleanup        string
	Trace          string
	Order          Order
	Seed           uint64
	Until          float64 // relative half-width, 0: a fixed number of pairs
	MinRuns        int
	MaxRuns        int
	Alpha          float64
	PrepareTimeout time.Duration
	Evidence       [2][]string // each side's collectors
	SideEvidence   bool        // --a-evidence or --b-evidence gave them
}

// NewPlan checks o: --aa against what sets side B apart, each side's
// evidence, --trace-events, --seed against the order, the adaptive flags
// (--until, --min-runs, --max-runs) against each other and -n. Every
// refusal is a *workload.UsageError naming the flags.
func NewPlan(o Options) (Plan, error) {
	p := Plan{AA: o.AA, Prepare: o.Prepare, Cleanup: o.Cleanup, Trace: o.Trace, Order: o.Order,
		Seed: o.Seed, Alpha: o.Alpha, PrepareTimeout: o.PrepareTimeout}
	set := o.Set
	if o.AA && (set["b"] || set["trace-events"] || set["b-prepare"] || set["b-evidence"]) {
		return p, workload.Usagef("--aa runs the same configuration on both sides: it cannot be combined with --b, --b-prepare, --b-evidence or --trace-events")
	}
	var err error
	if p.Evidence, p.SideEvidence, err = sideEvidence(o); err != nil {
		return p, err
	}
	if o.AA {
		p.Prepare[1] = p.Prepare[0]
	}
	if set["trace-events"] && strings.TrimSpace(p.Trace) == "" {
		return p, workload.Usagef("--trace-events: empty; accepted: GROUP or GROUP:EVENT, such as lock")
	}
	if set["seed"] && p.Order != OrderRandom {
		return p, workload.Usagef("--seed goes with --order random (the order %s draws nothing); give --order random or drop --seed", p.Order)
	}
	return p, p.adaptive(o)
}

// adaptive reads --until, --min-runs and --max-runs into p.
func (p *Plan) adaptive(o Options) error {
	set := o.Set
	if !set["until"] {
		if set["max-runs"] || set["min-runs"] {
			return workload.Usagef("--min-runs and --max-runs need --until")
		}
		return nil
	}
	p.Until, p.MinRuns, p.MaxRuns = o.Until, o.MinRuns, o.MaxRuns
	if set["max-runs"] && p.MaxRuns < p.MinRuns {
		return workload.Usagef("--max-runs: %d is out of range; accepted: an integer from --min-runs (%d) to %d", p.MaxRuns, p.MinRuns, analysis.SequentialMaxRuns)
	}
	if set["runs"] {
		return workload.Usagef("-n/--runs and --until exclude each other: --until decides the count between --min-runs and --max-runs")
	}
	return nil
}

// sideEvidence reads --a-evidence and --b-evidence: each side's
// collectors, --evidence for a side without its own (with --aa, side B
// takes side A's). ok tells whether either flag was given.
func sideEvidence(o Options) (sides [2][]string, ok bool, err error) {
	shared, err := evidence.Parse(o.Evidence)
	if err != nil {
		return sides, false, workload.Usagef("%v", err)
	}
	for i, name := range []string{"a-evidence", "b-evidence"} {
		sides[i] = shared
		from, text := name, o.SideEvidence[i]
		if i == 1 && o.AA {
			from, text = "a-evidence", o.SideEvidence[0]
		}
		if !o.Set[from] {
			continue
		}
		ok = true
		if sides[i], err = evidence.ParseFlag("--"+from, text); err != nil {
			return sides, false, workload.Usagef("%v", err)
		}
	}
	return sides, ok, nil
}

// CheckDistinct refuses two sides that would run the same configuration
// (sameRun: what the sides run is the same) unless --aa asks for it; how
// says what would set them apart.
func (p Plan) CheckDistinct(sameRun bool, how string) error {
	sameEvidence := slices.Equal(p.Evidence[0], p.Evidence[1])
	if sameRun && p.Prepare[0] == p.Prepare[1] && p.Trace == "" && sameEvidence && !p.AA {
		return workload.Usagef("sides A and B are the same configuration: give %s, --a-prepare/--b-prepare, --a-evidence/--b-evidence, or --trace-events (or --aa for a null control)", how)
	}
	return nil
}

// Prepared is what an A/B run needs beyond its Plan, decided from it: the
// collectors to open (nil: the command's --evidence), each side's view of
// them (nil: the same for both), the stopping rule (nil: pairs fixed) and
// the number of pairs.
type Prepared struct {
	Evidence       []string
	ConfigEvidence [][]string
	Rule           *analysis.Sequential
	Pairs          int
}

// Setup checks the plan against the run's other flags (shared: the
// --evidence collectors, runs: -n, mode: what --out does) and records
// each side's prepare command and evidence in f's two configurations.
func (p Plan) Setup(f *results.File, shared []string, runs int, mode results.Mode) (Prepared, error) {
	var r Prepared
	if p.Until > 0 && mode == results.ModeAppend {
		return r, workload.Usagef("--append: an adaptive A/B run (--until) cannot append, its stopping rule counts from its first pair; give another --out")
	}
	both := shared // the collectors of both sides: --evidence, or the union
	if p.SideEvidence {
		// One set of collectors, the union of the sides', opened
		// once; each repetition collects its side's view of it.
		both = evidence.Union(p.Evidence[0], p.Evidence[1])
		r.Evidence, r.ConfigEvidence = both, p.Evidence[:]
	}
	if p.Trace != "" && (slices.Contains(both, "lock") || slices.Contains(both, "locktrace")) {
		return r, workload.Usagef("--trace-events and --evidence lock (or locktrace) may both use tracefs (lock falls back to it without BPF): give one of them")
	}
	for i := range f.Configs {
		if p.Prepare[i] != "" {
			setEnv(&f.Configs[i], "prepare", p.Prepare[i])
		}
		if p.SideEvidence {
			setEnv(&f.Configs[i], "evidence", evidence.Describe(p.Evidence[i]))
		}
	}
	var err error
	if r.Rule, err = Sequential(p.Alpha, p.MinRuns, p.MaxRuns, p.Until); err != nil {
		return r, workload.Usagef("%s", err.Error())
	}
	r.Pairs = runs
	if r.Rule != nil {
		r.Pairs = p.MaxRuns
	}
	return r, nil
}

func setEnv(c *results.Config, key, value string) {
	if c.Env == nil {
		c.Env = map[string]string{}
	}
	c.Env[key] = value
}

// SideFlags parses the text of --a or --b (side "a" or "b") as flags of
// w's parameters. A flag given twice with two values is refused, as on
// the command line.
func SideFlags(w *workload.Workload, side, text string) (map[string]string, error) {
	words, err := external.SplitWords(text)
	if err != nil {
		return nil, workload.Usagef("--%s: %v", side, err)
	}
	given := map[string]string{}
	for i := 0; i < len(words); i++ {
		name, val, hasVal := strings.Cut(strings.TrimLeft(words[i], "-"), "=")
		p, err := sideParam(w, side, words[i], name)
		if err != nil {
			return nil, err
		}
		if !hasVal {
			if p.Kind == workload.Bool {
				val = "true"
			} else if i+1 < len(words) {
				i++
				val = words[i]
			} else {
				return nil, workload.Usagef("--%s: --%s needs a value", side, name)
			}
		}
		if old, ok := given[name]; ok && old != val {
			return nil, workload.Usagef("--%s: --%s given twice (%q, then %q); give it once", side, name, old, val)
		}
		given[name] = val
	}
	return given, nil
}

// sideParam is the parameter of w that the word of --side names (name
// without its dashes).
func sideParam(w *workload.Workload, side, word, name string) (workload.Param, error) {
	if !strings.HasPrefix(word, "-") {
		return workload.Param{}, workload.Usagef("--%s: %q is not a flag; give workload flags such as '--threads 4'", side, word)
	}
	p, ok := w.Param(name)
	if !ok && name == "evidence" {
		return p, workload.Usagef("--%s: --evidence is not a workload parameter; give the side's collectors with --%s-evidence LIST (such as --%s-evidence none)", side, side, side)
	}
	if !ok {
		return p, workload.Usagef("--%s: %s has no parameter --%s; see 'contend help %s'", side, w.Name, name, w.Name)
	}
	return p, nil
}

// Sides resolves the workload values of both sides of `contend ab
// WORKLOAD` against the machine m: the flags both sides share (shared)
// with each side's --a/--b text (texts; --aa gives B side A's) on top;
// sides that would run the same configuration are refused
// (CheckDistinct).
func (p Plan) Sides(w *workload.Workload, shared map[string]string, texts [2]string, m limits.Machine) ([2]workload.Values, []string, error) {
	var sides [2]workload.Values
	var warns []string
	for i, side := range []string{"a", "b"} {
		given := maps.Clone(shared)
		if given == nil {
			given = map[string]string{}
		}
		text := texts[i]
		if p.AA {
			text = texts[0]
		}
		own, err := SideFlags(w, side, text)
		if err != nil {
			return sides, nil, err
		}
		maps.Copy(given, own)
		v, ws, err := w.ResolveOn(given, m)
		if err != nil {
			return sides, nil, workload.Usagef("side %s: %v", strings.ToUpper(side), err)
		}
		sides[i] = v
		warns = append(warns, ws...)
	}
	return sides, warns, p.CheckDistinct(maps.Equal(sides[0], sides[1]), "--a/--b flags")
}
