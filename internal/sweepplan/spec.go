package sweepplan

import (
	"fmt"
	"strings"
	"time"

	"contend/internal/limits"
	"contend/internal/results"
	"contend/internal/sweep"
	"contend/internal/workload"
)

// Options are a sweep's command line as given: --param's NAME=LIST items
// in order, the workload flags' texts by parameter name, --order and
// --seed (SeedSet: given), and the machine the points are checked
// against (with its Force).
type Options struct {
	Params  []string
	Texts   map[string]string
	Order   string
	Seed    int64
	SeedSet bool
	Machine limits.Machine
}

// Spec is a checked sweep: its points, the swept axes, the warnings of
// every point (each once), the order in a round and its seed, and the
// throughput metric with its derivation (nil when the workload has
// none).
type Spec struct {
	Points  []Point
	Axes    []Axis
	Warns   []string
	Order   string
	Seed    int64
	Through results.Metric
	Derive  func(workload.Values, map[string]float64) (float64, bool)
}

// New checks the sweep o of w: the order and seed, the swept parameters
// and their lists, the fixed values, every point's values against the
// machine. Every refusal names the flag.
func New(w *workload.Workload, o Options) (*Spec, error) {
	s := &Spec{Order: o.Order, Seed: o.Seed}
	if !o.SeedSet {
		s.Seed = time.Now().UnixNano()
	}
	if o.Order == sweep.OrderFixed {
		if o.SeedSet {
			return nil, workload.Usagef("--seed goes with --order shuffled (--order fixed draws nothing); drop --seed or --order fixed")
		}
		s.Seed = 0
	}
	lists, names, fixed, err := sweptLists(w, o)
	if err != nil {
		return nil, err
	}
	// Resolve the fixed values once, so their errors come first and
	// alone.
	base, err := w.Resolve(fixed)
	if err != nil {
		return nil, err
	}
	s.Warns = append(s.Warns, w.DecimalSizeNotes(fixed)...)
	if len(names) == 0 {
		return nil, workload.Usagef("sweep %s: what to sweep? give a LIST to a thread count (--threads 1,2,4) or --param NAME=LIST", w.Name)
	}
	for _, name := range names {
		p, _ := w.Param(name)
		vals, err := ParseList(p, lists[name])
		if err != nil {
			return nil, err
		}
		s.Axes = append(s.Axes, Axis{Param: p, Values: vals})
	}
	s.Points = Points(base, s.Axes)
	if len(s.Points) > MaxPoints {
		return nil, workload.Usagef("sweep: %d points (every combination of the lists) is more than %d", len(s.Points), MaxPoints)
	}
	if err := s.resolvePoints(w, fixed, o.Machine); err != nil {
		return nil, err
	}
	s.Through, s.Derive, _ = ThroughputFor(w)
	return s, nil
}

// sweptLists reads the swept parameters (--param NAME=LIST, and lists
// given to thread-count flags) and the fixed ones: the list of each
// swept parameter, their names in order, and the fixed values' texts.
func sweptLists(w *workload.Workload, o Options) (map[string]string, []string, map[string]string, error) {
	lists := map[string]string{}
	var names []string
	for _, item := range o.Params {
		name, list, err := paramItem(w, o, item, lists)
		if err != nil {
			return nil, nil, nil, err
		}
		lists[name] = list
		names = append(names, name)
	}
	fixed := map[string]string{}
	for _, p := range w.Params {
		text, ok := o.Texts[p.Name]
		if !ok {
			continue
		}
		isList := p.Kind != workload.Bool && (strings.Contains(text, ",") || strings.Contains(text, ".."))
		_, perr := p.Parse(text)
		switch {
		case p.IsConcurrency() && (isList || perr != nil):
			// A thread count takes a list directly; a single value
			// is fixed (sweep mutex --param locks=... --threads 100).
			// A wrong one is read as a list, whose refusal says that
			// lists and ranges are accepted ("1-4").
			lists[p.Name] = text
			names = append(names, p.Name)
		case isList:
			return nil, nil, nil, workload.Usagef("--%s: %q looks like a list; to sweep it give --param %s=%s", p.Name, text, p.Name, text)
		default:
			fixed[p.Name] = text
		}
	}
	return lists, names, fixed, nil
}

// paramItem reads one --param NAME=LIST (lists: the ones read before).
func paramItem(w *workload.Workload, o Options, item string, lists map[string]string) (string, string, error) {
	name, list, ok := strings.Cut(item, "=")
	name = strings.TrimPrefix(strings.TrimSpace(name), "--")
	if !ok || name == "" {
		return "", "", workload.Usagef("--param: %q is not accepted; accepted: NAME=LIST such as threads=1,2,4 or mem=1MiB..8MiBx2", item)
	}
	p, found := w.Param(name)
	if !found {
		return "", "", workload.Usagef("--param: %s has no parameter %q; see 'contend help %s'", w.Name, name, w.Name)
	}
	_, given := o.Texts[name]
	if _, dup := lists[name]; dup || given {
		return "", "", workload.Usagef("--param: %s is given twice (as --param and as --%s, or twice)", name, name)
	}
	if p.Kind == workload.Bool {
		list = strings.ReplaceAll(list, " ", "")
	}
	return name, list, nil
}

// resolvePoints resolves every point again (so that DefaultFuncs see the
// point's values), checks it against the machine m and collects its
// warnings, each once, and its oversubscription of the online CPUs.
func (s *Spec) resolvePoints(w *workload.Workload, fixed map[string]string, m limits.Machine) error {
	seen := map[string]bool{}
	for i := range s.Points {
		pt := &s.Points[i]
		given := map[string]string{}
		for k, v := range fixed {
			given[k] = v
		}
		for _, a := range s.Axes {
			given[a.Param.Name] = pt.Values[a.Param.Name] + canonText(a.Param)
		}
		var err error
		if pt.Values, err = w.Resolve(given); err != nil {
			return workload.Usagef("point %s: %v", pt.Name, err)
		}
		if w.Check != nil {
			ws, err := w.Check(pt.Values, m)
			if err != nil {
				return workload.Usagef("point %s: %v", pt.Name, err)
			}
			for _, x := range ws {
				if !seen[x] {
					seen[x] = true
					s.Warns = append(s.Warns, pt.Name+": "+x)
				}
			}
		}
		s.oversubscribed(w, *pt, m.CPUs)
	}
	return nil
}

// oversubscribed warns when point pt's swept thread count exceeds the
// online CPUs (cpus; 0: unknown).
func (s *Spec) oversubscribed(w *workload.Workload, pt Point, cpus int) {
	if !w.OversubscribeWarn || cpus <= 0 {
		return
	}
	for _, a := range s.Axes {
		if a.Param.IsConcurrency() && pt.Values.Int(a.Param.Name) > int64(cpus) {
			s.Warns = append(s.Warns, fmt.Sprintf("%s oversubscribes the %d online CPUs: the extra %s are time-sliced, not concurrent",
				pt.Name, cpus, a.Param.Unit))
		}
	}
}

// FixedThreads is the thread or task count of every point when no such
// parameter is swept, else 0.
func (s *Spec) FixedThreads(w *workload.Workload) int64 {
	for _, a := range s.Axes {
		if a.Param.IsConcurrency() {
			return 0
		}
	}
	return w.Concurrency(s.Points[0].Values)
}

// canonText makes a canonical value parse back as itself.
func canonText(p workload.Param) string {
	if p.Kind == workload.Duration {
		return "ns"
	}
	return ""
}

// Configs returns the points' values and names, in order: the
// configurations of the sweep's result file.
func (s *Spec) Configs() ([]workload.Values, []string) {
	var configs []workload.Values
	var names []string
	for _, p := range s.Points {
		configs = append(configs, p.Values)
		names = append(names, p.Name)
	}
	return configs, names
}

// Info is the sweep's record in its result file, for rounds measured
// rounds after warmup uncounted ones.
func (s *Spec) Info(rounds, warmup int) *results.Sweep {
	info := &results.Sweep{Order: s.Order, Seed: s.Seed, Rounds: rounds, WarmupRounds: warmup, Throughput: s.Through.Name}
	for _, a := range s.Axes {
		info.Params = append(info.Params, a.Param.Name)
	}
	return info
}

// AddThroughput adds the throughput metric to a successful repetition
// of configuration rep.Config (configs: the sweep's, Configs), when the
// workload defines one.
func (s *Spec) AddThroughput(configs []workload.Values, rep *results.Rep) {
	if s.Derive == nil || rep.Status != results.StatusOK {
		return
	}
	if x, ok := s.Derive(configs[rep.Config], rep.Metrics.Map()); ok {
		rep.Metrics.Set(s.Through.Name, x)
	}
}
