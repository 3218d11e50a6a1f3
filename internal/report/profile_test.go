package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"contend/internal/comparison"
	"contend/internal/results"
)

// profileFile: two configurations whose profile shares move by +4.1
// points (foo, +40%) and -1.0 point (bar, -50%).
func profileFile() *results.File {
	ms := []results.Metric{
		{Name: "time", Unit: "ns", Better: "lower"},
		{Name: "k.profile.self.foo", Unit: "%"},
		{Name: "k.profile.self.bar", Unit: "%"},
	}
	return file("faultme", ms, []string{"a", "b"}, map[string][][]float64{
		"time":               {{100, 101, 102, 103, 104, 105}, {100, 101, 102, 103, 104, 106}},
		"k.profile.self.foo": {{10.0, 11.0, 10.5, 9.5, 10.2, 10.8}, {14.0, 15.1, 13.8, 14.6, 15.0, 14.2}},
		"k.profile.self.bar": {{2.0, 2.2, 1.9, 2.1, 2.05, 1.95}, {1.0, 1.1, 0.9, 1.05, 0.95, 1.2}},
	})
}

// TestProfileRowsInPoints: every format gives the profile's change as
// the shift in percentage points with its interval (values from
// internal/comparison's TestProfilePoints), not as a ratio, foo (4.1
// points) before bar (1 point, but -50%).
func TestProfileRowsInPoints(t *testing.T) {
	f := profileFile()
	r, err := comparison.Build([]comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "markdown"} {
		var buf bytes.Buffer
		if err := Write(&buf, r, format); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, want := range []string{"+4.100 pp", "[+3.300, +4.900]", "-1 pp", "[-1.150, -0.850]", "percentage points", "profile: Holm over 2 tests", "profile (share of the"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in\n%s", format, want, out)
			}
		}
		if strings.Contains(out, "+40") || strings.Contains(out, "-50%") {
			t.Errorf("%s: a ratio for a profile row:\n%s", format, out)
		}
		if i, j := strings.Index(out, "k.profile.self.foo"), strings.Index(out, "k.profile.self.bar"); i < 0 || j < i {
			t.Errorf("%s: foo (4.1 points) not before bar (1 point)", format)
		}
	}
	var buf bytes.Buffer
	if err := Write(&buf, r, "json"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Pairs []struct {
			Metrics []MetricJSON `json:"metrics"`
		} `json:"pairs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range doc.Pairs {
		for _, m := range p.Metrics {
			if m.Metric == "k.profile.self.foo" {
				found = true
				if m.Shift == nil || float64(*m.Shift) < 4.0999 || float64(*m.Shift) > 4.1001 || m.Estimator != "Hodges-Lehmann shift B-A in percentage points" {
					t.Errorf("json foo: shift %v, estimator %q", m.Shift, m.Estimator)
				}
			}
		}
	}
	if !found {
		t.Errorf("json: no k.profile.self.foo row in\n%s", buf.String())
	}
	buf.Reset()
	if err := Write(&buf, r, "csv"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "percentage points") {
		t.Errorf("csv: the estimator not named:\n%s", buf.String())
	}
}
