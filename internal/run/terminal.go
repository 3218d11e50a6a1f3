package run

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"contend/internal/esc"
	"contend/internal/results"
	"contend/internal/textfmt"
	"contend/internal/units"
)

// Terminal is the UI of a command run by a user: notices and problems on
// its writer (stderr), and on a terminal a progress line "repetition i
// of N, last value, ETA"; a failed repetition on a line of its own, or
// with Verbose every repetition.
type Terminal struct {
	w     io.Writer // as given: notices and problems
	raw   io.Writer // the progress line's escape sequences as they are
	opt   TerminalOptions
	on    bool // the progress line is drawn
	shown bool // a progress line is on the screen
	done  int
	start time.Time
}

// TerminalOptions say what a Terminal shows.
type TerminalOptions struct {
	Quiet, Verbose bool
	// Total is the number of repetitions planned (the most, for an
	// adaptive plan).
	Total int
	// Metric (in Unit) is the value shown of each repetition.
	Metric, Unit string
	// Count, when set, says where the run is instead of "repetition i
	// of N": "pair 3 of 60, side B".
	Count func(done int, rep results.Rep) string
	// Label names a repetition's configuration in the line of a failed
	// one ("side a": "repetition 3 (side a) failed: ..."); Side in the
	// lines of Verbose ("side A"). nil: none.
	Label, Side func(rep results.Rep) string
}

// NewTerminal returns the terminal UI writing to w.
func NewTerminal(w io.Writer, opt TerminalOptions) *Terminal {
	// The progress line's own escape sequences go to the terminal as
	// they are (esc.Raw); what it says of the run is escaped (esc.Line).
	raw := esc.Raw(w)
	return &Terminal{w: w, raw: raw, opt: opt, on: !opt.Quiet && isTerminal(raw), start: time.Now()}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// Notice prints line unless quiet, wrapped to the terminal's width
// (textfmt.Message; as it is into a file or a pipe).
func (t *Terminal) Notice(line string) {
	if !t.opt.Quiet {
		t.clear()
		fmt.Fprintln(t.w, textfmt.Message(line, textfmt.Columns(t.raw, 0)))
	}
}

// Problem prints line, wrapped as Notice's.
func (t *Terminal) Problem(line string) {
	t.clear()
	fmt.Fprintln(t.w, textfmt.Message(line, textfmt.Columns(t.raw, 0)))
}

// Rep counts rep, redraws the progress line and prints the line of a
// failed repetition (or, verbose, of every one). An interrupted
// repetition only clears the line: the command says "interrupted" once,
// on a clean line.
func (t *Terminal) Rep(rep results.Rep) {
	t.step(rep)
	if t.opt.Verbose {
		side := ""
		if t.opt.Side != nil {
			side = t.opt.Side(rep)
		}
		fmt.Fprintln(t.w, VerboseLine(rep, side, t.opt.Metric, t.opt.Unit))
		return
	}
	if rep.Status == results.StatusOK || rep.Status == results.StatusInterrupted || t.opt.Quiet {
		return
	}
	label := ""
	if t.opt.Label != nil {
		label = " (" + t.opt.Label(rep) + ")"
	}
	t.clear()
	fmt.Fprintln(t.raw, esc.Text(fmt.Sprintf("repetition %d%s %s: %s", rep.Index+1, label, rep.Status, rep.Error)))
}

func (t *Terminal) step(rep results.Rep) {
	t.done++
	if !t.on {
		return
	}
	if rep.Status == results.StatusInterrupted {
		t.clear()
		return
	}
	last := rep.Status
	if v, ok := rep.Metrics.Lookup(t.opt.Metric); ok && rep.Status == results.StatusOK {
		last = t.opt.Metric + " " + units.Human(t.opt.Unit, v)
	}
	eta := time.Since(t.start) / time.Duration(t.done) * time.Duration(t.opt.Total-t.done)
	where := fmt.Sprintf("repetition %d of %d", t.done, t.opt.Total)
	if t.opt.Count != nil {
		where = t.opt.Count(t.done, rep)
	}
	fmt.Fprintf(t.raw, "\r\033[K%s: %s, ETA %s", esc.Line(where), esc.Line(last), eta.Round(time.Second))
	t.shown = true
}

// clear removes the progress line, if one is shown.
func (t *Terminal) clear() {
	if t.on && t.shown {
		fmt.Fprint(t.raw, "\r\033[K")
		t.shown = false
	}
}

// Done clears the progress line.
func (t *Terminal) Done() { t.clear() }

// VerboseLine describes one finished repetition for --verbose.
func VerboseLine(rep results.Rep, side, metric, unit string) string {
	s := fmt.Sprintf("repetition %d", rep.Index+1)
	if side != "" {
		s += " (" + side + ")"
	}
	if rep.Warmup {
		s += " warm-up"
	}
	if rep.Status != results.StatusOK {
		return s + ": " + rep.Status + ": " + rep.Error
	}
	s += ": " + metric + " " + units.Human(unit, rep.Metrics.Get(metric))
	if r, ok := rep.Metrics.Lookup("real"); ok && metric != "real" {
		s += ", real " + units.Human("ns", r)
	}
	if l := rep.LoadAvg; l > 0 {
		s += fmt.Sprintf(", load %.2f", l)
	}
	return s
}

// PairProgress is what the terminal shows of an A/B run (file f) of
// pairs pairs: "pair 3 of 60, side B", the failed repetition's side.
func PairProgress(f *results.File, pairs int, primary, unit string) TerminalOptions {
	side := func(rep results.Rep) string { return f.ConfigName(rep.Config) }
	return TerminalOptions{
		Total: 2 * pairs, Metric: primary, Unit: unit,
		Count: func(done int, rep results.Rep) string {
			return fmt.Sprintf("pair %d of %d, side %s", (done+1)/2, pairs, strings.ToUpper(side(rep)))
		},
		Label: func(rep results.Rep) string { return "side " + side(rep) },
		Side:  func(rep results.Rep) string { return "side " + strings.ToUpper(side(rep)) },
	}
}
