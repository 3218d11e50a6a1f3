package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const robotMails = "../../internal/robotmail/testdata/"

// TestReproducePlan prints the plan of a robot mail: the report, the
// mapping, what is not mapped, the commands.
func TestReproducePlan(t *testing.T) {
	r := runCLI(t, "reproduce", robotMails+"linus-futex4.mail", "--tests", "/src/will-it-scale/tests")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, w := range []string{"report: [linus:master] [futex] 7c4f75a21f: will-it-scale.per_thread_ops 98.3% regression",
		"will-it-scale futex4, thread mode", "not mapped:", "plan:", "contend campaign init repro-7c4f75a21f",
		"--test /src/will-it-scale/tests/futex4.c --mode thread"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("no %q in:\n%s", w, r.stdout)
		}
	}
}

// TestReproduceRefuses checks the refusals: one line, exit 2.
func TestReproduceRefuses(t *testing.T) {
	dir := t.TempDir()
	prose := filepath.Join(dir, "prose.mail")
	os.WriteFile(prose, []byte("Subject: lunch?\n\nAt noon.\n"), 0o644)
	link := filepath.Join(dir, "link.mail")
	os.Symlink(prose, link)
	os.Chmod(dir, 0o1777)
	defer os.Chmod(dir, 0o755)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"reproduce"}, "give one MAIL"},
		{[]string{"reproduce", filepath.Join(dir, "none.mail")}, "no such file"},
		{[]string{"reproduce", dir}, "is a directory"},
		{[]string{"reproduce", prose}, "not a kernel test robot report: no 'testcase:' line"},
		{[]string{"reproduce", link}, "symbolic link"},
		{[]string{"reproduce", robotMails + "linus-futex4.mail", "--run"}, "--run: which will-it-scale? give --tests DIR"},
		{[]string{"reproduce", robotMails + "linus-futex4.mail", "--run", "--tests", dir}, "no futex4.c there"},
		{[]string{"reproduce", robotMails + "linus-futex4.mail", "--runs", "2"}, "--runs"},
		{[]string{"reproduce", robotMails + "linus-futex4.mail", "--noise", prose}, "--noise"},
	}
	for _, c := range cases {
		r := runCLI(t, c.args...)
		msg := strings.TrimSpace(r.stderr)
		if r.code != 2 || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line with %q", c.args, r.code, msg, c.want)
		}
	}
}
