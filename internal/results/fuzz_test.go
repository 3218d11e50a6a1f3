package results

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that no input makes the result file reader panic, and
// that whatever it accepts can be written back, as version 1 and as
// version 2, and read again the same. Its seed corpus is
// testdata/fuzz/FuzzParse (committed): truncated, concatenated,
// wrong-version, huge-number and invalid-UTF-8 files of version 1, and
// below whole, torn and appended-to files of version 2. Every line the
// fast repetition decoder takes must decode as with encoding/json, and
// the fast encoder must write every repetition read as encoding/json does.
func FuzzParse(f *testing.F) {
	good, _ := Marshal(sampleFile())
	f.Add(good)
	f.Add(good[:len(good)/3])
	f.Add(append(append([]byte{}, good...), good...))
	f.Add([]byte(`{"format":"contend-result","version":2}`))
	f.Add([]byte(`{"format":"contend-result","version":1,"workload":"x","configs":[{}],"metrics":[{"name":"t"}],"reps":[{"config":0,"status":"ok","metrics":{"t":1e308}}]}`))
	f.Add([]byte("{\"format\":\"contend-result\xff\"}"))
	full := sampleFile()
	full.Reps = []Rep{rep(0), rep(1)}
	full.Appends = []Segment{{Command: []string{"contend", "run"}, FirstRep: 1}}
	full.Complete = true
	v2, _ := MarshalLines(full)
	f.Add(v2)
	f.Add(v2[:len(v2)-20])
	f.Add(append(append([]byte{}, v2...), `{"rep":{"index":2,"status":"ok","start":"2026-01-01T00:00:00Z"}}`+"\n"...))
	odd := rep(2)
	odd.Output, odd.Notes, odd.Error = "<a>\n\t\"é\u2028\x01", []string{"x", ""}, "\\"
	odd.LoadAvg, odd.BootID, odd.Warmup = 1.5, "b", true
	full.Reps = append(full.Reps, odd)
	v2, _ = MarshalLines(full)
	f.Add(v2)
	if seeds, err := filepath.Glob("testdata/*.json"); err == nil {
		for _, s := range seeds {
			if b, err := os.ReadFile(s); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if utf8.Valid(b) {
			// Parse reads only valid UTF-8; there, the fast repetition
			// decoder reads every line as encoding/json does, or not.
			var s repScanner
			for _, line := range bytes.SplitAfter(b, []byte("\n")) {
				checkFastRep(t, &s, line)
			}
		}
		file, err := Parse(b)
		if err != nil {
			return
		}
		var e repEncoder
		for i := range file.Reps {
			want, werr := json.Marshal(record{Rep: &file.Reps[i]})
			got, gerr := e.appendRep(nil, &file.Reps[i])
			if (werr == nil) != (gerr == nil) || (werr == nil && !bytes.Equal(got, want)) {
				t.Fatalf("repetition %d: fast encoder %s (%v), encoding/json %s (%v)", i, got, gerr, want, werr)
			}
		}
		out, err := Marshal(file)
		if err != nil {
			t.Fatalf("accepted file cannot be written back: %v", err)
		}
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("written-back file does not parse: %v", err)
		}
		lines, err := MarshalLines(file)
		if err != nil {
			t.Fatalf("accepted file cannot be written back as version 2: %v", err)
		}
		again2, err := Parse(lines)
		if err != nil {
			t.Fatalf("written-back version-2 file does not parse: %v\n%s", err, lines)
		}
		if len(again.Reps) != len(file.Reps) || len(again2.Reps) != len(file.Reps) {
			t.Fatalf("repetitions %d, written back %d and %d", len(file.Reps), len(again.Reps), len(again2.Reps))
		}
	})
}
