package tracejournal

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFindRootNotPermitted: a tracefs that refuses this user (as it
// refuses users other than root) is said to be root's, with what to do,
// not "not mounted ... mount it" (what FindRoot said before); a root that
// is not there at all is still "not mounted".
func TestFindRootNotPermitted(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("CONTEND_TRACEFS", dir)
	statRoot = func(p string) (fs.FileInfo, error) {
		return nil, &fs.PathError{Op: "stat", Path: p, Err: syscall.EACCES}
	}
	defer func() { statRoot = os.Stat }()
	_, err := FindRoot()
	if err == nil || strings.Contains(err.Error(), "not mounted") || !strings.Contains(err.Error(), "tracefs at "+dir) ||
		!strings.Contains(err.Error(), "may not be read by") || !strings.Contains(err.Error(), "run contend as root") {
		t.Errorf("refused: %v", err)
	}
	statRoot = os.Stat
	t.Setenv("CONTEND_TRACEFS", filepath.Join(dir, "none"))
	if _, err := FindRoot(); err == nil || !strings.Contains(err.Error(), "tracefs is not mounted") {
		t.Errorf("absent: %v", err)
	}
	// A user other than root, for real, when the tests run as one.
	if os.Getuid() != 0 {
		t.Setenv("CONTEND_TRACEFS", "/sys/kernel/tracing")
		if st, err := os.Stat("/sys/kernel/tracing"); err == nil && st.Mode().Perm()&0o005 == 0 {
			if _, err := FindRoot(); err == nil || strings.Contains(err.Error(), "not mounted") {
				t.Errorf("as uid %d: %v", os.Getuid(), err)
			}
		}
	}
}
