package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"contend/internal/results"
)

// writeBootFile writes a result file of workload w whose repetitions of
// metric time (ns) ran in the boots given, values a boot, and returns its
// path.
func writeBootFile(t *testing.T, dir, name string, boots []string, values [][]float64) string {
	t.Helper()
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	f := &results.File{Format: results.FormatName, Version: 1, Kind: "run", Workload: "faultme", Primary: "time", Complete: true, Start: t0,
		Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}}, Configs: []results.Config{{}},
		Env: map[string]string{"kernel.release": "6.18.0"}}
	for i, id := range boots {
		for _, v := range values[i] {
			f.Reps = append(f.Reps, results.Rep{Index: len(f.Reps), Status: results.StatusOK, BootID: id,
				Start: t0.Add(time.Duration(len(f.Reps)) * time.Second), Metrics: results.ValuesOf(map[string]float64{"time": v})})
		}
	}
	b, err := results.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCompareStatesTheUnitOfReplication runs 'contend compare' (the brief
// default, and --format lkml and markdown) on result files whose
// repetitions record their boots: both sides in one shared boot (the
// p-value covers this boot), in two different single boots (the
// difference includes boot-to-boot variance; run a campaign), and in
// three boots a side (the boot level is the headline). The runs differ by
// 20%: "faster" in every case, which alone says nothing of the boots.
func TestCompareStatesTheUnitOfReplication(t *testing.T) {
	dir := t.TempDir()
	va := []float64{120, 121, 122, 123, 124, 120, 121, 122, 123}
	vb := []float64{100, 101, 102, 103, 104, 100, 101, 102, 103}
	third := func(v []float64) [][]float64 { return [][]float64{v[:3], v[3:6], v[6:]} }
	shared := []string{writeBootFile(t, dir, "shared-a.json", []string{"boot-x"}, [][]float64{va}), writeBootFile(t, dir, "shared-b.json", []string{"boot-x"}, [][]float64{vb})}
	two := []string{writeBootFile(t, dir, "two-a.json", []string{"boot-x"}, [][]float64{va}), writeBootFile(t, dir, "two-b.json", []string{"boot-y"}, [][]float64{vb})}
	var many []string
	for i, s := range []string{"a", "b"} {
		v := map[int][]float64{0: va, 1: vb}[i]
		many = append(many, writeBootFile(t, dir, "many-"+s+".json", []string{s + "1", s + "2", s + "3"}, third(v)))
	}
	for _, c := range []struct {
		name  string
		files []string
		want  string // in the headline's lines (the brief report's first paragraph after the sides)
		unit  string // JSON's replication
	}{
		{"one shared boot", shared, "A and B ran within one boot: the p-value covers this boot, not boot-to-boot variance", "one_boot"},
		{"two single boots", two, "A and B ran in different boots, one each: the difference includes boot-to-boot variance, which these runs cannot separate; run a campaign", "two_boots"},
		{"three boots a side", many, "boot level -16.4% [-17.6%, -15.2%], p<0.001 (t on 3+3 boots, 9+9 runs): faster", "boots"},
	} {
		r := runCLI(t, append([]string{"compare"}, c.files...)...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, r.code, r.stderr)
		}
		paras := strings.Split(r.stdout, "\n\n")
		if len(paras) < 3 || !strings.HasPrefix(paras[1], "faultme time: ") {
			t.Fatalf("%s: no headline:\n%s", c.name, r.stdout)
		}
		head := strings.Join(strings.Fields(paras[1]), " ")
		if !strings.Contains(head, c.want) || !strings.Contains(head, ": faster") {
			t.Errorf("%s: the headline's lines lack %q:\n%s", c.name, c.want, r.stdout)
		}
		if strings.Count(r.stdout, " ran ") != map[bool]int{true: 0, false: 1}[c.name == "three boots a side"] {
			t.Errorf("%s: the unit said other than once:\n%s", c.name, r.stdout)
		}
		js := runCLI(t, append([]string{"compare", "--format", "json"}, c.files...)...)
		var doc struct {
			Pairs []struct {
				Replication string `json:"replication"`
			} `json:"pairs"`
		}
		if err := json.Unmarshal([]byte(js.stdout), &doc); err != nil || len(doc.Pairs) != 1 || doc.Pairs[0].Replication != c.unit {
			t.Errorf("%s: json's replication is not %q: %v\n%s", c.name, c.unit, err, js.stdout)
		}
		if c.name == "three boots a side" {
			continue
		}
		lkml := strings.Replace(c.want, "A and B", "the base and the new side", 1)
		for format, want := range map[string]string{"lkml": lkml, "markdown": c.want, "json": c.want} {
			r := runCLI(t, append([]string{"compare", "--format", format}, c.files...)...)
			if r.code != 0 || !strings.Contains(strings.Join(strings.Fields(r.stdout), " "), want) {
				t.Errorf("%s: --format %s (exit %d) lacks %q:\n%s%s", c.name, format, r.code, want, r.stdout, r.stderr)
			}
		}
	}
}
