package main

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// TestWarnProgramFlags: 'contend exec ./prog --no-lock' (no --) passed
// --no-lock to ./prog without a word; now contend warns, naming the flag
// and the two ways to say what was meant. With -- nothing is said.
func TestWarnProgramFlags(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	for _, c := range []struct {
		args []string
		want string // "" for no warning
	}{
		{[]string{"contend", "exec", "./prog", "--no-lock"}, "warning: --no-lock after the program ./prog is passed to ./prog, not read by contend"},
		{[]string{"contend", "exec", "-n", "3", "--out", "x.jsonl", "./prog", "-n", "4", "--replace"}, "warning: -n --replace after the program ./prog are passed to ./prog"},
		{[]string{"contend", "ab", "exec", "-n", "2", "./prog", "--no-wait"}, "--no-wait after the program ./prog is passed to ./prog"},
		{[]string{"contend", "exec", "-n", "3", "--", "./prog", "--no-lock"}, ""},
		{[]string{"contend", "exec", "./prog", "--its-own-flag", "-x"}, ""},
		{[]string{"contend", "run", "faultme", "--no-lock"}, ""},
		{[]string{"contend", "ab", "exec", "--threads", "2", "--aa", "--", "/bin/true"}, ""}, // an unknown flag: no program known
	} {
		var b bytes.Buffer
		warnProgramFlags(app, c.args, &b)
		got := b.String()
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%q: %q, want %q", c.args, got, c.want)
		}
		if c.want != "" && (!strings.Contains(got, "put ") || !strings.Contains(got, "write -- before the program")) {
			t.Errorf("%q: %q does not say what to do", c.args, got)
		}
	}
}

// TestExecWarnsOfItsFlagsAfterTheProgram: the warning of
// TestWarnProgramFlags reaches the user of 'contend exec PROG --FLAG' (the
// call in Main), and the run goes on with the flag passed to PROG.
func TestExecWarnsOfItsFlagsAfterTheProgram(t *testing.T) {
	dir := chdirTemp(t)
	r := runCLI(t, "exec", "-n", "1", "-q", "--out", filepath.Join(dir, "x.jsonl"), "/bin/true", "--no-wait")
	want := "warning: --no-wait after the program /bin/true is passed to /bin/true, not read by contend"
	if r.code != 0 || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d; stderr lacks %q:\n%s", r.code, want, r.stderr)
	}
}
