package bind

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestPluginDlopenErrno: a failed dlopen reports dlerror()'s text with an
// errno that fits: ENOENT for a missing file, ENOEXEC for a file that is
// there but cannot be loaded (not a library, an undefined symbol).
func TestPluginDlopenErrno(t *testing.T) {
	notLib := filepath.Join(t.TempDir(), "text.so")
	os.WriteFile(notLib, []byte("not a library\n"), 0o644)
	undefined := buildPlugin(t, `#include "contend_plugin.h"
CONTEND_PLUGIN(CONTEND_FIXED, "calls a function nothing defines");
extern void contend_no_such_function(void);
void contend_worker(void *s, unsigned id, struct contend_thread *t) { contend_no_such_function(); }
`)
	cases := []struct {
		so    string
		errno syscall.Errno
		text  string
	}{
		{"/nonexistent/p.so", syscall.ENOENT, "cannot open shared object file"},
		{notLib, syscall.ENOEXEC, "file too short"},
		{undefined, syscall.ENOEXEC, "undefined symbol: contend_no_such_function"},
	}
	for _, c := range cases {
		_, err := Plugin(PluginParams{SO: CStringOf(c.so), Threads: 1, ReportFD: -1})
		if !errors.Is(err, c.errno) || !strings.Contains(err.Error(), "dlopen") || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: %v, want dlopen, %s and %q", c.so, err, ErrnoName(c.errno), c.text)
		}
	}
}
