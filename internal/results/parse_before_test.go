package results

import (
	"bytes"
	"contend/internal/testsize"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// parseBefore is parse as it was before the records were decoded in byte
// ranges, without a slice of lines, records and errors (kept as the
// reference of TestParseSameAsBefore).
func parseBefore(b []byte) (*File, int, error) {
	if len(b) > MaxFileSize {
		return nil, 0, fmt.Errorf("larger than %d MiB: not a result file", MaxFileSize>>20)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, 0, errors.New("empty file, not a result file")
	}
	if !utf8.Valid(b) {
		return nil, 0, errors.New("not valid UTF-8: not a result file")
	}
	first, _, _ := bytes.Cut(b, []byte("\n"))
	first = bytes.TrimSpace(first)
	if len(first) > 0 && first[0] == '{' && json.Valid(first) {
		// A first line that is a whole object: a version-2 header, or a
		// version-1 document on one line.
		var head struct {
			Format  string `json:"format"`
			Version int    `json:"version"`
		}
		if err := json.Unmarshal(first, &head); err == nil && head.Format == FormatName && head.Version == 2 {
			return parseLinesBefore(b)
		}
	}
	f, err := parseDocument(b)
	return f, len(b), err
}

func parseLinesBefore(b []byte) (*File, int, error) {
	n := bytes.Count(b, []byte("\n")) + 1
	lines := make([][]byte, 0, n)
	ends := make([]int, 0, n) // offset after each line
	for off := 0; off < len(b); {
		i := bytes.IndexByte(b[off:], '\n')
		next := off + i + 1
		if i < 0 {
			next = len(b)
		}
		lines = append(lines, b[off:next])
		ends = append(ends, next)
		off = next
	}
	f := new(File)
	if err := json.Unmarshal(lines[0], f); err != nil {
		return nil, 0, fmt.Errorf("corrupt result file header: %v", err)
	}
	f.Complete, f.End = false, time.Time{}
	recs := make([]record, len(lines)-1)
	errs := make([]error, len(lines)-1)
	// The repetitions are decoded into their places in one array, which
	// becomes f.Reps (kept in place: decodeRecord put those encoding/json
	// decoded elsewhere).
	reps := make([]Rep, len(lines)-1)
	decodeParallelBefore(lines[1:], recs, errs, reps)
	nrep := 0
	for _, r := range recs {
		if r.Rep != nil {
			nrep++
		}
	}
	inPlace := len(f.Reps) == 0
	var repLines []int // the line of each repetition (header's: line 1)
	if inPlace {
		f.Reps = reps[:0]
	} else {
		f.Reps = slices.Grow(f.Reps, nrep)
	}
	good := ends[0]
	for i := range recs {
		line := lines[i+1]
		if len(bytes.TrimSpace(line)) == 0 {
			good = ends[i+1]
			continue
		}
		r, err := recs[i], errs[i]
		if err == nil {
			n := 0
			for _, set := range []bool{r.Rep != nil, r.Append != nil, r.End != nil} {
				if set {
					n++
				}
			}
			if n != 1 {
				err = errors.New("not one repetition, append or end record")
			}
		}
		if err != nil {
			if i == len(recs)-1 && line[len(line)-1] != '\n' {
				f.Warnings = append(f.Warnings, fmt.Sprintf("the last record of the file (line %d, %d bytes) is torn, as a run killed while writing it leaves it: dropped", i+2, len(line)))
				break
			}
			return nil, 0, fmt.Errorf("corrupt result file: line %d: %v", i+2, err)
		}
		good = ends[i+1]
		switch {
		case r.Rep != nil:
			// Into reps[len(f.Reps)], at or before reps[i] (or to a
			// separate array when the header had repetitions).
			f.Reps = append(f.Reps, *r.Rep)
			repLines = append(repLines, i+2)
			f.Complete, f.End = false, time.Time{}
		case r.Append != nil:
			f.Appends = append(f.Appends, *r.Append)
			f.Complete, f.End = false, time.Time{}
		case r.End != nil:
			f.End, f.Complete = r.End.Time, r.End.Complete
			f.Warnings = append(f.Warnings, r.End.Warnings...)
		}
	}
	// Then as parse does: a repeated index is counted once.
	f.dropRepeated(func() []int {
		if !inPlace {
			return nil
		}
		return repLines
	})
	if err := f.check(); err != nil {
		return nil, 0, err
	}
	return f, good, nil
}

func decodeParallelBefore(lines [][]byte, recs []record, errs []error, reps []Rep) {
	workers := min(runtime.GOMAXPROCS(0), 1+len(lines)/1024)
	var wg sync.WaitGroup
	chunk := (len(lines) + workers - 1) / workers
	for lo := 0; lo < len(lines); lo += chunk {
		hi := min(lo+chunk, len(lines))
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s repScanner
			for i := lo; i < hi; i++ {
				if len(bytes.TrimSpace(lines[i])) > 0 {
					errs[i] = decodeRecordBefore(&s, lines[i], &recs[i], &reps[i])
				}
			}
		}()
	}
	wg.Wait()
}

func decodeRecordBefore(s *repScanner, line []byte, r *record, rep *Rep) error {
	if s.decodeRep(line, rep) {
		r.Rep = rep
		return nil
	}
	return json.Unmarshal(line, r)
}

// testFiles returns random result files and the same files cut, changed
// and spoilt (TestParseSameAsBefore, TestReadInPiecesSameAsParse). The
// files hold repetitions the fast decoder takes and ones it leaves to
// encoding/json, appends, ends with warnings, blank lines, torn and
// corrupt lines, bytes that are not UTF-8, and headers holding
// repetitions.
func testFiles(t *testing.T, rng *rand.Rand, trial int) [][]byte {
	f := sampleFile()
	f.Metrics = append(f.Metrics, Metric{Name: "k.ctx"}, Metric{Name: "x<y"}, Metric{Name: "é"})
	// A third of the files have one configuration, as an import or a
	// run: read AsColumns, their index, configuration and round are
	// implicit but in the rows that are not 0, 1, 2..., 0, 0 or the
	// index (Columns.implicit).
	single := trial%3 == 1
	if !single {
		f.Configs = append(f.Configs, Config{Name: "b"}, Config{Name: "c"})
	}
	rounds := rng.IntN(3) // 0, the index, or random
	n := rng.IntN(40)
	if trial%50 == 0 || trial%50 == 1 {
		n = 3000 + rng.IntN(3000) // several ranges
	}
	for i := range n {
		r := randomRep(rng, i)
		if single {
			r.Config = 0
			switch rounds {
			case 0:
				r.Round = 0
			case 1:
				r.Round = i
			}
			switch rng.IntN(400) {
			case 0:
				r.Config = 1 // a configuration the file lacks
			case 1, 2, 3:
				r.Index = i + 1 + rng.IntN(3) // not its row
			case 4:
				r.Index, r.Round = 1<<40, 1<<40 // beyond 32 bits
			}
		}
		f.Reps = append(f.Reps, r)
	}
	if rng.IntN(3) == 0 && n > 0 {
		f.Appends = []Segment{{Command: []string{"contend", "run"}, FirstRep: rng.IntN(n)}}
	}
	f.Complete = rng.IntN(2) == 0
	f.End = f.Start.Add(time.Minute)
	b, err := MarshalLines(f)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	switch rng.IntN(8) {
	case 0: // a repetition with spaces (encoding/json's)
		if len(lines) > 2 {
			k := 1 + rng.IntN(len(lines)-2)
			lines[k] = bytes.Replace(lines[k], []byte(`":`), []byte(`": `), 1)
		}
	case 1: // blank lines
		k := 1 + rng.IntN(len(lines)-1)
		lines = append(lines[:k], append([][]byte{[]byte("  \n"), []byte("\n")}, lines[k:]...)...)
	case 2: // an end with warnings, then more
		lines = append(lines, []byte(`{"end":{"time":"2026-11-30T01:02:03Z","complete":true,"warnings":["w1","w2"]}}`+"\n"), []byte(`{"append":{"command":["x"],"start":"2026-11-30T01:02:03Z","first_rep":0}}`+"\n"))
	case 3: // a header holding repetitions
		lines[0] = bytes.Replace(lines[0], []byte(`"reps":null`), []byte(`"reps":[{"index":0,"config":0,"status":"ok"}]`), 1)
	case 5: // a repetition after an end (an --append run, killed)
		lines = append(lines, []byte(`{"end":{"time":"2026-11-30T01:02:03Z","complete":true}}`+"\n"), []byte(`{"rep":{"index":99,"config":0,"status":"ok"}}`+"\n"))
	case 4: // not one record
		lines = append(lines, []byte(`{"rep":{"index":1,"config":0,"status":"ok"},"end":{"complete":true}}`+"\n"))
	}
	b = bytes.Join(lines, nil)
	files := [][]byte{b}
	const spoil = "{}[]\":,.-+eE0 1\tn\n"
	for range 6 {
		c := bytes.Clone(b)
		switch rng.IntN(4) {
		case 0:
			c = c[:rng.IntN(len(c)+1)]
		case 1:
			c[rng.IntN(len(c))] = spoil[rng.IntN(len(spoil))]
		case 2:
			c[rng.IntN(len(c))] = 0xff
		case 3:
			k := bytes.LastIndexByte(c[:len(c)-1], '\n') + 1
			c = append(c[:k], `{"rep":{"index":9,"sta`...)
		}
		files = append(files, c)
	}
	return files
}

// TestParseSameAsBefore checks parse, which decodes byte ranges of
// lines in place, against parseBefore on random files and on the same
// files cut, changed and spoilt (testFiles): the same File, the same count
// of whole bytes, the same error.
func TestParseSameAsBefore(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for trial := range testsize.Pick(50, 400) {
		for k, b := range testFiles(t, rng, trial) {
			got, ggood, gerr := parse(b)
			want, wgood, werr := parseBefore(b)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) || ggood != wgood || !reflect.DeepEqual(got, want) {
				t.Fatalf("trial %d file %d: parse %v, %d bytes, %v\nbefore %v, %d bytes, %v\nfile %q", trial, k, gerr, ggood, got, werr, wgood, want, b)
			}
		}
	}
}
