package run

import (
	"context"
	"errors"
	"strings"
	"testing"

	"contend/internal/harness"
	"contend/internal/report"
	"contend/internal/results"
)

// TestEndAndSummary: Summary in each format, through Do with a fake
// runner: text on stdout, original on stderr (nothing when quiet), json
// the file; End names the file, and a run with no successful repetition
// ends in ErrNoSuccess.
func TestEndAndSummary(t *testing.T) {
	for _, c := range []struct {
		format        string
		quiet         bool
		stdout, other string // in stdout, in stderr
	}{
		{"text", false, "real", "results: "},
		{"original", false, "", "real"},
		{"original", true, "", ""},
		{"json", false, `"kind": "ab"`, "results: "},
	} {
		var stdout, stderr strings.Builder
		job := newJob(t, &fakeRunner{})
		job.Report = Summary(&stdout, &stderr, c.format, report.Brief, c.quiet)
		if _, err := Do(context.Background(), job, &fakeUI{}); err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		if c.stdout == "" && stdout.Len() > 0 || !strings.Contains(stdout.String(), c.stdout) {
			t.Errorf("%s quiet=%v: stdout %q, want %q", c.format, c.quiet, stdout.String(), c.stdout)
		}
		if c.other == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), c.other) {
			t.Errorf("%s quiet=%v: stderr %q, want %q", c.format, c.quiet, stderr.String(), c.other)
		}
	}
	job := newJob(t, &fakeRunner{})
	job.Runner = func(context.Context, Slot) harness.Outcome {
		return harness.Outcome{Rep: results.Rep{Status: results.StatusFailed}}
	}
	var stderr strings.Builder
	job.Report = func(o Outcome) error { return End(&stderr, o, false) }
	if _, err := Do(context.Background(), job, &fakeUI{}); !errors.Is(err, ErrNoSuccess) {
		t.Errorf("no repetition succeeded: %v, want ErrNoSuccess", err)
	}
	if !strings.HasPrefix(stderr.String(), "results: ") {
		t.Errorf("stderr %q", stderr.String())
	}
}

func TestRepList(t *testing.T) {
	if s := RepList([]int{26}); s != "repetition 27" {
		t.Errorf("%q", s)
	}
	if s := RepList([]int{26, 27, 28, 29}); s != "repetitions 27-30" {
		t.Errorf("%q", s)
	}
}
