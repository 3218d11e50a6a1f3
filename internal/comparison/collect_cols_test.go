package comparison

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"contend/internal/results"
	"contend/internal/testsize"
)

// collectBefore is what collectSide found before it read columns: each
// metric's values with where each came from, from the Reps.
func collectBefore(s Side) (map[string][]obs, map[string]int) {
	all, counts := map[string][]obs{}, map[string]int{}
	for pi, p := range s.Parts {
		sel := map[int]bool{}
		for _, c := range p.Configs {
			sel[c] = true
		}
		ord := map[int]int{}
		for _, rep := range p.File.Reps {
			if rep.Warmup || !sel[rep.Config] {
				continue
			}
			ord[rep.Config]++
			counts[rep.Status]++
			if rep.Status != results.StatusOK {
				continue
			}
			for k, v := range rep.Metrics.All() {
				all[k] = append(all[k], obs{origin{int32(pi), int32(rep.Index), int32(ord[rep.Config])}, v})
			}
		}
	}
	return all, counts
}

// TestCollectSideSameAsBefore: random sides of one to three files (one
// to three configurations, warm-ups, failures, metrics some repetitions
// lack), their files read with Reps and AsColumns: collectSide finds the
// values, their origins and the counts collectBefore finds.
func TestCollectSideSameAsBefore(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	dir := t.TempDir()
	metrics := []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}, {Name: "pages", Unit: "count"}, {Name: "k.sys.pgfault", Unit: "count"}}
	for trial := range testsize.Pick(100, 300) {
		var side, cside Side
		for p := range 1 + rng.IntN(3) {
			f := &results.File{Format: results.FormatName, Version: 2, Kind: "run", Workload: "faultme", Metrics: metrics, Primary: "time"}
			nc := 1 + rng.IntN(3)
			for c := range nc {
				f.Configs = append(f.Configs, results.Config{Name: fmt.Sprint("c", c)})
			}
			for i := range rng.IntN(60) {
				r := results.Rep{Index: i, Config: rng.IntN(nc), Round: i / 2, Status: results.StatusOK, Warmup: rng.IntN(8) == 0}
				if rng.IntN(6) == 0 {
					r.Status = results.StatusFailed
				}
				r.Metrics = results.Values{}
				for _, m := range metrics {
					if rng.IntN(5) > 0 || m.Name == "time" && trial%2 == 0 {
						r.Metrics.Set(m.Name, float64(rng.IntN(1000)))
					}
				}
				f.Reps = append(f.Reps, r)
			}
			if trial%3 == 0 { // every repetition measured, of one configuration
				f.Configs = f.Configs[:1]
				for i := range f.Reps {
					f.Reps[i].Config, f.Reps[i].Warmup, f.Reps[i].Status = 0, false, results.StatusOK
				}
			}
			b, err := results.MarshalLines(f)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, fmt.Sprint(p, ".json"))
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			rf, err := results.Read(path)
			if err != nil {
				t.Fatal(err)
			}
			cf, err := results.Read(path, results.AsColumns)
			if err != nil {
				t.Fatal(err)
			}
			var configs []int
			for c := range len(f.Configs) {
				if c == 0 || rng.IntN(2) == 0 {
					configs = append(configs, c)
				}
			}
			side.Parts = append(side.Parts, Part{Name: path, File: rf, Configs: configs})
			cside.Parts = append(cside.Parts, Part{Name: path, File: cf, Configs: configs})
		}
		want, wcounts := collectBefore(side)
		for _, s := range []Side{side, cside} {
			sr := collectSide("A", s)
			if !reflect.DeepEqual(sr.Counts, wcounts) {
				t.Fatalf("trial %d: counts %v, before %v", trial, sr.Counts, wcounts)
			}
			for _, m := range metrics {
				got := sr.obsOf(m.Name)
				if len(got) == 0 && len(want[m.Name]) == 0 {
					continue
				}
				if !reflect.DeepEqual(got, want[m.Name]) {
					t.Fatalf("trial %d metric %s: %v\nbefore %v", trial, m.Name, got, want[m.Name])
				}
				if sr.Count(m.Name) != len(want[m.Name]) {
					t.Fatalf("trial %d metric %s: count %d, want %d", trial, m.Name, sr.Count(m.Name), len(want[m.Name]))
				}
			}
		}
	}
}
