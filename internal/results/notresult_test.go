package results

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotResultFileNeverReplaced: an existing file that is not a result
// file is refused in every mode, with a message that says so and offers no
// --append or --replace, and is left byte-identical.
func TestNotResultFileNeverReplaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.txt")
	notes := []byte("notes of a long night\n")
	os.WriteFile(path, notes, 0o644)
	for _, m := range []Mode{ModeNew, ModeReplace, ModeAppend} {
		_, err := Open(path, sampleFile(), m)
		if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "is not a contend result file") ||
			strings.Contains(err.Error(), "--replace") || strings.Contains(err.Error(), "--append") {
			t.Errorf("mode %d: %v", m, err)
		}
		if b, _ := os.ReadFile(path); string(b) != string(notes) {
			t.Fatalf("mode %d changed the file: %q", m, b)
		}
	}
}

// TestSameRunArticle: the kinds of two runs read with their articles.
func TestSameRunArticle(t *testing.T) {
	f, g := sampleFile(), sampleFile()
	f.Kind, g.Kind = "ab", "run"
	if err := f.SameRun(g); err == nil || err.Error() != "it holds an ab, not a run" {
		t.Errorf("got %v", err)
	}
}
