package tune

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunWrites: 'contend tune --dry-run' writes one line per setting and
// changes nothing; 'contend tune' writes the same settings and where the
// previous values are; a second tune on a tuned machine says nothing
// changed once the state is gone; --reset writes each value put back.
func TestRunWrites(t *testing.T) {
	files := bareMetal()
	root := fakeRoot(t, files)
	state := filepath.Join(t.TempDir(), "state.json")
	var dry bytes.Buffer
	if err := Run(&dry, root, state, Options{}, true); err != nil {
		t.Fatal(err)
	}
	n := len(Plan(root, Options{}))
	if got := strings.Count(dry.String(), "\n"); got != n || n == 0 {
		t.Errorf("dry run: %d lines, want %d:\n%s", got, n, dry.String())
	}
	for p, v := range values(t, root, files) {
		if v != before(files, p) {
			t.Errorf("dry run changed %s to %q", p, v)
		}
	}
	var out bytes.Buffer
	if err := Run(&out, root, state, Options{}, false); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.String(), "\n"); got != n+1 || !strings.Contains(out.String(), "previous values saved in "+state) {
		t.Errorf("tune: %d lines, want %d settings and where the values are saved:\n%s", got, n, out.String())
	}
	var reset bytes.Buffer
	if err := RunReset(&reset, root, state); err != nil || reset.Len() == 0 {
		t.Fatalf("reset: %v\n%s", err, reset.String())
	}
	for p, v := range values(t, root, files) {
		if v != before(files, p) {
			t.Errorf("after reset %s is %q", p, v)
		}
	}
	root = fakeRoot(t, map[string]string{"sys/devices/system/cpu/online": "0"})
	out.Reset()
	if err := Run(&out, root, filepath.Join(t.TempDir(), "state.json"), Options{}, false); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "nothing changed\n") {
		t.Errorf("a machine with nothing to tune:\n%s", out.String())
	}
}
