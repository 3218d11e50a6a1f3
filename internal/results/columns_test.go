package results

import (
	"bytes"
	"contend/internal/testsize"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"
)

// TestColumnsReadSameAsReps reads random files, cut, changed and spoilt
// (testFiles), in pieces of random sizes, with and without AsColumns: the
// same error, and the same File, repetition by repetition (Columns.Rep),
// with the same Values and Counts. Most of the large ones must go
// straight into columns (readPieces with cols), not the other way.
func TestColumnsReadSameAsReps(t *testing.T) {
	defer func(c, w int) { readChunk, readWholeMax = c, w }(readChunk, readWholeMax)
	rng := rand.New(rand.NewPCG(61, 62))
	path := filepath.Join(t.TempDir(), "r.json")
	direct, files := 0, 0
	trials := testsize.Pick(25, 200)
	for trial := range trials {
		for k, b := range testFiles(t, rng, trial) {
			// Pieces that hold the header, else the file is read at once.
			readChunk, readWholeMax = bytes.IndexByte(b, '\n')+1+rng.IntN(600), rng.IntN(100)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, opts := range [][]ReadOption{nil, {WithoutOutputs}} {
				want, werr := Read(path, opts...)
				got, gerr := Read(path, append(opts, AsColumns)...)
				if fmt.Sprint(gerr) != fmt.Sprint(werr) {
					t.Fatalf("trial %d file %d %v: AsColumns %v, Reps %v\nfile %q", trial, k, opts, gerr, werr, b)
				}
				if werr != nil {
					continue
				}
				files++
				if got.Reps != nil || got.NumReps() != len(want.Reps) {
					t.Fatalf("trial %d file %d: AsColumns left %d Reps, %d in columns, want 0 and %d", trial, k, len(got.Reps), got.NumReps(), len(want.Reps))
				}
				for c := -1; c < len(want.Configs); c++ {
					for _, m := range []string{"time", "k.ctx", "x<y", "é", "none"} {
						if g, w := got.Values(c, m), want.Values(c, m); !slices.Equal(g, w) {
							t.Fatalf("trial %d file %d: Values(%d, %s) %v, want %v", trial, k, c, m, g, w)
						}
					}
					if g, w := got.Counts(c), want.Counts(c); !reflect.DeepEqual(g, w) {
						t.Fatalf("trial %d file %d: Counts(%d) %v, want %v", trial, k, c, g, w)
					}
				}
				reps := got.Columns().Reps()
				if len(want.Reps) == 0 {
					reps = want.Reps // nil or empty: nothing to tell apart
				}
				got.cols, got.Reps = nil, reps
				if !reflect.DeepEqual(got, want) {
					for i := range min(len(reps), len(want.Reps)) {
						if !reflect.DeepEqual(reps[i], want.Reps[i]) {
							t.Errorf("rep %d: columns %+v\nreps %+v", i, reps[i], want.Reps[i])
							break
						}
					}
					t.Fatalf("trial %d file %d %v: AsColumns %+v\nReps %+v", trial, k, opts, got, want)
				}
			}
			if fh, err := os.Open(path); err == nil {
				if f, err := readPieces(fh, len(b), false, true); err == nil && f.cols != nil {
					direct++
				}
				fh.Close()
			}
		}
	}
	if direct < trials/2 || files < 3*trials/2 {
		t.Errorf("only %d of %d files read went straight into columns", direct, files)
	}
}

// TestColumnsLikeValues: random sequences of Set and Delete on the
// repetitions of Columns, and the same on each repetition's Values (what
// every Rep held before), give the same metrics (Lookup, Metrics, Metric,
// Rep); a Rep taken from the Columns shares nothing with them: a Set or
// Delete on either never shows in the other.
func TestColumnsLikeValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(63, 64))
	names := []string{"time", "k.ctx", "a", "z", "é", "x<y"}
	for trial := range 200 {
		n := 1 + rng.IntN(20)
		reps := make([]Rep, n)
		for i := range reps {
			reps[i] = Rep{Index: i, Status: StatusOK}
			if rng.IntN(3) > 0 {
				reps[i].Metrics = Values{}
				for range rng.IntN(3) {
					reps[i].Metrics.Set(names[rng.IntN(len(names))], rng.NormFloat64())
				}
			}
		}
		c := ColumnsOf(reps)
		taken := make([]Rep, n) // Reps taken from c before the changes
		for i := range taken {
			taken[i] = c.Rep(i)
		}
		before := ColumnsOf(taken).Reps()
		for range 50 {
			i, name := rng.IntN(n), names[rng.IntN(len(names))]
			if rng.IntN(3) == 0 {
				c.Delete(i, name)
				reps[i].Metrics.Delete(name)
			} else {
				x := rng.NormFloat64()
				c.Set(i, name, x)
				if reps[i].Metrics == nil {
					reps[i].Metrics = Values{}
				}
				reps[i].Metrics.Set(name, x)
			}
			// A change of a taken Rep stays its own.
			j := rng.IntN(n)
			taken[j].Metrics.Set(names[rng.IntN(len(names))], 7)
			taken[j].Metrics = before[j].Metrics.Clone()
		}
		for i := range reps {
			if got, want := c.Metrics(i), reps[i].Metrics; !reflect.DeepEqual(got, want) {
				t.Fatalf("trial %d rep %d: columns %v, values %v", trial, i, got, want)
			}
			for _, name := range names {
				gx, gok := c.Lookup(i, name)
				wx, wok := reps[i].Metrics.Lookup(name)
				vals, has := c.Metric(name)
				if gx != wx || gok != wok || (has != nil && (has[i] != wok || (wok && vals[i] != wx))) {
					t.Fatalf("trial %d rep %d %s: columns %v %v, values %v %v", trial, i, name, gx, gok, wx, wok)
				}
			}
			if r := c.Rep(i); !reflect.DeepEqual(r, reps[i]) {
				t.Fatalf("trial %d: Rep(%d) %+v, want %+v", trial, i, r, reps[i])
			}
			if !reflect.DeepEqual(taken[i], before[i]) {
				t.Fatalf("trial %d: Rep %d taken before the changes became %+v, was %+v", trial, i, taken[i], before[i])
			}
		}
		// A Rep taken now, changed, leaves the Columns as they are.
		r := c.Rep(0)
		r.Metrics.Set("time", math.Pi)
		r.Metrics.Delete("a")
		if got := c.Metrics(0); !reflect.DeepEqual(got, reps[0].Metrics) {
			t.Fatalf("trial %d: a change of Rep(0) shows in the columns: %v, want %v", trial, got, reps[0].Metrics)
		}
	}
}

// TestColumnsOfEveryField: ColumnsOf keeps every field of a Rep, as it
// is, the rare ones too (a status not of the four, numbers beyond 32
// bits, empty notes and metrics, series).
func TestColumnsOfEveryField(t *testing.T) {
	rng := rand.New(rand.NewPCG(65, 66))
	var reps []Rep
	for i := range 300 {
		reps = append(reps, randomRep(rng, i))
	}
	reps = append(reps,
		Rep{Index: 1 << 40, Config: -1 << 35, Round: 1 << 33, Status: "lost", Notes: []string{}, Metrics: Values{}},
		Rep{Series: map[string][]float64{"t": {1, 2}}, Start: time.Unix(1, 2).UTC()},
		Rep{})
	c := ColumnsOf(reps)
	if got := c.Reps(); !reflect.DeepEqual(got, reps) {
		for i := range reps {
			if !reflect.DeepEqual(got[i], reps[i]) {
				t.Fatalf("rep %d: %+v, want %+v", i, got[i], reps[i])
			}
		}
	}
	f := &File{Reps: reps}
	if f.NumReps() != len(reps) || f.Columns().Len() != len(reps) {
		t.Errorf("NumReps %d, Columns %d, want %d", f.NumReps(), f.Columns().Len(), len(reps))
	}
}

// TestColumnsMemoryPerSample bounds what reading a file of one metric
// AsColumns allocates per repetition (bytes counted by the runtime, not
// timed): the Rep array and its Values cost 256 bytes a repetition;
// columns cost about 21, with the read buffers and the header (10 a
// value, its presence and flags; the index, configuration and round of
// a file of one configuration are not columns: 12 more before).
func TestColumnsMemoryPerSample(t *testing.T) {
	const n = 100000
	f := sampleFile()
	f.Kind, f.Workload = "import", "import"
	for i := range n {
		f.Reps = append(f.Reps, Rep{Index: i, Round: i, Status: StatusOK, Metrics: ValuesOf(map[string]float64{"time": 1e6 + float64(i%50000)}),
			Output: fmt.Sprintf("[line %d]\nfaultme: took %d ns", i+1, 1000000+i%50000)})
	}
	path := filepath.Join(t.TempDir(), "r.json")
	b, err := MarshalLines(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	perRep := func(opts ...ReadOption) (bytes, allocs float64) {
		var before, after runtimeStats
		before.read()
		allocs = testing.AllocsPerRun(3, func() {
			g, err := Read(path, opts...)
			if err != nil || g.NumReps() != n {
				t.Fatalf("read %v: %d repetitions, %v", opts, g.NumReps(), err)
			}
		})
		after.read()
		return float64(after.bytes-before.bytes) / 4 / n, allocs / n // AllocsPerRun runs it once more
	}
	cb, ca := perRep(WithoutOutputs, AsColumns)
	rb, _ := perRep(WithoutOutputs)
	t.Logf("per repetition: columns %.1f bytes, %.3f allocations; Reps %.1f bytes", cb, ca, rb)
	if cb > 32 || ca > 0.01 {
		t.Errorf("reading AsColumns allocates %.1f bytes and %.3f allocations a repetition, want at most 32 and 0.01", cb, ca)
	}
	if rb < 4*cb {
		t.Errorf("reading Reps allocates %.1f bytes a repetition, columns %.1f: want columns under a quarter", rb, cb)
	}
}

// runtimeStats is what the runtime counts of allocations.
type runtimeStats struct{ bytes uint64 }

func (s *runtimeStats) read() {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s.bytes = m.TotalAlloc
}
