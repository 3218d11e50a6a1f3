package summary

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"contend/internal/evidence"
	"contend/internal/results"
)

// profileFile is a run of 6 repetitions with a profile of 15 symbols:
// sym00 has the largest self share (15%), sym14 the smallest (1%); main
// is on every stack (children 100%, self 0); sym13 and sym14 are kept in
// one repetition only (0 in the others: their medians are 0).
func profileFile() *results.File {
	metrics := []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}, {Name: "k.runq_delay", Unit: "ns", Better: "lower"}}
	vals := map[string][][]float64{"time": {{100, 101, 99, 100, 102, 100}}, "k.runq_delay": {{5, 6, 7, 8, 9, 10}}}
	add := func(name string, xs []float64) {
		metrics = append(metrics, results.Metric{Name: name, Unit: "%"})
		vals[name] = [][]float64{xs}
	}
	for i := 0; i < 15; i++ {
		s := float64(15 - i)
		xs := []float64{s, s + 0.5, s - 0.5, s, s, s}
		if i >= 13 {
			xs = []float64{s, 0, 0, 0, 0, 0}
		}
		add(evidence.ProfileSelf+fmt.Sprintf("sym%02d", i), xs)
		add(evidence.ProfileChildren+fmt.Sprintf("sym%02d", i), xs)
	}
	add(evidence.ProfileSelf+"main", []float64{0, 0, 0, 0, 0, 0})
	add(evidence.ProfileChildren+"main", []float64{100, 100, 100, 100, 100, 100})
	f := file("faultme", metrics, []string{""}, vals)
	f.Metrics = append(f.Metrics, results.Metric{Name: evidence.ProfileSelf + "*", Unit: "%", Desc: "share of the cpu-clock samples of the child's tasks taken in the symbol itself"})
	return f
}

// TestSummaryProfileTop: show's profile is a table of its own, the 10
// largest median self shares in order with one line counting the 6
// others (main, sym10-sym14), within 80 columns; --all shows all 16 and
// no such line. The workload's evidence table holds no profile share.
func TestSummaryProfileTop(t *testing.T) {
	f := profileFile()
	var b bytes.Buffer
	SummaryWith(&b, f, 0, Options{})
	out := b.String()
	_, prof, ok := strings.Cut(out, "profile: median share of the cpu-clock samples over 6 repetitions (top 10):\n")
	if !ok {
		t.Fatalf("no profile table:\n%s", out)
	}
	ev, _, _ := strings.Cut(out, "profile:")
	if strings.Contains(ev, "k.profile.") || !strings.Contains(ev, "k.runq_delay") {
		t.Errorf("the evidence table holds profile shares, or lost k.runq_delay:\n%s", ev)
	}
	var rows []string
	for _, l := range strings.Split(prof, "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.HasSuffix(f[0], "%") {
			rows = append(rows, f[len(f)-1])
		}
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
	want := []string{"sym00", "sym01", "sym02", "sym03", "sym04", "sym05", "sym06", "sym07", "sym08", "sym09"}
	if strings.Join(rows, " ") != strings.Join(want, " ") {
		t.Errorf("rows %v, want %v\n%s", rows, want, prof)
	}
	if !hasRow(prof, "15.0% [14.5, 15.5] 15.0% sym00") {
		t.Errorf("sym00's row is not self 15.0%% [14.5, 15.5], children 15.0%%:\n%s", prof)
	}
	if !strings.Contains(prof, "6 more symbols (median self share 5.0% or less): --all shows them") {
		t.Errorf("no line counting the 6 others:\n%s", prof)
	}

	b.Reset()
	SummaryWith(&b, f, 0, Options{All: true})
	all := b.String()
	n := 0
	for _, l := range strings.Split(all, "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.HasSuffix(f[0], "%") && strings.HasPrefix(f[len(f)-1], "sym") || strings.HasSuffix(l, "  main") {
			n++
		}
	}
	if n != 16 || strings.Contains(all, "more symbols") || strings.Contains(all, "(top") {
		t.Errorf("--all: %d symbol rows, want 16, and no line counting others:\n%s", n, all)
	}
	if !hasRow(all, "0.0% [0.0, 0.0] 100.0% main") {
		t.Errorf("--all: main's row (self 0, children 100%%) missing:\n%s", all)
	}
}

// TestSummaryProfileOfARun: a run's own tally (as run.Summary has it,
// the file's families not expanded) lacks the 0s of the symbols a
// repetition did not keep: their medians count them as 0 all the same.
func TestSummaryProfileOfARun(t *testing.T) {
	tl := results.NewTally(0)
	tl.Values[evidence.ProfileSelf+"a"] = []float64{10, 12, 11}
	tl.Values[evidence.ProfileSelf+"b"] = []float64{30} // kept once: 30, 0, 0
	syms := profileSymbols(tl)
	if len(syms) != 2 || syms[0].name != "a" || syms[0].self.Median != 11 || syms[1].self.Median != 0 || syms[1].self.N != 3 {
		t.Errorf("symbols %+v, want a (median 11) then b (median 0 of 3)", syms)
	}
}

// hasRow tells whether out has a line whose words are those of row.
func hasRow(out, row string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.Join(strings.Fields(l), " ") == row {
			return true
		}
	}
	return false
}
