package mmtestsimport

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/mmtests"
)

// tableOf is mmtests' table of runs as compare-mmtests.pl makes it: each
// operation's values pooled over the iterations, the stars by mmtests'
// band rule.
func tableOf(runs []Run, prec int) mmtests.Table {
	var t mmtests.Table
	for _, r := range runs {
		t.Names = append(t.Names, r.Name)
	}
	for _, op := range runs[0].Ops {
		row := mmtests.Row{Op: op, Higher: runs[0].Higher, Precision: prec, Star: make([]bool, len(runs))}
		var sums []mmtests.Summary
		for _, r := range runs {
			var v []float64
			for _, it := range r.Values[op] {
				v = append(v, it...)
			}
			row.Values = append(row.Values, v)
			sums = append(sums, mmtests.Summarise(v, row.Higher))
		}
		for i := 1; i < len(runs); i++ {
			row.Star[i] = mmtests.BandsApart(sums[0], sums[i])
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// TestTableMatchesMmtests renders the test data's runs and compares the
// table, character for character, with mmtests' own
// (compare-mmtests.pl, testdata/README.md says how it was made): the
// header lines, the rows of each statistic (Amean and Hmean, their
// deviations), the changes' signs, the baseline's (   0.00%) and the
// band rule's stars. With CONTEND_MMTESTS set to an mmtests checkout it
// runs mmtests itself too.
func TestTableMatchesMmtests(t *testing.T) {
	for _, c := range []struct {
		bench string
		prec  int
		stars int
	}{{"hackbench", 4, 1}, {"ebizzy", 2, 1}} {
		t.Run(c.bench, func(t *testing.T) {
			runs, err := ReadJSON(filepath.Join("testdata", c.bench+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := mmtests.Write(&b, tableOf(runs, c.prec)); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("testdata", c.bench+".mmtests.txt"))
			if err != nil {
				t.Fatal(err)
			}
			compareLines(t, "golden "+c.bench+".mmtests.txt", b.String(), string(want))
			if n := strings.Count(b.String(), "*"); n != 2*c.stars {
				t.Errorf("%d stars, want %d cells", n/2, c.stars)
			}
			if dir := os.Getenv("CONTEND_MMTESTS"); dir != "" {
				cmd := exec.Command("perl", filepath.Join(dir, "bin", "compare-mmtests.pl"), "-d", ".", "-b", c.bench, "--from-json", c.bench+".json")
				cmd.Dir = "testdata"
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("mmtests' compare-mmtests.pl: %v", err)
				}
				compareLines(t, "mmtests' own output", b.String(), string(out))
			}
		})
	}
}

func compareLines(t *testing.T, what, got, want string) {
	t.Helper()
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	if len(g) != len(w) {
		t.Errorf("%s: %d lines, want %d\n%s", what, len(g), len(w), got)
	}
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			t.Errorf("%s: line %d:\n got %q\nwant %q", what, i+1, g[i], w[i])
		}
	}
}
