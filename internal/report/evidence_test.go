package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"contend/internal/comparison"
	"contend/internal/evidence"
	"contend/internal/results"
)

var evidenceMetrics = []results.Metric{
	{Name: "time", Unit: "ns", Better: "lower"},
	{Name: "faults", Unit: "count"},
	{Name: "k.context_switches", Unit: "count", Better: "lower"},
	{Name: "k.runq_delay", Unit: "ns", Better: "lower"},
	{Name: "k.sys.irq_tlb", Unit: "count", Better: "lower"},
	{Name: "k.lock.mutex.count", Unit: "count", Better: "lower"},
}

// evidenceFile: time moves a little, context switches a lot (no
// overlap), run-queue delay somewhat (overlap), TLB shootdowns not at
// all, lock counts are 0 everywhere.
func evidenceFile() *results.File {
	return file("mutex", evidenceMetrics, []string{"a", "b"}, map[string][][]float64{
		"time":               {{100, 101, 99, 100.5, 99.5, 100.2}, {110, 111, 109, 110.5, 109.5, 110.2}},
		"faults":             {{5, 5, 5, 5, 5, 5}, {5, 5, 5, 5, 5, 5}},
		"k.context_switches": {{10, 11, 12, 13, 14, 15}, {100, 110, 120, 130, 140, 150}},
		"k.runq_delay":       {{10, 20, 30, 40, 50, 60}, {35, 45, 55, 65, 75, 85}},
		"k.sys.irq_tlb":      {{1, 2, 3, 4, 5, 6}, {2, 1, 4, 3, 6, 5}},
		"k.lock.mutex.count": {{0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}},
	})
}

func TestCompareEvidenceSection(t *testing.T) {
	f := evidenceFile()
	r, err := comparison.Build([]comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, row := range r.Pairs[0].Rows {
		order = append(order, row.Metric.Name)
	}
	// Workload metrics first in their order, then evidence by effect
	// size (Cliff's delta), the identical one last.
	want := "time faults k.context_switches k.runq_delay k.sys.irq_tlb k.lock.mutex.count"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("row order %s, want %s", got, want)
	}
	// The evidence is a Holm family of its own: 3 tests.
	for _, row := range r.Pairs[0].Rows {
		if evidence.IsEvidence(row.Metric.Name) && row.Cmp != nil && row.Cmp.FamilySize != 3 {
			t.Errorf("%s in a family of %d, want 3", row.Metric.Name, row.Cmp.FamilySize)
		}
		if row.Metric.Name == "time" && row.Cmp.FamilySize != 1 {
			t.Errorf("headline in a family of %d", row.Cmp.FamilySize)
		}
	}
	if fams := strings.Join(r.Families, "; "); !strings.Contains(fams, "kernel evidence: Holm over 3 tests") {
		t.Errorf("families %q", fams)
	}
	var buf bytes.Buffer
	if err := Write(&buf, r, "text"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	head, ev, ok := strings.Cut(out, "kernel evidence (k.sys.*")
	if !ok {
		t.Fatalf("no evidence section:\n%s", out)
	}
	if strings.Contains(head, "k.context_switches") || !strings.Contains(head, "time") {
		t.Errorf("evidence in the metrics table:\n%s", out)
	}
	if !strings.HasPrefix(strings.TrimSpace(strings.SplitN(out, "\n", 5)[4]), "mutex time:") {
		t.Errorf("the headline is not the primary metric:\n%s", out)
	}
	cs, rq := strings.Index(ev, "k.context_switches"), strings.Index(ev, "k.runq_delay")
	if cs < 0 || rq < 0 || cs > rq || strings.Contains(ev, "k.lock.mutex.count") || !strings.Contains(ev, "1 more evidence metric is the same") {
		t.Errorf("evidence section:\n%s", ev)
	}
	for _, format := range []string{"json", "csv", "markdown"} {
		buf.Reset()
		if err := Write(&buf, r, format); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), "k.context_switches") {
			t.Errorf("%s lacks the evidence:\n%s", format, buf.String())
		}
	}
	buf.Reset()
	Write(&buf, r, "json")
	var j struct {
		Pairs []struct {
			Metrics []struct {
				Metric     string `json:"metric"`
				FamilySize int    `json:"holm_family_size"`
			} `json:"metrics"`
		} `json:"pairs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	if len(j.Pairs[0].Metrics) != len(evidenceMetrics) {
		t.Errorf("json has %d metrics", len(j.Pairs[0].Metrics))
	}
	buf.Reset()
	Write(&buf, r, "markdown")
	if !strings.Contains(buf.String(), "**"+evidence.Title+"**") {
		t.Errorf("markdown lacks the evidence heading:\n%s", buf.String())
	}
}

// TestOneSidedEvidence: side A ran without collectors (ab --a-evidence
// none, or a file run with --evidence none), side B with them. The
// comparison is made on what both sides have, and says which evidence
// metrics only side B has, in text, markdown and JSON.
func TestOneSidedEvidence(t *testing.T) {
	f := evidenceFile()
	for i := range f.Reps {
		if f.Reps[i].Config == 0 {
			for _, k := range f.Reps[i].Metrics.Names() {
				if evidence.IsEvidence(k) && k != "k.sys.irq_tlb" {
					f.Reps[i].Metrics.Delete(k)
				}
			}
		}
	}
	r, err := comparison.Build([]comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range r.OneSided {
		if len(o.Sides) != 1 || o.Sides[0] != 1 {
			t.Errorf("%s on sides %v, want B only", o.Metric, o.Sides)
		}
		names = append(names, o.Metric)
	}
	if got := strings.Join(names, " "); got != "k.context_switches k.runq_delay k.lock.mutex.count" {
		t.Errorf("one-sided %q", got)
	}
	var compared []string
	for _, row := range r.Pairs[0].Rows {
		compared = append(compared, row.Metric.Name)
	}
	if got := strings.Join(compared, " "); got != "time faults k.sys.irq_tlb" {
		t.Errorf("compared %q, want the metrics both sides have", got)
	}
	var buf bytes.Buffer
	if err := Write(&buf, r, "text"); err != nil {
		t.Fatal(err)
	}
	out := strings.Join(strings.Fields(buf.String()), " ")
	want := "3 evidence metrics have values on side B only (side A collected other evidence, or its collector failed), not compared: k.context_switches, k.runq_delay, k.lock.mutex.count"
	if !strings.Contains(out, want) || strings.Contains(out, "side A only") {
		t.Errorf("text lacks %q:\n%s", want, buf.String())
	}
	if _, ev, ok := strings.Cut(buf.String(), "kernel evidence (k.sys.*"); !ok || !strings.Contains(strings.Join(strings.Fields(ev), " "), want) {
		t.Errorf("the one-sided metrics are not in the evidence section:\n%s", buf.String())
	}
	buf.Reset()
	Write(&buf, r, "markdown")
	if !strings.Contains(buf.String(), want) {
		t.Errorf("markdown lacks %q:\n%s", want, buf.String())
	}
	buf.Reset()
	Write(&buf, r, "json")
	var j struct {
		Pairs []struct {
			OnlyA []string `json:"evidence_only_a"`
			OnlyB []string `json:"evidence_only_b"`
		} `json:"pairs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	if len(j.Pairs) != 1 || len(j.Pairs[0].OnlyA) != 0 || strings.Join(j.Pairs[0].OnlyB, " ") != "k.context_switches k.runq_delay k.lock.mutex.count" {
		t.Errorf("json pairs %+v", j.Pairs)
	}
	// comparison.Side A alone has no evidence at all: still compared, still said.
	for i := range f.Reps {
		if f.Reps[i].Config == 0 {
			f.Reps[i].Metrics.Delete("k.sys.irq_tlb")
		}
	}
	r, err = comparison.Build([]comparison.Side{comparison.FileSide("a", f, 0), comparison.FileSide("b", f, 1)}, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	Write(&buf, r, "text")
	if out := strings.Join(strings.Fields(buf.String()), " "); !strings.Contains(out, "kernel evidence") || !strings.Contains(out, "side A has no evidence values (it collected none, or its collectors failed): the 4 evidence metrics of side B are not compared") {
		t.Errorf("no evidence compared, one-sided not said:\n%s", buf.String())
	}
	// The same evidence on both sides: nothing said.
	r, _ = comparison.Build([]comparison.Side{comparison.FileSide("a", evidenceFile(), 0), comparison.FileSide("b", evidenceFile(), 1)}, comparison.Options{})
	if len(r.OneSided) != 0 {
		t.Errorf("one-sided %v with the same evidence on both sides", r.OneSided)
	}
}
