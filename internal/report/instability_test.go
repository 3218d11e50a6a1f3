package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"contend/internal/comparison"
	"contend/internal/results"
)

// unstableAB is an A/B file whose side A varies by about 46% (stdev over
// mean, 0.4623 by numpy: x.std(ddof=1)/x.mean()) and side B by under
// 1%, B clearly slower: the verdict is
// "slower", and the headline must say beside it that A is unstable.
func unstableAB() *results.File {
	f := file("mutex", twoMetrics, []string{"a", "b"}, map[string][][]float64{
		"time":                      {{5e9, 10e9, 15e9, 5.5e9, 10.5e9, 16e9, 4.5e9, 9.5e9}, {20e9, 20.1e9, 19.9e9, 20.05e9, 19.95e9, 20.02e9, 20.01e9, 19.98e9}},
		"thread_time_stddev_of_all": {{1, 2, 3, 4, 5, 6, 7, 8}, {1, 2, 3, 4, 5, 7, 7, 8}},
	})
	f.Env["cpu.online"] = "2"
	return f
}

// TestHeadlineSaysUnstable checks that a side varying by more than
// analysis.UnstableCV, and a load above the online CPUs, are said in the
// headline beside the verdict word in every format, not only as a
// warning at the bottom (issue 38: "slower" with a side varying by 52%).
func TestHeadlineSaysUnstable(t *testing.T) {
	f := unstableAB()
	sides := []comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}
	want := "slower, unstable: CV 46% on A; check with an A/A, ab --aa"
	for _, format := range []string{"text", "markdown", "json"} {
		var out bytes.Buffer
		if err := Compare(&out, sides, comparison.Options{}, format); err != nil {
			t.Fatal(err)
		}
		s := out.String()
		if format == "json" {
			var doc struct {
				Pairs []struct{ Headline, Unstable string } `json:"pairs"`
			}
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Pairs) != 1 {
				t.Fatalf("json: %v, %d pairs", err, len(doc.Pairs))
			}
			if doc.Pairs[0].Unstable != "unstable: CV 46% on A; check with an A/A, ab --aa" {
				t.Errorf("json: unstable %q", doc.Pairs[0].Unstable)
			}
			s = doc.Pairs[0].Headline
		}
		if !strings.Contains(strings.Join(strings.Fields(s), " "), want) {
			t.Errorf("%s: the headline does not say %q:\n%s", format, want, s)
		}
	}
	var out bytes.Buffer
	if err := Compare(&out, sides, comparison.Options{}, "csv"); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&out).ReadAll()
	if err != nil || len(recs) != 3 {
		t.Fatalf("csv: %v, %d records", err, len(recs))
	}
	col := slices.Index(recs[0], "unstable")
	if col < 0 {
		t.Fatalf("csv: no unstable column: %q", recs[0])
	}
	if recs[0][col] != "unstable" || recs[1][2] != "time" || recs[1][col] != "unstable: CV 46% on A; check with an A/A, ab --aa" || recs[2][col] != "" {
		t.Errorf("csv: the unstable column is %q, %q (%s), %q", recs[0][col], recs[1][col], recs[1][2], recs[2][col])
	}

	// A load above the online CPUs at one repetition: said too.
	f.Reps[3].LoadAvg = 2.5
	r, err := comparison.Build(sides, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := InstabilityNote(r, r.Pairs[0]), "unstable: CV 46% on A, load 2.5 on 2 CPUs; check with an A/A, ab --aa"; got != want {
		t.Errorf("note %q, want %q", got, want)
	}
	// A stable side at a load at the CPUs: nothing.
	g := abFile()
	g.Env["cpu.online"] = "2"
	g.Reps[0].LoadAvg = 2
	r, err = comparison.Build([]comparison.Side{comparison.FileSide("a", g, 0), comparison.FileSide("b", g, 1)}, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if h := HeadlineFor(r, r.Pairs[0]); strings.Contains(h, "unstable") || !strings.HasSuffix(h, ": slower") {
		t.Errorf("a stable pair's headline: %s", h)
	}
}
