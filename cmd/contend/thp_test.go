package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/results"
)

// TestFaultmeTHPNeverWithoutTHP: on a kernel built without THP (faked: its
// madvise says EINVAL, and sysfs has /sys/kernel/mm but no
// transparent_hugepage) '--thp never' holds: every repetition succeeds and
// says "thp: not built", and the fingerprint says thp.enabled "not built".
// Where sysfs shows THP, the same EINVAL is a failure.
func TestFaultmeTHPNeverWithoutTHP(t *testing.T) {
	dir := chdirTemp(t)
	root := filepath.Join(dir, "root")
	if err := os.MkdirAll(filepath.Join(root, "sys/kernel/mm"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CONTEND_TEST_INJECT", "madvise-einval")
	t.Setenv("CONTEND_SYSROOT", root)
	r := runCLI(t, "run", "faultme", "--thp", "never", "--threads", "2", "--mem", "1MiB", "-n", "3", "-q", "--out", "nothp.json")
	if r.code != 0 {
		t.Fatalf("--thp never without THP: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	f, err := results.Read("nothp.json")
	if err != nil {
		t.Fatal(err)
	}
	if n := f.Counts(-1)[results.StatusOK]; n != 3 {
		t.Errorf("%d of 3 repetitions succeeded", n)
	}
	for _, rep := range f.Reps {
		if !strings.Contains(strings.Join(rep.Notes, "\n"), "thp: not built") {
			t.Errorf("repetition %d notes %q lack 'thp: not built'", rep.Index, rep.Notes)
		}
	}
	if got := f.Env["thp.enabled"]; got != "not built" {
		t.Errorf("env thp.enabled = %q, want \"not built\"", got)
	}
	// THP in sysfs: EINVAL is a real failure.
	if err := os.MkdirAll(filepath.Join(root, "sys/kernel/mm/transparent_hugepage"), 0o755); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "run", "faultme", "--thp", "never", "--threads", "2", "--mem", "1MiB", "-n", "2", "-q", "--out", "thp.json")
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "EINVAL") {
		t.Errorf("EINVAL with THP in sysfs: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
