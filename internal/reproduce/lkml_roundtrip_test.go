package reproduce

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"contend/internal/lkml"
	"contend/internal/robotmail"
)

// TestLKMLRoundTripShapes writes blocks in contend's --format lkml layout
// (internal/lkml, as compare, ab and campaign report do) and reads them
// back as reproduce does (robotmail), in the shapes the robot's own
// blocks have: 200 rows, deviations of 100% and more ("±173%", no space
// after ±), negative changes and negative means, changes of 100000% and
// more ("+1.2e+05%"), means above 1e8 ("1.234e+09"), rows in percent
// (an absolute change), a base of zero, seconds rows (time.elapsed_time),
// sides of one run (no deviation). Every row comes back: its stat, its
// change as printed, its deviations as lkp-tests computes them (divided by
// n; here recomputed independently), its means within what the print
// keeps; and the plan is made for the block's first row.
func TestLKMLRoundTripShapes(t *testing.T) {
	rng := rand.New(rand.NewSource(41))
	var rows []lkml.Row
	add := func(stat string, base, new lkml.Stats, percent bool) {
		rows = append(rows, lkml.Row{Stat: stat, Base: base, New: new, Percent: percent, Changed: true})
	}
	add("time.elapsed_time", lkml.Stats{Mean: 22.58, StdDev: 1.9, N: 3}, lkml.Stats{Mean: 16.80, StdDev: 0.4, N: 3}, false)
	add("contend.mutex.wait_ns", lkml.Stats{Mean: 1.0, StdDev: 2.0, N: 4}, lkml.Stats{Mean: 0.11, StdDev: 0.03, N: 4}, false) // ±173%
	add("contend.faultme.ops", lkml.Stats{Mean: 2.37, StdDev: 4.1, N: 10}, lkml.Stats{Mean: 900, StdDev: 1, N: 10}, false)    // ±164%, +37875%
	add("contend.osim.spread", lkml.Stats{Mean: -17.5, StdDev: 3, N: 6}, lkml.Stats{Mean: -12, StdDev: 1, N: 6}, false)       // negative means
	add("contend.osim.huge", lkml.Stats{Mean: 0.01, StdDev: 0.001, N: 5}, lkml.Stats{Mean: 29.8, StdDev: 1, N: 5}, false)     // +3e+05%
	add("contend.semop.ops", lkml.Stats{Mean: 2.131e+08, StdDev: 1e6, N: 8}, lkml.Stats{Mean: 1.351e+08, StdDev: 4e6, N: 8}, false)
	add("mpstat.cpu.all.sys%", lkml.Stats{Mean: 24.47, StdDev: 0.1, N: 5}, lkml.Stats{Mean: 17.29, StdDev: 0.2, N: 5}, true)
	add("contend.zero.base", lkml.Stats{Mean: 0, StdDev: 0, N: 5}, lkml.Stats{Mean: 3.5, StdDev: 0.1, N: 5}, false)
	add("contend.one.run", lkml.Stats{Mean: 1000, StdDev: math.NaN(), N: 1}, lkml.Stats{Mean: 800, StdDev: math.NaN(), N: 1}, false)
	add("contend.all.gone", lkml.Stats{Mean: 61.92, StdDev: 4, N: 4}, lkml.Stats{Mean: 0, StdDev: 0, N: 4}, false) // -100%
	for len(rows) < 200 {
		n := 2 + rng.Intn(20)
		m := math.Pow(10, rng.Float64()*12-2) * float64(1-2*rng.Intn(2))
		sd := math.Abs(m) * rng.Float64() * 2.5
		f := math.Pow(10, rng.Float64()*4-2) * float64(1-2*rng.Intn(2))
		stat := fmt.Sprintf("contend.shape.row%03d", len(rows))
		if rng.Intn(10) == 0 {
			stat = fmt.Sprintf("perf-profile.children.cycles-pp.f%03d", len(rows))
		}
		add(stat, lkml.Stats{Mean: m, StdDev: sd, N: n}, lkml.Stats{Mean: m * (1 + f), StdDev: sd / 3, N: n}, lkml.PercentStat(stat))
	}
	var sb strings.Builder
	b := lkml.Block{Axes: []lkml.Axis{{Key: "testcase", Value: "contend-mutex"}, {Key: "threads", Value: "8"}},
		Base: lkml.Side{ID: "a.json", N: 3}, New: lkml.Side{ID: "b.json", N: 3}, Rows: rows}
	if err := lkml.Write(&sb, b); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, w := range []string{"±173%", "±164%", "-12.00", "+3e+05%", "2.131e+08", "-100.0%"} {
		if !strings.Contains(out, w) {
			t.Errorf("the block lacks the shape %q:\n%s", w, out)
		}
	}
	rep, err := robotmail.Parse([]byte(out))
	if err != nil {
		t.Fatalf("contend's own block refused: %v", err)
	}
	got := rep.Blocks[0].Rows
	if !rep.Bare || rep.Testcase != "contend-mutex" || rep.Commit != "b.json" || len(rep.Skipped) != 0 || len(got) != len(rows) {
		t.Fatalf("bare %v testcase %q commit %q skipped %v: %d rows of %d", rep.Bare, rep.Testcase, rep.Commit, rep.Skipped, len(got), len(rows))
	}
	for i, want := range rows {
		g := got[i]
		printed := strings.Fields(lkml.FormatRow(want))
		if g.Stat != want.Stat || g.AbsoluteChange != want.Percent || g.Line != lkml.FormatRow(want) {
			t.Errorf("row %d: %+v, want %s", i, g, want.Stat)
			continue
		}
		// The deviations as lkp-tests computes them: the n-1 deviation
		// times sqrt((n-1)/n), in percent of the mean, truncated; none
		// at 2% or below or for one run.
		for _, c := range []struct {
			s   lkml.Stats
			got float64
		}{{want.Base, g.BaseSD}, {want.New, g.NewSD}} {
			sd := 0.0
			if c.s.N > 1 && c.s.Mean != 0 {
				sd = math.Abs(100 * c.s.StdDev * math.Sqrt(float64(c.s.N-1)/float64(c.s.N)) / c.s.Mean)
			}
			if sd <= 2 {
				sd = 0
			}
			if c.got != math.Trunc(sd) && !(c.s.Mean < 0 && c.got == 0) {
				t.Errorf("row %d (%s): deviation %v, want %v", i, g.Line, c.got, math.Trunc(sd))
			}
		}
		for _, c := range []struct{ want, got float64 }{{want.Base.Mean, g.Base}, {want.New.Mean, g.New}} {
			if tol := math.Max(0.005, math.Abs(c.want)*1e-3); math.Abs(c.got-c.want) > tol+1 {
				t.Errorf("row %d (%s): mean %v, want %v", i, g.Line, c.got, c.want)
			}
		}
		if want.Base.Mean != 0 && !want.Percent {
			ch := 100 * (want.New.Mean - want.Base.Mean) / want.Base.Mean
			// One decimal; from 100000% on, two significant digits.
			tol := math.Max(0.051, math.Abs(ch)*0.006)
			if math.Abs(ch) >= 99950 {
				tol = math.Abs(ch) * 0.05
			}
			if math.Abs(g.Change-ch) > tol {
				t.Errorf("row %d (%s): change %v, want %.3g (printed %v)", i, g.Line, g.Change, ch, printed)
			}
		}
	}
	p, err := Make(rep, Machine{CPUs: 4, Governor: "performance"}, Options{Workloads: []string{"mutex"}})
	if err != nil {
		t.Fatal(err)
	}
	if !p.HasRow || p.Stat != "time.elapsed_time" || p.Reported.Change != -25.6 || p.Workload != "mutex" || len(p.Commands) != 3 {
		t.Errorf("plan: row %v %s %+v, workload %q, %d commands", p.HasRow, p.Stat, p.Reported, p.Workload, len(p.Commands))
	}
	sb.Reset()
	p.Write(&sb)
	if !strings.Contains(sb.String(), "\n  reported: time.elapsed_time -25.6% (22.58 -> 16.8)\n") {
		t.Errorf("a block without a machine: %s", sb.String())
	}
}
