package bisect

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"contend/internal/plural"
	"contend/internal/textfmt"
)

// Formats are the --format words of bisect and bisect status.
var Formats = []string{"text", "markdown", "json", "csv"}

// Write writes r in format (one of Formats).
func Write(w io.Writer, r *Result, format string) error {
	switch format {
	case "json":
		return writeJSON(w, r)
	case "csv":
		return writeCSV(w, r)
	case "markdown":
		return writeText(w, r, true)
	case "text", "":
		return writeText(w, r, false)
	}
	return fmt.Errorf("--format: %q is not accepted; accepted: %s", format, strings.Join(Formats, ", "))
}

func pct(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return fmt.Sprintf("%+.3g%%", 100*x)
}

func interval(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return ""
	}
	return fmt.Sprintf(" [%s, %s]", pct(lo), pct(hi))
}

func pval(p float64) string {
	if math.IsNaN(p) {
		return "n/a"
	}
	return strconv.FormatFloat(p, 'g', 3, 64)
}

// prob formats a probability: three decimals, "> 0.999" and "< 0.001"
// at the edges (never a bare 1.000 or 0.000).
func prob(p float64) string {
	switch {
	case p > 0.999:
		return "> 0.999"
	case p < 0.001:
		return "< 0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

// eqProb is prob with "= " before a plain number.
func eqProb(p float64) string {
	s := prob(p)
	if s[0] == '>' || s[0] == '<' {
		return s
	}
	return "= " + s
}

func name(c Commit) string {
	if c.Subject == "" {
		return textfmt.Commit(c.Hash)
	}
	return fmt.Sprintf("%s %q", textfmt.Commit(c.Hash), c.Subject)
}

func writeText(w io.Writer, r *Result, md bool) error {
	var b strings.Builder
	line := func(format string, a ...any) {
		if md {
			b.WriteString("- ")
		}
		fmt.Fprintf(&b, format+"\n", a...)
	}
	metric := r.Metric.Name
	if r.Metric.Unit != "" {
		metric += " (" + r.Metric.Unit + ")"
	}
	if md {
		fmt.Fprintf(&b, "## bisect of %s: %s\n\n", plural.N(r.Commits, "commit", "commits"), r.StopText)
	} else {
		fmt.Fprintf(&b, "bisect of %s after %s (good) up to %s (bad)", plural.N(r.Commits, "commit", "commits"), textfmt.Commit(r.Good.Hash), textfmt.Commit(r.Bad.Hash))
		if metric != "" {
			fmt.Fprintf(&b, ", metric %s", metric)
		}
		b.WriteString("\n")
	}
	c := r.Calibration
	differ := "the ends differ"
	if !c.Differ {
		differ = "the ends do not differ"
	}
	if c.NGood > 0 && c.NBad > 0 {
		line("calibration: good median %.6g, bad median %.6g (%d and %d %s): change %s%s, p = %s at level %s (%s): %s",
			c.MedianGood, c.MedianBad, c.NGood, c.NBad, r.unit(), pct(c.Change), interval(c.Lo, c.Hi), pval(c.P), pval(c.Level), c.Rule, differ)
	}
	switch {
	case r.Stop == StopNoDifference:
		line("nothing to bisect: the change between the ends is %s%s, not told from noise; run more (--calibrate-max) or check the range and the metric", pct(c.Change), interval(c.Lo, c.Hi))
	case len(r.Top) > 0:
		t := r.Top[0]
		switch r.Stop {
		case "":
			line("most probable culprit so far: %s, P %s (the search has not ended; asked for %.3g)", name(t.Commit), eqProb(t.P), r.Confidence)
		case StopConfident:
			line("culprit: %s, P %s (stopped: %s; asked for %.3g)", name(t.Commit), eqProb(t.P), r.StopText, r.Confidence)
		default:
			line("%s; asked for %.3g", r.StopText, r.Confidence)
			line("the range may hold no single step: no change, several smaller ones, or a level that moved in a way the blocks could not absorb; the most probable commit, %s at P %s, is not an answer", textfmt.Commit(t.Hash), eqProb(t.P))
		}
		if len(t.Skipped) > 0 && r.Stop != "" && r.Stop == StopConfident {
			var hs []string
			for _, s := range t.Skipped {
				hs = append(hs, textfmt.Commit(s.Hash))
			}
			line("  or one of the skipped commits right before it, which no probe can tell from it: %s (the commit alone: P %s)", strings.Join(hs, " "), eqProb(t.POwn))
		}
		if md {
			b.WriteString("\n| rank | commit | P | subject |\n|---|---|---|---|\n")
			for i, t := range r.Top {
				fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", i+1, textfmt.Commit(t.Hash), prob(t.P), strings.ReplaceAll(t.Subject, "|", "\\|"))
			}
			b.WriteString("\n")
		} else {
			b.WriteString("top three:\n")
			for i, t := range r.Top {
				fmt.Fprintf(&b, "  %d. %s  P %-7s  %s\n", i+1, textfmt.Commit(t.Hash), eqProb(t.P), t.Subject)
			}
		}
	}
	if v := r.Verify; v != nil {
		verdict := fmt.Sprintf("verified: it differs from its parent by the step between the ends (likelihood ratio %.3g against no difference) and kept its P with these blocks counted", math.Exp(v.LogLR))
		if !v.Verified {
			verdict = "NOT verified: " + v.Note
		}
		line("verification (parent %s beside candidate %s in %s, %d and %d %s): change %s%s: %s",
			textfmt.Commit(v.Parent.Hash), textfmt.Commit(v.Culprit.Hash), plural.N(v.Blocks, "block", "blocks"), v.NParent, v.NCulprit, r.unit(), pct(v.Change), interval(v.Lo, v.Hi), verdict)
	} else if r.Stop != "" && r.Stop != StopNoDifference {
		line("verification: none")
	}
	where := ""
	if r.Where != "" {
		where = " " + r.Where
	}
	line("%s: %d calibration + %d probes + %d of the ends beside them + %d verification = %d%s; %s of %s; %s",
		r.unit(), r.Runs.Calibration, r.Runs.Probes, r.Runs.Ends, r.Runs.Verify, r.Runs.Total, where, plural.N(r.Probes, "probe", "probes"), plural.N(r.Probed, "commit", "commits"), time3(r.Elapsed))
	if r.Builds != nil {
		line("%s", r.Builds)
	}
	if len(r.Skipped) > 0 {
		mass := 0.0
		for _, s := range r.Skipped {
			mass += s.P
		}
		line("skipped: %s, P(the culprit is one of them) = %.3g: that mass cannot be told from the next measurable commit's", plural.N(len(r.Skipped), "commit", "commits"), mass)
		for _, s := range r.Skipped {
			if md {
				fmt.Fprintf(&b, "  - %s: %s\n", name(s.Commit), s.Reason)
			} else {
				fmt.Fprintf(&b, "  %s: %s\n", name(s.Commit), s.Reason)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func time3(s float64) string {
	switch {
	case s >= 3600:
		return fmt.Sprintf("%.1f h", s/3600)
	case s >= 60:
		return fmt.Sprintf("%.1f min", s/60)
	}
	return fmt.Sprintf("%.1f s", s)
}

// writeJSON writes r with NaN (an undefined change or p-value) as null.
func writeJSON(w io.Writer, r *Result) error {
	b, err := json.MarshalIndent(nanFree(*r), "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func nanFree(r Result) jsonResultNull {
	c := r.Calibration
	out := jsonResultNull{Result: r}
	out.Calibration = calNull{c, opt(c.Change), opt(c.Lo), opt(c.Hi), opt(c.P), opt(c.SDs)}
	if v := r.Verify; v != nil {
		out.Verify = &verNull{*v, opt(v.Change), opt(v.Lo), opt(v.Hi), opt(v.P), opt(v.LogLR)}
	}
	return out
}

func opt(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

type calNull struct {
	Calibration
	Change *float64 `json:"change"`
	Lo     *float64 `json:"change_lo"`
	Hi     *float64 `json:"change_hi"`
	P      *float64 `json:"p"`
	SDs    *float64 `json:"sds"`
}

type verNull struct {
	Verify
	Change *float64 `json:"change"`
	Lo     *float64 `json:"change_lo"`
	Hi     *float64 `json:"change_hi"`
	P      *float64 `json:"p"`
	LogLR  *float64 `json:"log_lr"`
}

type jsonResultNull struct {
	Result
	Calibration calNull  `json:"calibration"`
	Verify      *verNull `json:"verify,omitempty"`
}

// CSVHeader is the header of --format csv: one row per candidate of the
// top three (none when the ends do not differ: one row with rank 0),
// each with the search's summary.
var CSVHeader = []string{"rank", "index", "hash", "subject", "p", "p_own", "skipped_before", "stop", "confidence", "metric",
	"runs_total", "runs_calibration", "runs_probes", "runs_ends", "runs_verify", "probes", "skipped",
	"calibration_change", "calibration_p", "calibration_differ", "verified", "verify_change", "verify_p"}

func writeCSV(w io.Writer, r *Result) error {
	cw := csv.NewWriter(w)
	cw.Write(CSVHeader)
	f := func(x float64) string {
		if math.IsNaN(x) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	ver, vc, vp := "", "", ""
	if v := r.Verify; v != nil {
		ver, vc, vp = strconv.FormatBool(v.Verified), f(v.Change), f(v.P)
	}
	common := []string{r.Stop, f(r.Confidence), r.Metric.Name, strconv.Itoa(r.Runs.Total), strconv.Itoa(r.Runs.Calibration),
		strconv.Itoa(r.Runs.Probes), strconv.Itoa(r.Runs.Ends), strconv.Itoa(r.Runs.Verify), strconv.Itoa(r.Probes), strconv.Itoa(len(r.Skipped)),
		f(r.Calibration.Change), f(r.Calibration.P), strconv.FormatBool(r.Calibration.Differ), ver, vc, vp}
	if len(r.Top) == 0 {
		cw.Write(append([]string{"0", "", "", "", "", "", ""}, common...))
	}
	for i, t := range r.Top {
		var sk []string
		for _, s := range t.Skipped {
			sk = append(sk, s.Hash)
		}
		cw.Write(append([]string{strconv.Itoa(i + 1), strconv.Itoa(t.Index), t.Hash, t.Subject, f(t.P), f(t.POwn), strings.Join(sk, " ")}, common...))
	}
	cw.Flush()
	return cw.Error()
}
