package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"contend/internal/comparison"
	"contend/internal/results"
)

// TestReplicationInEveryFormat checks that the default (brief) report
// states the unit of replication under the headline, and the full text,
// markdown, CSV and JSON with it: sides of one shared boot, of two
// different single boots (the boot-to-boot variance is in the difference),
// one boot against several, both spanning two or more boots (the boot
// level is the headline, as before), and no boot ids (nothing said). The
// values differ by 20%, so the runs' verdict is "slower" in every case.
func TestReplicationInEveryFormat(t *testing.T) {
	va := []float64{100, 101, 102, 103, 104, 100, 101, 102, 103}
	vb := []float64{120, 121, 122, 123, 124, 120, 121, 122, 123}
	one := func(id string, v []float64) map[string][]float64 { return map[string][]float64{id: v} }
	three := func(p string, v []float64) (map[string][]float64, []string) {
		return map[string][]float64{p + "1": v[:3], p + "2": v[3:6], p + "3": v[6:]}, []string{p + "1", p + "2", p + "3"}
	}
	a3, oa := three("a", va)
	b3, ob := three("b", vb)
	for _, c := range []struct {
		name   string
		a, b   map[string][]float64
		oa, ob []string
		unit   comparison.Replication
		note   string // under the headline, "" for none
	}{
		{"one shared boot", one("x", va), one("x", vb), []string{"x"}, []string{"x"}, comparison.ReplicationOneBoot,
			"A and B ran within one boot: the p-value covers this boot, not boot-to-boot variance"},
		{"two single boots", one("x", va), one("y", vb), []string{"x"}, []string{"y"}, comparison.ReplicationTwoBoots,
			"A and B ran in different boots, one each: the difference includes boot-to-boot variance, which these runs cannot separate; run a campaign"},
		{"one boot against three", one("x", va), b3, []string{"x"}, ob, comparison.ReplicationUneven,
			"A ran in one boot, B in 3: the difference includes boot-to-boot variance, which one boot of A cannot separate; run a campaign (two or more boots a side)"},
		{"three boots a side", a3, b3, oa, ob, comparison.ReplicationBoots, ""},
		{"no boot ids", one("", va), one("", vb), []string{""}, []string{""}, comparison.ReplicationUnknown, ""},
	} {
		r, err := comparison.Build([]comparison.Side{comparison.FileSide("a", bootFile(c.a, c.oa...)), comparison.FileSide("b", bootFile(c.b, c.ob...))}, comparison.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if u, _ := r.ReplicationOf(r.Pairs[0]); u != c.unit {
			t.Errorf("%s: unit %q, want %q", c.name, u, c.unit)
		}
		flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
		var brief bytes.Buffer
		if err := WriteText(&brief, r, Brief); err != nil {
			t.Fatal(err)
		}
		// The note follows the headline, before the table.
		head, _, _ := strings.Cut(brief.String(), "\n\nmetric")
		_, head, _ = strings.Cut(head, "\n\n")
		if !strings.HasPrefix(head, "w time: ") {
			t.Fatalf("%s: no headline:\n%s", c.name, brief.String())
		}
		if c.unit == comparison.ReplicationBoots {
			if !strings.Contains(flat(head), "boot level +19.7%") || !strings.Contains(flat(head), "(t on 3+3 boots, 9+9 runs): slower") {
				t.Errorf("%s: the boot level is not the headline:\n%s", c.name, brief.String())
			}
		} else if !strings.Contains(flat(head), "): slower") {
			t.Errorf("%s: headline:\n%s", c.name, brief.String())
		}
		noted := func(s string) bool {
			return strings.Contains(s, " ran within one boot") || strings.Contains(s, " ran in ")
		}
		if got := flat(head); !strings.Contains(got, c.note) || noted(got) != (c.note != "") {
			t.Errorf("%s: brief headline lines lack %q (or say another):\n%s", c.name, c.note, brief.String())
		}
		var full, md, cs, js bytes.Buffer
		for _, f := range []struct {
			format string
			buf    *bytes.Buffer
		}{{"text", &full}, {"markdown", &md}, {"csv", &cs}, {"json", &js}} {
			if err := Write(f.buf, r, f.format); err != nil {
				t.Fatal(err)
			}
		}
		if c.note != "" {
			fh, _, _ := strings.Cut(full.String(), "\n\nmetric")
			if !strings.Contains(flat(fh), c.note) || strings.Count(flat(full.String()), c.note) != 1 {
				t.Errorf("%s: full text lacks %q once under the headline:\n%s", c.name, c.note, full.String())
			}
			if !strings.Contains(md.String(), "): slower**\n  - "+c.note+"\n") {
				t.Errorf("%s: markdown lacks %q under the headline:\n%s", c.name, c.note, md.String())
			}
		} else if noted(full.String()) || noted(md.String()) {
			t.Errorf("%s: a one-boot note:\n%s\n%s", c.name, full.String(), md.String())
		}
		rows, err := csv.NewReader(&cs).ReadAll()
		if err != nil || len(rows) != 2 || rows[0][len(rows[0])-1] != "replication" || rows[1][len(rows[1])-1] != string(c.unit) {
			t.Errorf("%s: csv's replication column (want %q): %v %q", c.name, c.unit, err, rows)
		}
		var doc struct {
			Pairs []struct {
				Replication     string `json:"replication"`
				ReplicationNote string `json:"replication_note"`
			} `json:"pairs"`
		}
		if err := json.Unmarshal(js.Bytes(), &doc); err != nil || len(doc.Pairs) != 1 || doc.Pairs[0].Replication != string(c.unit) || doc.Pairs[0].ReplicationNote != c.note {
			t.Errorf("%s: json's replication (want %q, %q): %v %+v", c.name, c.unit, c.note, err, doc.Pairs)
		}
	}
}

// TestReplicationThreeSides: A and B span three boots each, C one: the
// report is not the boot level's (C cannot have one), so the A-B pair says
// its p-value takes the runs of every boot as independent, and A-C that
// one boot of C cannot separate the boots from the change.
func TestReplicationThreeSides(t *testing.T) {
	v := []float64{100, 101, 102, 103, 104, 100, 101, 102, 103}
	three := func(p string) *results.File {
		return bootFile(map[string][]float64{p + "1": v[:3], p + "2": v[3:6], p + "3": v[6:]}, p+"1", p+"2", p+"3")
	}
	c := bootFile(map[string][]float64{"c": v}, "c")
	r, err := comparison.Build([]comparison.Side{comparison.FileSide("a", three("a")), comparison.FileSide("b", three("b")), comparison.FileSide("c", c)}, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.BootUnit() || len(r.Pairs) != 2 {
		t.Fatalf("boot unit %v, %d pairs", r.BootUnit(), len(r.Pairs))
	}
	for i, want := range []struct {
		unit comparison.Replication
		note string
	}{
		{comparison.ReplicationBoots, "A and B ran in 3 and 3 boots: the p-value takes the runs of every boot as independent (the full report has the boot level, the boot as the unit)"},
		{comparison.ReplicationUneven, "C ran in one boot, A in 3: the difference includes boot-to-boot variance, which one boot of C cannot separate; run a campaign (two or more boots a side)"},
	} {
		if u, note := r.Pairs[i].Replication, r.Pairs[i].ReplicationNote; u != want.unit || note != want.note {
			t.Errorf("pair %d: %q %q, want %q %q", i, u, note, want.unit, want.note)
		}
	}
	var out bytes.Buffer
	if err := WriteText(&out, r, Brief); err != nil {
		t.Fatal(err)
	}
	if flat := strings.Join(strings.Fields(out.String()), " "); !strings.Contains(flat, "A and B ran in 3 and 3 boots") || !strings.Contains(flat, "C ran in one boot, A in 3") {
		t.Errorf("brief:\n%s", out.String())
	}
}

// TestRenderersFormatTheModel: the renderers print the numbers and
// sentences Build left in the model, and compute none of their own: a
// model whose row medians, counts and replication sentence are changed
// after Build is printed with the changed ones in every format.
func TestRenderersFormatTheModel(t *testing.T) {
	a := bootFile(map[string][]float64{"x": {10, 11, 12, 13, 14, 15}}, "x")
	b := bootFile(map[string][]float64{"y": {12, 13, 14, 15, 16, 17}}, "y")
	r, err := comparison.Build([]comparison.Side{comparison.FileSide("a", a), comparison.FileSide("b", b)}, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := &r.Pairs[0]
	if p.Replication != comparison.ReplicationTwoBoots || p.ReplicationNote == "" {
		t.Fatalf("replication %q %q, want two boots with its note", p.Replication, p.ReplicationNote)
	}
	p.ReplicationNote = "the note of the model"
	p.Rows[0].MedianA, p.Rows[0].MedianB, p.Rows[0].NA = 777, 888, 4242
	for _, c := range []struct{ format, want string }{
		{"text", "the note of the model"}, {"text", "777 ns"}, {"text", "888 ns"},
		{"markdown", "the note of the model"}, {"markdown", "777"},
		{"json", `"median_a": 777`}, {"json", `"n_a": 4242`}, {"json", "the note of the model"},
		{"csv", ",4242,777,"},
	} {
		var out bytes.Buffer
		if err := Write(&out, r, c.format); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("%s: no %q in\n%s", c.format, c.want, out.String())
		}
	}
}
