package results

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that no input makes the result file reader panic, and
// that whatever it accepts can be written back and read again. Its seed
// corpus is testdata/fuzz/FuzzParse (committed): truncated, concatenated,
// wrong-version, huge-number and invalid-UTF-8 files.
func FuzzParse(f *testing.F) {
	good, _ := Marshal(sampleFile())
	f.Add(good)
	f.Add(good[:len(good)/3])
	f.Add(append(append([]byte{}, good...), good...))
	f.Add([]byte(`{"format":"contend-result","version":2}`))
	f.Add([]byte(`{"format":"contend-result","version":1,"workload":"x","configs":[{}],"metrics":[{"name":"t"}],"reps":[{"config":0,"status":"ok","metrics":{"t":1e308}}]}`))
	f.Add([]byte("{\"format\":\"contend-result\xff\"}"))
	if seeds, err := filepath.Glob("testdata/*.json"); err == nil {
		for _, s := range seeds {
			if b, err := os.ReadFile(s); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Parse(b)
		if err != nil {
			return
		}
		out, err := Marshal(file)
		if err != nil {
			t.Fatalf("accepted file cannot be written back: %v", err)
		}
		if _, err := Parse(out); err != nil {
			t.Fatalf("written-back file does not parse: %v", err)
		}
	})
}
