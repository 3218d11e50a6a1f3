package results

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// benchRep is a repetition of the size an import writes (about 260 bytes).
func benchRep(i int) Rep {
	return Rep{Index: i, Round: i, Status: StatusOK, Start: time.Date(2026, 11, 30, 1, 2, 3, 0, time.UTC),
		Metrics: ValuesOf(map[string]float64{"time": 1e6 + float64(i), "pages": 262144}),
		Output:  fmt.Sprintf("[line %d]\nfaultme: 40 threads, 262144 pages in %d ns", i+1, 1000000+i)}
}

// BenchmarkAppend measures what adding one repetition costs to a file
// already holding 10 or 10,000 (scripts/bench-results.sh runs it; it is a
// benchmark, never a timed test). Both must cost the same.
func BenchmarkAppend(b *testing.B) {
	for _, n := range []int{10, 10000} {
		b.Run(fmt.Sprintf("after=%d", n), func(b *testing.B) {
			f := sampleFile()
			for i := 0; i < n; i++ {
				f.Reps = append(f.Reps, benchRep(i))
			}
			w, err := Create(filepath.Join(b.TempDir(), "r.json"), f)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := w.Add(benchRep(n + i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeRep measures the fast decoder (repScanner.decodeRep) on
// a repetition line of the writer's shape, as parseLines meets 100,000 of
// them in an imported file.
func BenchmarkDecodeRep(b *testing.B) {
	r := benchRep(12345)
	var e repEncoder
	line, err := e.appendRepLine(nil, &r)
	if err != nil {
		b.Fatal(err)
	}
	var s repScanner
	var got Rep
	b.ReportAllocs()
	for b.Loop() {
		if !s.decodeRep(line, &got) {
			b.Fatal("not decoded")
		}
	}
}
