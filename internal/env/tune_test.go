package env

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCaptureRecordsTuneState: the settings tune changes are in every
// fingerprint (read under CONTEND_SYSROOT), so Diff shows a tuned run
// against an untuned one.
func TestCaptureRecordsTuneState(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "proc/sys/kernel/randomize_va_space")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("2\n"), 0o644)
	t.Setenv("CONTEND_SYSROOT", root)
	a := Capture(nil)
	os.WriteFile(p, []byte("0\n"), 0o644)
	b := Capture(nil)
	if a["tune.aslr"] != "2" || b["tune.aslr"] != "0" || a["tune.state"] != "not tuned by contend" {
		t.Fatalf("tune keys: %q %q %q", a["tune.aslr"], b["tune.aslr"], a["tune.state"])
	}
	if d := Diff(a, b); !slices.Contains(d, "tune.aslr") {
		t.Errorf("Diff %v lacks tune.aslr", d)
	}
}
