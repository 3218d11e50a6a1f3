package sweepplan

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"contend/internal/limits"
	"contend/internal/results"
	"contend/internal/sweep"
	"contend/internal/workload"
)

var quietMachine = limits.Machine{CPUs: 64, ThreadsMax: 1 << 20, PidMax: 1 << 22, StackMin: 16384, ThreadStack: 8 << 20,
	SemMSL: 32000, SemMNS: 1 << 30, SemOPM: 500, SemMNI: 32000, SemVMX: 32767}

func faultme(t *testing.T) *workload.Workload {
	w, ok := workload.Lookup("faultme")
	if !ok {
		t.Fatal("no faultme")
	}
	return w
}

// TestNewRefuses: what a sweep refuses, before anything runs (the cases
// of TestSweepBadUsage that cmd/contend ran through the CLI).
func TestNewRefuses(t *testing.T) {
	for _, c := range []struct {
		params []string
		texts  map[string]string
		want   string
	}{
		{nil, map[string]string{"mem": "1MiB"}, "sweep faultme: what to sweep? give a LIST to a thread count (--threads 1,2,4) or --param NAME=LIST"},
		{nil, map[string]string{"mem": "1MiB", "threads": "2"}, "sweep faultme: what to sweep?"},
		{nil, map[string]string{"threads": "1,0"}, "--threads: 0 is out of range"},
		{nil, map[string]string{"threads": "1..8"}, "needs a step"},
		{nil, map[string]string{"threads": "1,1"}, "given twice"},
		{nil, map[string]string{"threads": "1..9999+1"}, `--threads: "1..9999+1" has more than 256 values`},
		{[]string{"stride=4KiB..64KiB+4KiB"}, map[string]string{"threads": "1..20+1"}, "sweep: 320 points (every combination of the lists) is more than 256"},
		{[]string{"threads=4"}, map[string]string{"threads": "1,2"}, "--param: threads is given twice (as --param and as --threads, or twice)"},
		{[]string{"mem=1MiB,2MiB", "mem=4MiB"}, map[string]string{"threads": "2"}, "--param: mem is given twice"},
		{[]string{"nosuch=1,2"}, nil, `--param: faultme has no parameter "nosuch"; see 'contend help faultme'`},
		{[]string{"threads"}, nil, `--param: "threads" is not accepted; accepted: NAME=LIST such as threads=1,2,4 or mem=1MiB..8MiBx2`},
		{[]string{"=1,2"}, nil, `--param: "=1,2" is not accepted`},
		{nil, map[string]string{"threads": "2", "mem": "1MiB,2MiB"}, `--mem: "1MiB,2MiB" looks like a list; to sweep it give --param mem=1MiB,2MiB`},
		{nil, map[string]string{"threads": "1,2", "stride": "8MiB", "mem": "1MiB"}, "point threads=1: --stride"},
	} {
		_, err := New(faultme(t), Options{Params: c.params, Texts: c.texts, Order: sweep.OrderShuffled, Machine: quietMachine})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v: %v, want %q", c.params, c.texts, err, c.want)
		}
	}
	_, err := New(faultme(t), Options{Texts: map[string]string{"threads": "1,2"}, Order: sweep.OrderFixed, Seed: 3, SeedSet: true})
	var ue *workload.UsageError
	if !errors.As(err, &ue) || ue.Msg != "--seed goes with --order shuffled (--order fixed draws nothing); drop --seed or --order fixed" {
		t.Errorf("--order fixed --seed 3: %v", err)
	}
}

// TestNewPoints: a thread list and a --param list give every
// combination, in order; the seed is kept when given, 0 for the fixed
// order; the decimal note and each point's warning come once; the
// thread count is fixed only when it is not swept.
func TestNewPoints(t *testing.T) {
	w := faultme(t)
	s, err := New(w, Options{Params: []string{"mem=1MB,2MiB"}, Texts: map[string]string{"threads": "1,2"},
		Order: sweep.OrderShuffled, Seed: 42, SeedSet: true, Machine: quietMachine})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range s.Points {
		names = append(names, p.Name)
	}
	want := []string{"mem=976.56KiB threads=1", "mem=976.56KiB threads=2", // 1MB = 10^6 B = 976.5625 KiB
		"mem=2MiB threads=1", "mem=2MiB threads=2"}
	if !slices.Equal(names, want) {
		t.Errorf("points %q, want %q", names, want)
	}
	if s.Seed != 42 || s.Order != sweep.OrderShuffled || len(s.Axes) != 2 || s.Axes[0].Param.Name != "mem" || s.Axes[1].Param.Name != "threads" {
		t.Errorf("seed %d order %s axes %v", s.Seed, s.Order, s.Axes)
	}
	if s.FixedThreads(w) != 0 || s.Through.Name == "" || s.Derive == nil {
		t.Errorf("fixed threads %d, throughput %q", s.FixedThreads(w), s.Through.Name)
	}
	s, err = New(w, Options{Params: []string{"mem=1MiB,2MiB"}, Texts: map[string]string{"threads": "3", "stride": "4KB"},
		Order: sweep.OrderFixed, Machine: quietMachine})
	if err != nil {
		t.Fatal(err)
	}
	if s.Seed != 0 || s.FixedThreads(w) != 3 || len(s.Points) != 2 || s.Points[1].Name != "mem=2MiB" {
		t.Errorf("seed %d, fixed threads %d, points %v", s.Seed, s.FixedThreads(w), s.Points)
	}
	if len(s.Warns) != 1 || !strings.HasPrefix(s.Warns[0], "--stride 4KB is decimal: 4000 bytes") {
		t.Errorf("warnings %q, want the decimal note once", s.Warns)
	}
}

// TestNewOversubscribes: a swept thread count above the online CPUs is
// warned about for that point only.
func TestNewOversubscribes(t *testing.T) {
	m := quietMachine
	m.CPUs = 1
	s, err := New(faultme(t), Options{Texts: map[string]string{"threads": "1,2", "mem": "256KiB"}, Order: sweep.OrderShuffled, Machine: m})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"threads=2 oversubscribes the 1 online CPUs: the extra threads are time-sliced, not concurrent"}
	if !slices.Equal(s.Warns, want) {
		t.Errorf("warnings %q, want %q", s.Warns, want)
	}
}

// TestSpecFile: the configurations, the sweep record and the
// throughput added to a successful repetition only.
func TestSpecFile(t *testing.T) {
	w := faultme(t)
	s, err := New(w, Options{Texts: map[string]string{"threads": "1,2", "mem": "1MiB"}, Order: sweep.OrderFixed, Machine: quietMachine})
	if err != nil {
		t.Fatal(err)
	}
	configs, names := s.Configs()
	if len(configs) != 2 || !slices.Equal(names, []string{"threads=1", "threads=2"}) || configs[1].Int("threads") != 2 {
		t.Errorf("configs %v names %q", configs, names)
	}
	info := s.Info(5, 1)
	if info.Order != sweep.OrderFixed || info.Seed != 0 || info.Rounds != 5 || info.WarmupRounds != 1 ||
		!slices.Equal(info.Params, []string{"threads"}) || info.Throughput != s.Through.Name {
		t.Errorf("info %+v", info)
	}
	for _, status := range []string{results.StatusOK, results.StatusFailed} {
		m := map[string]float64{}
		for _, x := range w.Metrics {
			m[x.Name] = 1e6
		}
		rep := &results.Rep{Config: 1, Status: status, Metrics: results.ValuesOf(m)}
		s.AddThroughput(configs, rep)
		_, has := rep.Metrics.Map()[s.Through.Name]
		if has != (status == results.StatusOK) {
			t.Errorf("%s: throughput %v in %v", status, has, rep.Metrics.Map())
		}
	}
}
