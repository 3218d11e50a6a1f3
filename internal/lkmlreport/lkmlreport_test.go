package lkmlreport

import (
	"bytes"
	"errors"
	"io"
	"net/mail"
	"strings"
	"testing"
	"time"

	"contend/internal/bisect"
	"contend/internal/comparison"
)

var date = time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)

// draft opens args, builds the draft with opt and returns it written,
// failing the test on any error.
func draft(t *testing.T, args []string, opt Options) (string, *Source) {
	t.Helper()
	s, err := Open(args, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if opt.Date.IsZero() {
		opt.Date = date
	}
	opt.Writer = "v1.0-test"
	d, err := Build(s, opt)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := d.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String(), s
}

// parse reads a draft as a mail reader does.
func parse(t *testing.T, text string) (*mail.Message, string) {
	t.Helper()
	m, err := mail.ReadMessage(strings.NewReader(text))
	if err != nil {
		t.Fatalf("not an RFC 822 message: %v\n%s", err, text)
	}
	body, err := io.ReadAll(m.Body)
	if err != nil {
		t.Fatal(err)
	}
	return m, string(body)
}

// wantHeaders checks the draft's header section: these nine headers, one
// line each, and nothing else.
func wantHeaders(t *testing.T, text string, m *mail.Message) {
	t.Helper()
	head, _, _ := strings.Cut(text, "\n\n")
	lines := strings.Split(head, "\n")
	want := []string{"From", "To", "Cc", "Subject", "Date", "MIME-Version", "Content-Type", "Content-Transfer-Encoding", "X-Contend-Draft"}
	if len(lines) != len(want) || len(m.Header) != len(want) {
		t.Fatalf("header section of %d lines, %d headers; want %d:\n%s", len(lines), len(m.Header), len(want), head)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w+": ") {
			t.Errorf("header line %d %q, want %s", i+1, lines[i], w)
		}
	}
	if d, err := m.Header.Date(); err != nil || !d.Equal(date) {
		t.Errorf("Date %v (%v), want %v", d, err, date)
	}
	if !strings.HasPrefix(m.Header.Get("Subject"), "[REGRESSION] ") {
		t.Errorf("subject %q lacks [REGRESSION]", m.Header.Get("Subject"))
	}
}

func contains(t *testing.T, what, text string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(text, p) {
			t.Errorf("%s lacks %q:\n%s", what, p, text)
		}
	}
}

// microQuote is reporting-regressions.rst's sentence the impact paragraph
// quotes, as the draft wraps it at Width.
const microQuote = "A five percent slow-down in a micro-benchmark thus is unlikely to qualify as regression, unless it also influences the results of a broad benchmark by more than one percent."

// unwrap joins a draft's lines with spaces, for sentences wrapped at
// Width.
func unwrap(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestDraftOfFiles: two result files of two kernels make a draft with
// every part the issue lists, the figures the comparison's own.
func TestDraftOfFiles(t *testing.T) {
	a, b := twoFiles(t, "mutex", "6.1.0", "6.2.0", series(100, 1, 8), series(112, 1, 8))
	text, s := draft(t, []string{a, b}, Options{})
	m, body := parse(t, text)
	wantHeaders(t, text, m)
	h := HeadlineOf(s.Comparison)
	if !h.Significant() || !h.Worse() || h.Unit != "runs" || h.NA != 8 || h.NB != 8 {
		t.Fatalf("headline %+v: want a significant rise of time, 8 runs a side", h)
	}
	contains(t, "subject", m.Header.Get("Subject"), "[REGRESSION] mutex time "+pct(h.Change)+" between 6.1.0 and 6.2.0")
	contains(t, "body", unwrap(body),
		"mutex time (lower is better) rose by "+h.change()+" from 6.1.0 to 6.2.0 on this machine (p "+pval(h.P)+"; Mann-Whitney U, Holm-adjusted, 8 and 8 runs).",
		"Impact: micro-benchmark only.", microQuote,
		"Last good: 6.1.0", "First bad: 6.2.0",
		"with contend v0.9.0-test (the version that measured)",
		"untainted", "TAINTED 512 (W: kernel warning)",
		"config sha256 "+KernelOf(s.Comparison, 0).ConfigSHA256, "config sha256 "+KernelOf(s.Comparison, 1).ConfigSHA256,
		"No A/A control was given",
		"%stddev %change %stddev", "contend.mutex.time", "contend: n 8 runs vs 8 runs; Mann-Whitney U",
		"test machine: 4 threads Test CPU @ 2.0GHz with 16G memory")
	// The one reproduction command: the file's, without --out and -q.
	contains(t, "body", body, "\n  contend run mutex --threads 4 -n 8\n")
	if strings.Contains(body, "--out") {
		t.Errorf("the reproduction keeps --out:\n%s", body)
	}
	cmds := regzbotCommands(t, body)
	checkRegzbot(t, cmds, "v6.1..v6.2")
}

// TestDraftOfCampaign: a campaign's draft has the boot as the unit,
// the kernel contend built named by its revision (regzbot's range from
// the release's tag to that commit), and the plan's command.
func TestDraftOfCampaign(t *testing.T) {
	dir := campaignFixture(t, "ABBAABBA", false)
	text, s := draft(t, []string{dir}, Options{})
	m, body := parse(t, text)
	wantHeaders(t, text, m)
	h := HeadlineOf(s.Comparison)
	if h.Unit != "boots" || h.NA != 4 || h.NB != 4 || !h.Significant() {
		t.Fatalf("headline %+v: want 4 boots a side, significant", h)
	}
	rev := KernelOf(s.Comparison, 1).Revision
	contains(t, "body", unwrap(body), "Student's t on the per-boot means, 4 and 4 boots", "First bad: 6.2.0 ("+rev[:12]+")",
		"config sha256 b0b0b0b0", "built by contend from "+rev[:12], "alternating the kernels", "micro-benchmark only")
	contains(t, "body", body, "\n  contend run mutex --threads 4 -n 3\n")
	checkRegzbot(t, regzbotCommands(t, body), "v6.1.."+rev[:12])
}

// TestDraftOfBisect: a bisect's draft names the culprit, its parent as
// the last good, its probability and verification, and tells regzbot
// the culprit's commit.
func TestDraftOfBisect(t *testing.T) {
	dir, res := bisectFixture(t, 16, 9, 10)
	if res.Stop != bisect.StopConfident || res.Top[0].Subject != "commit 9" || res.Verify == nil || !res.Verify.Verified {
		t.Fatalf("the fixture's search: stop %q, top %+v, verify %+v", res.Stop, res.Top, res.Verify)
	}
	text, s := draft(t, []string{dir}, Options{})
	m, body := parse(t, text)
	wantHeaders(t, text, m)
	c := res.Top[0]
	contains(t, "subject", m.Header.Get("Subject"), "since "+c.Hash[:12]+` ("commit 9")`)
	contains(t, "body", unwrap(body), "with commit "+c.Hash[:12]+` ("commit 9")`,
		"last good: "+s.Plan.Commits[8].Hash[:12]+` ("commit 8")`, "first bad: "+c.Hash[:12]+` ("commit 9")`,
		"the culprit with probability "+bisect.Prob(c.P)+" (asked: 0.95)", ": verified",
		"over the 15 commits of v6.1..v6.2-rc1")
	contains(t, "body", body, "\n  contend run mutex --threads 4\n")
	// The comparison is the culprit's parent against the culprit.
	if got := s.Comparison.Sides[0].Parts; len(got) == 0 || !strings.Contains(got[0], s.Plan.Commits[8].Hash[:12]) {
		t.Errorf("base side %v: want the files of commit 8", got)
	}
	checkRegzbot(t, regzbotCommands(t, body), c.Hash[:12])
}

// TestRefusals: no draft, one line, for a change the data do not show,
// an improvement, an A/A control that differs, the same kernel on both
// sides, and an input that is not two kernels.
func TestRefusals(t *testing.T) {
	var un *Unsupported
	var rf *Refusal
	build := func(args []string, opt Options) error {
		s, err := Open(args, comparison.Options{})
		if err != nil {
			return err
		}
		_, err = Build(s, opt)
		return err
	}
	one := func(err error) string {
		if err == nil {
			return ""
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("refusal of more than one line: %q", err)
		}
		return err.Error()
	}
	a, b := twoFiles(t, "mutex", "6.1.0", "6.2.0", series(100, 1, 8), []float64{103, 99, 106, 101, 104, 100, 107, 102})
	if err := build([]string{a, b}, Options{}); !errors.As(err, &un) || !strings.Contains(one(err), "not significant") {
		t.Errorf("no change: %v", err)
	}
	a, b = twoFiles(t, "mutex", "6.1.0", "6.2.0", series(100, 1, 8), series(80, 1, 8))
	if err := build([]string{a, b}, Options{}); !errors.As(err, &un) || !strings.Contains(one(err), "improved") {
		t.Errorf("an improvement: %v", err)
	}
	a, b = twoFiles(t, "mutex", "6.1.0", "6.1.0", series(100, 1, 8), series(112, 1, 8))
	if err := build([]string{a, b}, Options{}); !errors.As(err, &rf) || !strings.Contains(one(err), "same kernel") {
		t.Errorf("the same kernel: %v", err)
	}
	// An A/A control that differs: the base kernel against itself
	// changed as much as the two kernels did.
	aa1, aa2 := twoFiles(t, "mutex", "6.1.0", "6.1.0", series(100, 1, 8), series(112, 1, 8))
	sAA, err := Open([]string{aa1, aa2}, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, b = twoFiles(t, "mutex", "6.1.0", "6.2.0", series(100, 1, 8), series(112, 1, 8))
	if err := build([]string{a, b}, Options{AA: sAA.Comparison, AAName: "aa"}); !errors.As(err, &un) || !strings.Contains(one(err), "the A/A control aa differs") {
		t.Errorf("a failed A/A: %v", err)
	}
	// A campaign's A/A (the same kernel on both sides, both near 100)
	// that does not differ is said in the draft.
	okAA := campaignFixture(t, "ABBAABBA", true)
	sOK, err := Open([]string{okAA}, comparison.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, _ := draft(t, []string{a, b}, Options{AA: sOK.Comparison, AAName: okAA})
	contains(t, "draft", unwrap(text), "A/A control ("+okAA+", the base kernel against itself): ", ": no difference.")
	for _, args := range [][]string{{a}, {a, b, a}} {
		if err := build(args, Options{}); !errors.As(err, &rf) || !strings.Contains(one(err), "give a campaign directory, a bisect directory, or two result files") {
			t.Errorf("%d arguments: %v", len(args), err)
		}
	}
	if err := build([]string{t.TempDir()}, Options{}); !errors.As(err, &rf) || !strings.Contains(one(err), "is neither a campaign directory") {
		t.Errorf("an empty directory: %v", err)
	}
	// A bisect whose ends do not differ.
	dir, res := bisectFixture(t, 8, 4, 0)
	if res.Stop != bisect.StopNoDifference {
		t.Fatalf("fixture without a step: stop %q", res.Stop)
	}
	if err := build([]string{dir}, Options{}); !errors.As(err, &un) || !strings.Contains(one(err), "the bisect's ends do not differ") {
		t.Errorf("a bisect without a difference: %v", err)
	}
}

// TestImpactOfAProgram: results of an external program are not called a
// micro-benchmark: the draft asks the reporter to say what it is.
func TestImpactOfAProgram(t *testing.T) {
	a, b := twoFiles(t, "kbuild-time", "6.1.0", "6.2.0", series(100, 1, 8), series(112, 1, 8))
	text, _ := draft(t, []string{a, b}, Options{})
	_, body := parse(t, text)
	if strings.Contains(body, "micro-benchmark only") {
		t.Errorf("an external program called a micro-benchmark:\n%s", body)
	}
	contains(t, "body", unwrap(body), "Impact: measured with kbuild-time through contend. [Say whether it is a broad benchmark or a micro-benchmark")
}

// TestTaint: the kernel's taint in letters and words.
func TestTaint(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"0", "untainted"},
		{"4609", "TAINTED 4609 (P, W, O: proprietary module loaded; kernel warning; out-of-tree module loaded)"},
		{"", "taint not recorded (the contend that measured did not record it)"},
		{"1048576", "TAINTED 1048576 (bit 20: unknown)"},
		{"x", "taint x (not a number)"},
	} {
		if got := Taint(c.in); got != c.want {
			t.Errorf("Taint(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for rel, tag := range map[string]string{"6.12.0": "v6.12", "6.12.0-rc1": "v6.12-rc1", "6.6.3": "v6.6.3", "6.1.0-27-amd64": "", "6.13.0-rc1+": ""} {
		if got := TagOf(rel); got != tag {
			t.Errorf("TagOf(%q) = %q, want %q", rel, got, tag)
		}
	}
}
