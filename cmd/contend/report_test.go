package main

import (
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportForLKML: the draft on standard output or in a new --out file,
// and the command's refusals, each one line: a comparison that supports
// no report exits 1, an input or a flag refused exits 2.
func TestReportForLKML(t *testing.T) {
	dir := t.TempDir()
	good := writeHostFile(t, dir, "h1", "good.json", "6.1.0", 1)
	bad := writeHostFile(t, dir, "h1", "bad.json", "6.2.0", 1.2)
	same := writeHostFile(t, dir, "h1", "same.json", "6.2.0", 1.001)
	r := runCLI(t, "report", "--for-lkml", good, bad)
	if r.code != 0 {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	m, err := mail.ReadMessage(strings.NewReader(r.stdout))
	if err != nil || !strings.HasPrefix(m.Header.Get("Subject"), "[REGRESSION] faultme time +") {
		t.Fatalf("not a draft (%v):\n%s", err, r.stdout)
	}
	if !strings.Contains(r.stdout, "\n\n#regzbot introduced: v6.1..v6.2\n#regzbot title: faultme time +") {
		t.Errorf("regzbot lines:\n%s", r.stdout)
	}
	out := filepath.Join(dir, "regression.mail")
	if r := runCLI(t, "report", "--for-lkml", good, bad, "--out", out, "--introduced", "1f2e3d4c5b6a"); r.code != 0 || r.stdout != "" {
		t.Fatalf("--out: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), "\n#regzbot introduced: 1f2e3d4c5b6a\n") {
		t.Errorf("--out %s (%v):\n%s", out, err, b)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{good, same}, 1, "contend: report --for-lkml: no regression to report: faultme time changed by "},
		{[]string{bad, good}, 1, "contend: report --for-lkml: faultme time improved ("},
		{[]string{good, bad, "--aa", good, bad}, 1, "contend: report --for-lkml: the A/A control " + good + " " + bad + " differs: "},
		{[]string{good}, 2, "contend: report --for-lkml: \"" + good + "\" is not a directory; give a campaign directory, a bisect directory, or two result files"},
		{[]string{good, bad, same}, 2, "contend: report --for-lkml: give a campaign directory, a bisect directory, or two result files (the last good kernel's, then the first bad one's); got 3 arguments"},
		{[]string{bad, same}, 2, "contend: report --for-lkml: both sides ran the same kernel (6.2.0)"},
		{[]string{good, bad, "--introduced", "HEAD~1..HEAD"}, 2, `contend: --introduced: "HEAD~1..HEAD" is not accepted; accepted: a commit id`},
		{[]string{good, bad, "--out", out}, 2, "contend: --out: " + out + " exists; choose a new file"},
		{[]string{good, bad, "--metric", "time,real"}, 2, `contend: --metric: "time,real" is not accepted`},
	} {
		r := runCLI(t, append([]string{"report", "--for-lkml"}, c.args...)...)
		if r.code != c.code || !strings.HasPrefix(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
			t.Errorf("%q: exit %d, stderr %q; want exit %d, one line starting %q", c.args, r.code, r.stderr, c.code, c.want)
		}
	}
	if r := runCLI(t, "report", good, bad); r.code != 2 || !strings.Contains(r.stderr, "give --for-lkml") {
		t.Errorf("without --for-lkml: exit %d, %q", r.code, r.stderr)
	}
}
