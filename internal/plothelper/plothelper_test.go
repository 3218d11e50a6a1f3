package plothelper

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/workload"
)

// TestCheckOut checks the refusals of a plot's --out, each a usage error
// naming what is accepted, and an image in an existing directory taken.
func TestCheckOut(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "d.svg"), 0o755); err != nil {
		t.Fatal(err)
	}
	for out, want := range map[string]string{
		" ":                               "--out is required",
		filepath.Join(dir, "x.pdf"):       `unknown image format ".pdf"; accepted: .svg, .png`,
		filepath.Join(dir, "d.svg"):       "is a directory",
		filepath.Join(dir, "no", "x.svg"): "no directory",
		filepath.Join(dir, "x.PNG"):       "",
	} {
		err := CheckOut(out)
		var ue *workload.UsageError
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", out, err)
		case want != "" && (!errors.As(err, &ue) || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: %v, want a usage error with %q", out, err, want)
		}
	}
}

// TestCheckFilesRefusesUnreadable checks that a file that is not a result
// file is a usage error.
func TestCheckFilesRefusesUnreadable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.json")
	if err := os.WriteFile(p, []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ue *workload.UsageError
	if err := CheckFiles([]string{p}, ""); !errors.As(err, &ue) {
		t.Errorf("got %v, want a usage error", err)
	}
}

// TestPathFromEnv checks that $CONTEND_PLOT_HELPER names the helper.
func TestPathFromEnv(t *testing.T) {
	t.Setenv("CONTEND_PLOT_HELPER", "/some/helper")
	if p, err := Path(); err != nil || p != "/some/helper" {
		t.Errorf("Path() = %q, %v", p, err)
	}
}
