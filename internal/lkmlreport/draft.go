// Package lkmlreport writes the draft of a regression report for the
// kernel's mailing lists ('contend report --for-lkml'): an RFC 822
// message, never sent, with what the kernel's rules
// (Documentation/admin-guide/reporting-regressions.rst,
// reporting-issues.rst) and the regression tracker (regzbot) ask of a
// report: [REGRESSION] in the subject, a one-sentence summary, the
// impact (micro-benchmark only, when it is), the last good and first bad
// kernel (the culprit, its probability and verification from a bisect),
// one reproduction command with contend's version, both kernels'
// releases, config hashes and taint, the comparison in the kernel test
// robot's layout (internal/lkmlblock) with contend's statistics, the
// machine in the robot's words, and the '#regzbot introduced:' lines.
//
// It refuses a comparison that does not show a regression: not
// significant, an improvement, or an A/A control that differs.
package lkmlreport

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"mime"
	"strings"
	"time"

	"contend/internal/bisect"
	"contend/internal/comparison"
	"contend/internal/esc"
	"contend/internal/lkmlblock"
	"contend/internal/textfmt"
	"contend/internal/workload"
)

// Options are a draft's choices beyond its source.
type Options struct {
	// AA is the comparison of an A/A control (the base kernel against
	// itself), nil when none was given; AAName names it (its directory
	// or files).
	AA     *comparison.Comparison
	AAName string
	// Introduced is the regzbot commit or range given (--introduced,
	// checked by CheckIntroduced); "" derives it from the source.
	Introduced string
	// Date is the draft's Date header; Writer the version of the contend
	// that writes it.
	Date   time.Time
	Writer string
}

// Unsupported is a comparison that does not support a regression
// report: not significant, an improvement, an A/A control that differs
// (exit 1: the data, not the command line).
type Unsupported struct{ Msg string }

func (e *Unsupported) Error() string { return e.Msg }

func unsupported(format string, a ...any) error {
	return &Unsupported{fmt.Sprintf(format, a...)}
}

// Draft is a report: its headers (name, value, unescaped) and its
// body's lines.
type Draft struct {
	Headers [][2]string
	Body    []string
	// regzbot is the index in Body of the regzbot section's first line,
	// -1 when there is none: its lines are contend's own.
	regzbot int
}

// Width is the width the draft's paragraphs are wrapped to.
const Width = 72

// Build returns the draft of the report on s, or an *Unsupported or a
// *Refusal error saying in one line why there is none.
func Build(s *Source, opt Options) (*Draft, error) {
	r := s.Comparison
	if len(r.Sides) != 2 || len(r.Pairs) != 1 {
		return nil, refuse("report --for-lkml: a report compares two kernels, got %d sides", len(r.Sides))
	}
	good, bad := KernelOf(r, 0), KernelOf(r, 1)
	if s.Kind != KindBisect && good.same(bad) {
		return nil, refuse("report --for-lkml: both sides ran the same kernel (%s): that is an A/A control, not a regression; give it as --aa beside the comparison of two kernels", esc.Line(kernelName(good)))
	}
	h := HeadlineOf(r)
	what := subjectOf(r, h)
	if h.Direction == 0 {
		return nil, refuse("report --for-lkml: %s has no better direction (neither a time nor a rate): name the metric that regressed with --metric", what)
	}
	if err := significant(s, h, what); err != nil {
		return nil, err
	}
	if opt.AA != nil {
		a := HeadlineOf(opt.AA)
		if a.Significant() {
			return nil, unsupported("report --for-lkml: the A/A control %s differs: %s, p %s (%s, %d and %d %s): this machine's noise cannot support a report; quiet it ('contend check') and measure again",
				esc.Line(opt.AAName), a.change(), pval(a.P), a.Test, a.NA, a.NB, a.Unit)
		}
	}
	d := &Draft{regzbot: -1}
	b := &body{}
	goodName, badName, introduced := ends(s, good, bad)
	if opt.Introduced != "" {
		introduced = opt.Introduced
	}
	// The title: the subject after [REGRESSION] and regzbot's title, one
	// line whatever the results hold, no regzbot tag in it.
	ttl := untag(esc.Line(fmt.Sprintf("%s %s %s", what, pct(h.Change), since(s, goodName, badName))))
	d.Headers = [][2]string{
		{"From", "YOUR NAME <YOUR-ADDRESS>"},
		{"To", "CULPRIT-AUTHOR-AND-MAINTAINERS (scripts/get_maintainer.pl)"},
		{"Cc", "regressions@lists.linux.dev, linux-kernel@vger.kernel.org"},
		{"Subject", "[REGRESSION] " + ttl},
		{"Date", opt.Date.Format(time.RFC1123Z)},
		{"MIME-Version", "1.0"},
		{"Content-Type", "text/plain; charset=UTF-8"},
		{"Content-Transfer-Encoding", "8bit"},
		{"X-Contend-Draft", "contend " + opt.Writer + "; not sent: fill in From, To, [...]"},
	}
	b.line("Hi,")
	b.blank()
	b.para(summary(s, r, h, what, goodName, badName))
	b.blank()
	b.para(impact(r, h))
	b.blank()
	versions(b, s, goodName, badName)
	b.blank()
	kernels(b, good, bad)
	b.blank()
	reproduction(b, s)
	b.blank()
	aaParagraph(b, opt)
	b.blank()
	b.para("The comparison, in the kernel test robot's layout (contend's statistics below it):")
	b.blank()
	var blk bytes.Buffer
	if err := lkmlblock.Write(&blk, r, false); err != nil {
		return nil, err
	}
	for _, l := range strings.Split(strings.TrimRight(blk.String(), "\n"), "\n") {
		b.line(l)
	}
	b.blank()
	for _, l := range Machine(r) {
		b.line(l)
	}
	b.blank()
	b.para("[Attach both kernels' .config and the first bad kernel's dmesg; say whether the regression shows with the newest mainline kernel too.]")
	b.blank()
	for i := range b.lines {
		b.lines[i] = untag(esc.Line(b.lines[i]))
	}
	if introduced != "" {
		d.regzbot = len(b.lines)
		b.lines = append(b.lines, regzbotLines(introduced, ttl)...)
	} else {
		b.para("[No regzbot line: the kernels name no commit or tag (a release with a local version). Add one naming the commit or range that introduced the regression, as regzbot's documentation says.]")
	}
	d.Body = b.lines
	return d, nil
}

// significant refuses a change the data do not show, or one for the
// better. A bisect's is its calibration: the ends differ, bad against
// good for the worse.
func significant(s *Source, h Headline, what string) error {
	if s.Kind == KindBisect && s.Bisect != nil {
		c := s.Bisect.Calibration
		if !c.Differ || s.Bisect.Stop == bisect.StopNoDifference {
			return unsupported("report --for-lkml: the bisect's ends do not differ (%s, p %s): no regression to report", rangeOf(c.Change, c.Lo, c.Hi), pval(c.P))
		}
		e := h
		e.Change = c.Change
		if !e.Worse() {
			return unsupported("report --for-lkml: %s improved from the good end to the bad one (%s): not a regression", what, pct(c.Change))
		}
		return nil
	}
	if !h.Significant() {
		return unsupported("report --for-lkml: no regression to report: %s changed by %s, p %s, not below %g (%s, %d and %d %s): not significant; measure more (the comparison's report says how many)",
			what, h.change(), pval(h.P), h.Alpha, h.Test, h.NA, h.NB, h.Unit)
	}
	if !h.Worse() {
		return unsupported("report --for-lkml: %s improved (%s, %s): not a regression", what, h.change(), h.Direction)
	}
	return nil
}

func rangeOf(c, lo, hi float64) string {
	s := pct(c)
	if !math.IsNaN(lo) && !math.IsNaN(hi) {
		s += fmt.Sprintf(" [%s, %s]", pct(lo), pct(hi))
	}
	return s
}

// subjectOf names the headline: "faultme time" for contend's
// workloads, "PROGRAM's METRIC" for an external program.
func subjectOf(r *comparison.Comparison, h Headline) string {
	return esc.Line(r.Workload + " " + h.Metric.Name)
}

// micro reports whether r measured one of contend's micro-benchmarks
// (a workload of its own, will-it-scale's tests among them).
func micro(r *comparison.Comparison) bool {
	_, ok := workload.Lookup(r.Workload)
	return ok
}

// ends names the last good and first bad kernel, and the commit or
// range regzbot is told introduced the regression ("" when the kernels
// name none).
func ends(s *Source, good, bad Kernel) (goodName, badName, introduced string) {
	if s.Kind == KindBisect {
		g, b := s.Plan.Commits[0], s.Plan.Commits[len(s.Plan.Commits)-1]
		if c, ok := culprit(s); ok {
			return commitName(parentOf(s, c)), commitName(c.Commit), textfmt.Commit(c.Hash)
		}
		introduced = textfmt.Commit(g.Hash) + ".." + textfmt.Commit(b.Hash)
		if ref(s.Plan.Good) && ref(s.Plan.Bad) {
			introduced = s.Plan.Good + ".." + s.Plan.Bad
		}
		return commitName(g), commitName(b), introduced
	}
	goodName, badName = kernelName(good), kernelName(bad)
	gr, br := kernelRef(good), kernelRef(bad)
	if gr != "" && br != "" {
		introduced = gr + ".." + br
	}
	return goodName, badName, introduced
}

// culprit returns the bisect's culprit: its most probable candidate once
// the search ended confident.
func culprit(s *Source) (bisect.Candidate, bool) {
	res := s.Bisect
	if res == nil || res.Stop != bisect.StopConfident || len(res.Top) == 0 {
		return bisect.Candidate{}, false
	}
	return res.Top[0], true
}

// parentOf returns the commit before candidate c in the bisect's range.
func parentOf(s *Source, c bisect.Candidate) bisect.Commit {
	if c.Index > 0 && c.Index <= len(s.Plan.Commits)-1 {
		return s.Plan.Commits[c.Index-1]
	}
	return s.Plan.Commits[0]
}

// commitName is a commit as the kernel's mails name one: 12 digits and
// its subject, cut to 60 characters.
func commitName(c bisect.Commit) string {
	if c.Subject == "" {
		return textfmt.Commit(c.Hash)
	}
	subj := []rune(c.Subject)
	if len(subj) > 60 {
		subj = append(subj[:57], []rune("...")...)
	}
	return fmt.Sprintf("%s (\"%s\")", textfmt.Commit(c.Hash), string(subj))
}

// kernelName names a kernel: its release, and the commit contend built
// it from.
func kernelName(k Kernel) string {
	n := k.Release
	if n == "" {
		n = "(release not recorded)"
	}
	if k.Revision != "" {
		n += " (" + textfmt.Commit(k.Revision) + ")"
	}
	return n
}

// kernelRef is what regzbot can look a kernel up by: the commit contend
// built it from, else its release's tag; "" for neither.
func kernelRef(k Kernel) string {
	if reCommit.MatchString(k.Revision) {
		return textfmt.Commit(k.Revision)
	}
	return TagOf(k.Release)
}

// since says where the change happened: "since HASH ("subject")", or
// "between GOOD and BAD".
func since(s *Source, goodName, badName string) string {
	if _, ok := culprit(s); ok {
		return "since " + badName
	}
	return "between " + goodName + " and " + badName
}

// summary is the one-sentence summary.
func summary(s *Source, r *comparison.Comparison, h Headline, what, goodName, badName string) string {
	dir := "rose"
	if h.Change < 0 {
		dir = "fell"
	}
	better := h.Direction.String()
	where := fmt.Sprintf("from %s to %s", goodName, badName)
	if c, ok := culprit(s); ok {
		where = fmt.Sprintf("with commit %s", commitName(c.Commit))
	}
	return fmt.Sprintf("%s (%s) %s by %s %s on this machine (p %s; %s, %d and %d %s).",
		what, better, dir, h.change(), where, pval(h.P), h.Test, h.NA, h.NB, h.Unit)
}

// impact is the impact paragraph: what was measured, and for a
// micro-benchmark what the kernel's rules say of one.
func impact(r *comparison.Comparison, h Headline) string {
	if micro(r) {
		return fmt.Sprintf("Impact: micro-benchmark only. %s is one of contend's contention micro-benchmarks; no broad benchmark was measured. The kernel's rules (Documentation/admin-guide/reporting-regressions.rst): \"A five percent slow-down in a micro-benchmark thus is unlikely to qualify as regression, unless it also influences the results of a broad benchmark by more than one percent.\" [Say which real workload this %s change slows down, and by how much, before sending.]",
			esc.Line(r.Workload), pct(h.Change))
	}
	return fmt.Sprintf("Impact: measured with %s through contend. [Say whether it is a broad benchmark or a micro-benchmark, and which real workload this %s change slows down, before sending.]",
		esc.Line(r.Workload), pct(h.Change))
}

// versions writes the last good and first bad kernel, and a bisect's
// culprit with its probability and verification.
func versions(b *body, s *Source, goodName, badName string) {
	if s.Kind != KindBisect {
		b.line("Last good: " + goodName)
		b.line("First bad: " + badName)
		b.para("(Two kernels compared; the commit between them is not bisected: 'contend bisect --vm --kernel-tree' finds it.)")
		return
	}
	res, plan := s.Bisect, s.Plan
	b.para(fmt.Sprintf("Bisected with contend bisect over the %d commits of %s..%s (%s):", res.Commits, plan.Good, plan.Bad, res.StopText))
	c, ok := culprit(s)
	if !ok {
		b.line("  last good: " + goodName + " (the good end)")
		b.line("  first bad: " + badName + " (the bad end)")
		if len(res.Top) > 0 {
			b.para(fmt.Sprintf("  most probable culprit: %s, probability %s (asked: %.2f)", commitName(res.Top[0].Commit), bisect.Prob(res.Top[0].P), res.Confidence))
		}
	} else {
		b.line("  last good: " + goodName)
		b.line("  first bad: " + badName)
		b.para(fmt.Sprintf("  the culprit with probability %s (asked: %.2f), after %d probes of %d commits", bisect.Prob(c.P), res.Confidence, res.Probes, res.Probed))
	}
	cal := res.Calibration
	b.para(fmt.Sprintf("  the ends: %s, p %s (%d and %d %s)", rangeOf(cal.Change, cal.Lo, cal.Hi), pval(cal.P), cal.NGood, cal.NBad, unitOf(res)))
	if v := res.Verify; v != nil {
		verdict := "verified"
		if !v.Verified {
			verdict = "not verified: " + v.Note
		}
		b.para(fmt.Sprintf("  verification: %s against its parent %s, %d and %d %s in %d blocks: %s, p %s: %s",
			textfmt.Commit(v.Culprit.Hash), textfmt.Commit(v.Parent.Hash), v.NCulprit, v.NParent, unitOf(res), v.Blocks, rangeOf(v.Change, v.Lo, v.Hi), pval(v.P), verdict))
	}
	if res.Where != "" {
		b.para("  the boots ran " + res.Where)
	}
}

func unitOf(r *bisect.Result) string {
	if r.Unit == "" {
		return "runs"
	}
	return r.Unit
}

// kernels writes both kernels: release, version, config hash, taint.
func kernels(b *body, good, bad Kernel) {
	b.line("Kernels:")
	for i, k := range []Kernel{good, bad} {
		name := []string{"  last good: ", "  first bad: "}[i]
		b.line(name + orNot(k.Release, "release"))
		ind := "             "
		if k.Version != "" {
			b.line(ind + k.Version)
		}
		b.line(ind + "config sha256 " + orNot(k.ConfigSHA256, "config"))
		if k.Revision != "" {
			b.line(ind + "built by contend from " + k.Revision)
		}
		b.line(ind + Taint(k.Tainted))
		if k.Revision == "" && k.Release != "" && TagOf(k.Release) == "" {
			b.para(ind + "[a release with a local version: say which tree and commit it is; the rules ask for a vanilla kernel]")
		}
	}
}

func orNot(v, what string) string {
	if v == "" {
		return "(" + what + " not recorded)"
	}
	return v
}

// reproduction writes the one command that measures, with contend's
// version.
func reproduction(b *body, s *Source) {
	v := s.Version
	if v == "" {
		v = "(version not recorded)"
	}
	b.para(fmt.Sprintf("To reproduce, with contend %s (the version that measured), on each kernel:", v))
	b.blank()
	b.line("  " + Command(s.Command))
	b.blank()
	switch s.Kind {
	case KindCampaign:
		b.para("(here across reboots, alternating the kernels: 'contend campaign init', docs/campaigns.md; 'contend compare' of the two kernels' result files gives the comparison below.)")
	case KindBisect:
		b.para("(each commit's kernel measured beside its neighbours in blocks by 'contend bisect'; 'contend compare' of the two kernels' result files gives the comparison below.)")
	default:
		b.para("then 'contend compare' of the two result files gives the comparison below.")
	}
}

// Command is contend's command line of args as a person types it:
// without the options that only place the result file (--out, -o,
// --append, --replace) or quiet the run (-q, --quiet), each word quoted
// for sh and escaped.
func Command(args []string) string {
	words := []string{"contend"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			for _, x := range args[i:] {
				words = append(words, esc.Line(esc.ShellQuote(x)))
			}
			break
		}
		switch {
		case a == "--out" || a == "-o":
			i++
			continue
		case strings.HasPrefix(a, "--out=") || strings.HasPrefix(a, "-o="),
			a == "--append" || a == "--replace" || a == "-q" || a == "--quiet":
			continue
		}
		words = append(words, esc.Line(esc.ShellQuote(a)))
	}
	return strings.Join(words, " ")
}

// aaParagraph says what the A/A control found, or that there was none.
func aaParagraph(b *body, opt Options) {
	if opt.AA == nil {
		b.para("No A/A control was given (the base kernel against itself: a campaign with the same kernel on both sides, or 'contend ab --aa'): the machine's noise is only in the intervals above.")
		return
	}
	a := HeadlineOf(opt.AA)
	b.para(fmt.Sprintf("A/A control (%s, the base kernel against itself): %s, p %s (%s, %d and %d %s): no difference.",
		esc.Line(opt.AAName), a.change(), pval(a.P), a.Test, a.NA, a.NB, a.Unit))
}

// body collects the draft's lines.
type body struct{ lines []string }

func (b *body) line(s string) { b.lines = append(b.lines, s) }
func (b *body) blank()        { b.lines = append(b.lines, "") }

// para adds s wrapped at Width, its later lines indented as its first.
func (b *body) para(s string) {
	ind := s[:len(s)-len(strings.TrimLeft(s, " "))]
	b.lines = append(b.lines, textfmt.Wrap(s, Width, ind)...)
}

// Write writes d as an RFC 822 message: each header on one line (a
// value is escaped, so that no newline of the results reaches the
// header section, and encoded as RFC 2047 words when it is not ASCII),
// an empty line, the body.
func (d *Draft) Write(w io.Writer) error {
	var buf bytes.Buffer
	for _, h := range d.Headers {
		fmt.Fprintf(&buf, "%s: %s\n", h[0], HeaderValue(h[1]))
	}
	buf.WriteString("\n")
	for _, l := range d.Body {
		buf.WriteString(l)
		buf.WriteString("\n")
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// HeaderValue returns v for a header line: its control characters
// escaped (esc.Line: a CR or LF becomes the two characters \r, \n), then
// encoded as RFC 2047 words (UTF-8, Q) where it is not plain ASCII.
func HeaderValue(v string) string {
	return mime.QEncoding.Encode("UTF-8", esc.Line(v))
}
