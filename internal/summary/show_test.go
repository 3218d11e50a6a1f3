package summary

import (
	"strings"
	"testing"
	"time"
)

// TestShow: show's text of a run file: its name, kind and start, the
// kernel, then each configuration's summary; an unfinished file says so.
func TestShow(t *testing.T) {
	f := file("faultme", evidenceMetrics[:1], []string{"threads=4"}, map[string][][]float64{"time": {{10, 11, 12, 10, 11, 12}}})
	f.Kind, f.Complete, f.Start = "run", true, time.Date(2026, 12, 2, 3, 4, 5, 0, time.UTC)
	var b strings.Builder
	if err := Show(&b, "r.jsonl", f, Options{}); err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	want.WriteString("file: r.jsonl (run, 2026-12-02 03:04:05)\nkernel: 6.1.0\n\n")
	Summary(&want, f, 0)
	WriteOutliers(&want, f, 0)
	WriteFileWarnings(&want, f)
	if b.String() != want.String() {
		t.Errorf("show:\n%s\nwant:\n%s", b.String(), want.String())
	}
	f.Complete = false
	b.Reset()
	if err := Show(&b, "r.jsonl", f, Options{}); err != nil || !strings.Contains(b.String(), "\nnote: the run did not finish") {
		t.Errorf("an unfinished file: %v\n%s", err, b.String())
	}
}
