package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"contend/internal/robotmail"
	"contend/internal/workload"
)

// planLines returns the commands of the plan reproduce prints for mail.
func planLines(t *testing.T, mail string, extra ...string) []string {
	t.Helper()
	r := runCLI(t, append([]string{"reproduce", mail}, extra...)...)
	if r.code != 0 {
		t.Fatalf("reproduce %s: exit %d: %s", mail, r.code, r.stderr)
	}
	_, plan, ok := strings.Cut(r.stdout, "\nplan:\n")
	if !ok {
		t.Fatalf("no plan:\n%s", r.stdout)
	}
	var lines []string
	for _, l := range strings.Split(plan, "\n") {
		if strings.HasPrefix(l, "       contend ") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	if len(lines) == 0 {
		t.Fatalf("no commands in the plan:\n%s", r.stdout)
	}
	return lines
}

// words splits a plan's line as a shell would: blanks, and '...' quoting.
func words(t *testing.T, line string) []string {
	t.Helper()
	var out []string
	var cur strings.Builder
	in, any := false, false
	for _, c := range line {
		switch {
		case c == '\'':
			in, any = !in, true
		case c == ' ' && !in:
			if any {
				out = append(out, cur.String())
			}
			cur.Reset()
			any = false
		default:
			cur.WriteRune(c)
			any = true
		}
	}
	if in {
		t.Fatalf("unbalanced quote in %q", line)
	}
	if any {
		out = append(out, cur.String())
	}
	return out
}

// usageOf runs args in-process with a context already cancelled, as
// campaign init checks a campaign's command: a usage error is returned,
// a good command stops before its first repetition.
func usageOf(args []string) error {
	app := newApp(io.Discard, io.Discard)
	app.Metadata = map[string]any{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := runArgs(ctx, app, append([]string{"contend"}, args...))
	var ue *usageError
	var we *workload.UsageError
	var ec cli.ExitCoder
	if errors.As(err, &ue) || errors.As(err, &we) || errors.As(err, &ec) && ec.ExitCode() == exitUsage {
		return err
	}
	return nil
}

// TestReproducePlanCommandsValid runs every command reproduce suggests,
// for real mails of five testcases and for contend's own --format lkml
// output, its placeholders (N, B, /boot/vmlinuz-A, YOUR-COMMAND) filled
// in: campaign init makes its campaign (in a temporary directory), the
// others pass the parse and validation of their flags. The plans of
// tests other than will-it-scale once suggested '-- run contend exec --
// ...', which campaign init refuses.
func TestReproducePlanCommandsValid(t *testing.T) {
	tests, err := filepath.Abs("../../../shared/will-it-scale/tests")
	if _, serr := os.Stat(filepath.Join(tests, "futex4.c")); err != nil || serr != nil {
		t.Skip("no will-it-scale snapshot")
	}
	root := t.TempDir()
	allowVolatileTemp(t, root)
	ka, kb := fakeKernel(t, root, "6.1.0-a"), fakeKernel(t, root, "6.1.0-b")
	lkmlOut := filepath.Join(root, "contend-lkml.txt")
	r := runCLI(t, "compare", "--format", "lkml", seeds+"rostedt-without.json", seeds+"rostedt-with.json")
	if r.code != 0 || os.WriteFile(lkmlOut, []byte(r.stdout), 0o644) != nil {
		t.Fatalf("compare --format lkml: exit %d %s", r.code, r.stderr)
	}
	mutexOut := filepath.Join(root, "contend-lkml-mutex.txt")
	r = runCLI(t, "compare", "--format", "lkml", seeds+"mitake-ab.json:a", seeds+"mitake-ab.json:b")
	if r.code != 0 || os.WriteFile(mutexOut, []byte(r.stdout), 0o644) != nil {
		t.Fatalf("compare --format lkml: exit %d %s", r.code, r.stderr)
	}
	real := "../../internal/robotmail/testdata/real/"
	mails := []string{robotMails + "linus-futex4.mail", real + "will-it-scale-tlb_flush3-375700bab5.mail", real + "stress-ng-seek-3d04e89a11.mail",
		real + "vm-scalability-d2136d749d.mail", real + "netperf-sctp-5cde54f822.mail", real + "hackbench-85e511df3c.mail",
		"../../internal/lkml/testdata/golden.txt", lkmlOut, mutexOut}
	for i, mail := range mails {
		for k, line := range planLines(t, mail, "--tests", tests) {
			args := words(t, line)[1:]
			for j, a := range args {
				switch a {
				case "N":
					args[j] = "6"
				case "B":
					args[j] = "2"
				case "/boot/vmlinuz-A":
					args[j] = ka
				case "/boot/vmlinuz-B":
					args[j] = kb
				case "YOUR-COMMAND":
					args[j] = "true"
				}
			}
			switch {
			case len(args) > 2 && args[0] == "campaign" && args[1] == "init":
				args[2] = filepath.Join(root, strings.Repeat("x", i)+args[2])
				if r := runCLI(t, args...); r.code != 0 {
					t.Errorf("%s: %q: exit %d: %s", mail, line, r.code, r.stderr)
				}
			case len(args) > 2 && args[0] == "campaign" && args[1] == "report":
				args[2] = filepath.Join(root, strings.Repeat("x", i)+args[2])
				// The campaign has no boot yet: the report gets as far
				// as saying so.
				if r := runCLI(t, args...); r.code != 0 && !strings.Contains(r.stderr, "no finished boot of side A yet") {
					t.Errorf("%s: %q: exit %d: %s", mail, line, r.code, r.stderr)
				}
			case args[0] == "ab":
				if err := usageOf(append(args[:2:2], append([]string{"--out", filepath.Join(root, fmt.Sprintf("ab-%d-%d.json", i, k))}, args[2:]...)...)); err != nil {
					t.Errorf("%s: %q: %v", mail, line, err)
				}
			default:
				t.Errorf("%s: an unexpected command %q", mail, line)
			}
		}
	}
}

// TestReproduceReadsContendLKML feeds contend's own --format lkml output
// to reproduce: it is read as a block without its mail, every row as the
// block prints it, and planned as the workload it came from (its
// parameters as run's flags).
func TestReproduceReadsContendLKML(t *testing.T) {
	r := runCLI(t, "compare", "--format", "lkml", "--all", seeds+"mitake-ab.json:a", seeds+"mitake-ab.json:b")
	if r.code != 0 {
		t.Fatalf("compare: exit %d: %s", r.code, r.stderr)
	}
	rep, err := robotmail.Parse([]byte(r.stdout))
	if err != nil {
		t.Fatalf("contend's block refused: %v\n%s", err, r.stdout)
	}
	b := rep.Blocks[0]
	printed := 0
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "  ") && strings.Contains(l, "%") && strings.Count(l, "  ") > 2 && !strings.HasPrefix(l, "  HL") && !strings.HasPrefix(l, "  (") {
			if f := strings.Fields(l); len(f) > 3 && f[len(f)-1] != "" {
				if row, ok := b.Row(f[len(f)-1]); ok && row.Line == l {
					printed++
				}
			}
		}
	}
	if len(rep.Skipped) != 0 || len(b.Rows) == 0 || printed != len(b.Rows) || rep.Testcase != b.Axis("testcase") || rep.Commit != b.Sides[1].ID {
		t.Errorf("skipped %v, %d rows (%d matched to the printed lines), testcase %q, commit %q\n%s", rep.Skipped, len(b.Rows), printed, rep.Testcase, rep.Commit, r.stdout)
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "block.txt")
	os.WriteFile(f, []byte(r.stdout), 0o644)
	r = runCLI(t, "reproduce", f)
	if r.code != 0 || !strings.Contains(r.stdout, "report: a block without its mail") ||
		!strings.Contains(r.stdout, "here: contend run mutex --locks 300000 --stack 32KiB --threads 1000; its metric ") ||
		!strings.Contains(r.stdout, " -- run mutex --locks 300000 --stack 32KiB --threads 1000 -n N\n") {
		t.Errorf("reproduce of contend's block: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
