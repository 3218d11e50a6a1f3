package sweep

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"contend/internal/report"
)

// TestWriteFormat checks each --format of a sweep: json is one document,
// csv the per-point table WriteCSV writes, text the report.
func TestWriteFormat(t *testing.T) {
	f := synthetic("s", []int{1, 2, 4, 8}, 100, 0.05, 0.001, 5, 1)
	a, err := Analyze(f)
	if err != nil {
		t.Fatal(err)
	}
	var csv, want bytes.Buffer
	if err := WriteFormat(&csv, f, "csv", report.Full, false); err != nil {
		t.Fatal(err)
	}
	WriteCSV(&want, a)
	if csv.String() != want.String() {
		t.Errorf("csv:\n%s\nwant:\n%s", csv.String(), want.String())
	}
	var js bytes.Buffer
	if err := WriteFormat(&js, f, "json", report.Full, false); err != nil || !json.Valid(js.Bytes()) {
		t.Errorf("json: %v, valid %v", err, json.Valid(js.Bytes()))
	}
	var text bytes.Buffer
	if err := WriteFormat(&text, f, "text", report.Brief, true); err != nil || !strings.Contains(text.String(), "threads") {
		t.Errorf("text: %v\n%s", err, text.String())
	}
}
