package bisect

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"contend/internal/results"
)

// TestResultNames: a search's result files are NNN-HASH.jsonl; those of a
// search begun by a contend that named them .json are read (MetricOf)
// and their numbers not taken again (resultExists); other files are not
// result files.
func TestResultNames(t *testing.T) {
	dir := t.TempDir()
	f := &results.File{Format: results.FormatName, Version: results.FormatVersion, Workload: "w", Kind: "run", Primary: "time",
		Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}}, Configs: []results.Config{{}}, Start: time.Now()}
	w, err := results.Create(filepath.Join(dir, "001-abcdef.json"), f)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(time.Now(), true); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if m := MetricOf(dir, ""); m != (MetricInfo{Name: "time", Unit: "ns"}) {
		t.Errorf("MetricOf an old .json: %+v", m)
	}
	if !resultExists(filepath.Join(dir, "001-abcdef")) || resultExists(filepath.Join(dir, "002-abcdef")) {
		t.Errorf("resultExists: the old file's number is free, or a new one taken")
	}
	os.WriteFile(filepath.Join(dir, "002-abcdef.jsonl"), nil, 0o644)
	if !resultExists(filepath.Join(dir, "002-abcdef")) {
		t.Errorf("resultExists: a .jsonl not seen")
	}
	for name, want := range map[string]bool{"001-abcdef.jsonl": true, "001-abcdef.json": true, ".tmp.jsonl": false, "build.log": false} {
		if isResultName(name) != want {
			t.Errorf("isResultName(%q) = %v", name, !want)
		}
	}
}
