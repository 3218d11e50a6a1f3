package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestUserStringsPrintedEscaped: a label, a program's output and a file
// name with terminal escape sequences were printed raw by run, exec and
// show (ESC [2J clears the screen; ESC ]0; sets the window title). They
// are printed with their control characters escaped; the label's newline
// as \n on its one line.
func TestUserStringsPrintedEscaped(t *testing.T) {
	dir := chdirTemp(t)
	label := "x\x1b[2Jy\nz\x1b]0;owned\x07"
	out := filepath.Join(dir, "l\x1b[31m.json")
	r := runCLI(t, "run", "faultme", "--threads", "1", "--mem", "64KiB", "-n", "1", "--evidence", "none", "--label", label, "--out", out)
	if r.code != 0 {
		t.Fatalf("run: exit %d: %q", r.code, r.stderr)
	}
	want := `label: x\x1b[2Jy\nz\x1b]0;owned\x07`
	for name, s := range map[string]string{"run stdout": r.stdout, "run stderr": r.stderr} {
		if strings.ContainsAny(s, "\x1b\x07\r") {
			t.Errorf("%s holds a raw control character: %q", name, s)
		}
	}
	if !strings.Contains(r.stdout, want) {
		t.Errorf("run does not print the label escaped (%q):\n%s", want, r.stdout)
	}
	r = runCLI(t, "show", out)
	if r.code != 0 || strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07\r") || !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, `l\x1b[31m.json`) {
		t.Errorf("show: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "exec", "-n", "1", "--evidence", "none", "--out", "e.json", "--", "sh", "-c", `printf '\033[2J\033]0;owned\007\r\n' >&2; exit 3`)
	if strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07\r") {
		t.Errorf("exec printed the program's output raw: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout+r.stderr, `\x1b[2J`) {
		t.Errorf("exec does not show the program's output escaped: stdout %q, stderr %q", r.stdout, r.stderr)
	}
}
