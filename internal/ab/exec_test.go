package ab

import (
	"slices"
	"strings"
	"testing"
)

// TestExecSides: the sides of ab exec from --a/--b (words, or a script
// with --shell; --aa runs --a on both) or from one program after --, and
// every refusal, with its message.
func TestExecSides(t *testing.T) {
	s, err := ExecSides(ExecOptions{A: "/bin/echo 'a b'", B: "/bin/true", ASet: true, BSet: true})
	if err != nil || !slices.Equal(s[0].Argv, []string{"/bin/echo", "a b"}) || !slices.Equal(s[1].Args, []string{"/bin/true"}) {
		t.Errorf("--a/--b: %v %+v", err, s)
	}
	s, err = ExecSides(ExecOptions{A: "echo x | wc", ASet: true, Shell: true, AA: true})
	want := []string{"/bin/sh", "-c", "echo x | wc"}
	if err != nil || !slices.Equal(s[0].Argv, want) || !slices.Equal(s[1].Argv, want) || !slices.Equal(s[1].Args, []string{"echo x | wc"}) {
		t.Errorf("--aa --shell: %v %+v", err, s)
	}
	s, err = ExecSides(ExecOptions{Args: []string{"/bin/echo", "1"}})
	if err != nil || !slices.Equal(s[0].Argv, s[1].Argv) || !slices.Equal(s[0].Argv, []string{"/bin/echo", "1"}) {
		t.Errorf("one program: %v %+v", err, s)
	}
	s, err = ExecSides(ExecOptions{Args: []string{"cd /tmp &&", "true"}, Shell: true})
	if err != nil || !slices.Equal(s[0].Argv, []string{"/bin/sh", "-c", "cd /tmp && true"}) {
		t.Errorf("one script: %v %+v", err, s)
	}
	for _, c := range []struct {
		o    ExecOptions
		want string
	}{
		{ExecOptions{A: "/bin/true", ASet: true, Args: []string{"/bin/true"}}, "ab exec: give the sides' commands with --a and --b, or one program after -- for both sides, not both"},
		{ExecOptions{}, "ab exec: which programs? usage: contend ab exec [flags] --a 'COMMAND A' --b 'COMMAND B', or [flags] -- PROGRAM [ARGS]"},
		{ExecOptions{B: "/bin/true", BSet: true}, "ab exec: --a is missing: give both --a and --b, or one program after -- for both sides"},
		{ExecOptions{A: "/bin/true", ASet: true}, "ab exec: --b is missing: give both --a and --b (or --aa to run --a on both sides)"},
		{ExecOptions{A: " ", B: "/bin/true", ASet: true, BSet: true}, "--a: empty; give a command such as './prog-old'"},
		{ExecOptions{A: "/bin/true", B: "''", ASet: true, BSet: true}, "--b: empty; give a command such as './prog-old'"},
		{ExecOptions{A: "/bin/true", B: "'x", ASet: true, BSet: true}, "--b: "},
		{ExecOptions{A: "/bin/true", B: "/etc/passwd", ASet: true, BSet: true}, "--b: /etc/passwd is not an executable file"},
		{ExecOptions{Args: []string{"./nosuch"}}, "ab exec: ./nosuch: no such file"},
	} {
		_, err := ExecSides(c.o)
		if msg := usageMsg(t, err); !strings.HasPrefix(msg, c.want) {
			t.Errorf("%+v: %q, want %q", c.o, msg, c.want)
		}
	}
}

// TestExecName: one program names the file after itself, two after both.
func TestExecName(t *testing.T) {
	side := func(p string) ExecSide { return ExecSide{Args: []string{p}} }
	for _, c := range []struct {
		a, b  string
		shell bool
		want  string
	}{
		{"./old/faultme", "./new/faultme", false, "exec:faultme"},
		{"./faultme-old", "./faultme-new", false, "exec:faultme-old-vs-faultme-new"},
		{"echo 1", "echo 2", true, "exec:sh"},
	} {
		if got := ExecName([2]ExecSide{side(c.a), side(c.b)}, c.shell); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.a, c.b, got, c.want)
		}
	}
}
