package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"contend/internal/comparison"
	"contend/internal/results"
)

// TestCompareMemoryPerSample bounds the bytes that reading two imported
// files of 40,000 samples (5.6 MB each, read in pieces) and comparing
// them allocate per sample, as compare does (counted by the runtime, not
// timed): 384 bytes through Reps and Values (with the statistics of
// 2026-12-01), 153 through columns, of which the two 2 MiB read buffers
// were 52; 36 since the read buffer is one of 512 kB kept for the next
// file, each side's values are sorted once for the statistics and the
// outliers, and the statistics write over those copies.
func TestCompareMemoryPerSample(t *testing.T) {
	const n = 40000
	dir := t.TempDir()
	var paths []string
	for side, base := range []float64{1e6, 1.01e6} {
		f := &results.File{Format: results.FormatName, Version: 2, Kind: "import", Workload: "import", Primary: "time",
			Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}}, Configs: []results.Config{{}}}
		for i := range n {
			x := base + float64((i*7919)%50000)
			f.Reps = append(f.Reps, results.Rep{Index: i, Round: i, Status: results.StatusOK,
				Metrics: results.ValuesOf(map[string]float64{"time": x}), Output: fmt.Sprintf("[line %d]\nfaultme: took %.0f ns", i+1, x)})
		}
		b, err := results.MarshalLines(f)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Join(dir, fmt.Sprint(side, ".json")))
		if err := os.WriteFile(paths[side], b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const runs = 2
	for range runs {
		var sides []comparison.Side
		for _, p := range paths {
			f, err := results.Read(p, results.WithoutOutputs, results.AsColumns)
			if err != nil {
				t.Fatal(err)
			}
			sides = append(sides, comparison.FileSide(p, f))
		}
		if err := Compare(io.Discard, sides, comparison.Options{}, "text"); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	per := float64(after.TotalAlloc-before.TotalAlloc) / runs / (2 * n)
	t.Logf("read + compare: %.0f bytes allocated a sample", per)
	if per > 64 {
		t.Errorf("read + compare allocate %.0f bytes a sample, want at most 64", per)
	}
}
