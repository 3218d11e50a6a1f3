// Package testutil holds helpers shared by the tests of several packages.
package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BuildC compiles the C source src with the system compiler (cc -O2 -Wall
// plus flags) into a temporary directory and returns the output file: a
// program, or with -shared in flags a shared object. The test is skipped
// when there is no compiler.
func BuildC(t testing.TB, src string, flags ...string) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	dir := t.TempDir()
	c := filepath.Join(dir, "p.c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "p")
	if strings.Contains(" "+strings.Join(flags, " ")+" ", " -shared ") {
		out += ".so"
	}
	args := append([]string{"-O2", "-Wall", "-o", out, c}, flags...)
	if msg, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("cc %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	return out
}
