package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"contend/internal/esc"
	"contend/internal/report"
	"contend/internal/results"
)

// progress shows "repetition i of N, last value, ETA" on a terminal, and
// nothing otherwise.
type progress struct {
	w      io.Writer
	on     bool
	shown  bool // a progress line is on the screen
	total  int
	done_  int
	start  time.Time
	metric string
	unit   string
	// count, when set, says where the run is instead of "repetition i of
	// N": "pair 3 of 60, side B", "repetition 4 of 12, threads=8".
	count func(done int, rep results.Rep) string
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

func newProgress(w io.Writer, quiet bool, total int, metric, unit string) *progress {
	// The progress line's own escape sequences go to the terminal as
	// they are (esc.Raw); what it says of the run is escaped (esc.Line).
	w = esc.Raw(w)
	return &progress{w: w, on: !quiet && isTerminal(w), total: total, start: time.Now(), metric: metric, unit: unit}
}

// step counts rep and redraws the line. An interrupted repetition only
// clears it: Main says "interrupted" once, on a clean line.
func (p *progress) step(rep results.Rep) {
	p.done_++
	if !p.on {
		return
	}
	if rep.Status == results.StatusInterrupted {
		p.clear()
		return
	}
	last := rep.Status
	if v, ok := rep.Metrics.Lookup(p.metric); ok && rep.Status == results.StatusOK {
		last = p.metric + " " + report.Human(p.unit, v)
	}
	eta := time.Duration(0)
	if p.done_ > 0 {
		eta = time.Since(p.start) / time.Duration(p.done_) * time.Duration(p.total-p.done_)
	}
	where := fmt.Sprintf("repetition %d of %d", p.done_, p.total)
	if p.count != nil {
		where = p.count(p.done_, rep)
	}
	fmt.Fprintf(p.w, "\r\033[K%s: %s, ETA %s", esc.Line(where), esc.Line(last), eta.Round(time.Second))
	p.shown = true
}

// clear removes the progress line, if one is shown.
func (p *progress) clear() {
	if p.on && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// failed prints line (a failed repetition) on a line of its own, the
// progress line cleared first; interrupted repetitions are not reported
// here (Main says it once), and nothing is printed when quiet.
func (p *progress) failed(rep results.Rep, quiet bool, line string) {
	if rep.Status == results.StatusOK || rep.Status == results.StatusInterrupted || quiet {
		return
	}
	p.clear()
	fmt.Fprintln(p.w, esc.Text(line))
}

func (p *progress) done() { p.clear() }

// verboseLine describes one finished repetition for --verbose.
func verboseLine(rep results.Rep, side, metric, unit string) string {
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
	s += ": " + metric + " " + report.Human(unit, rep.Metrics.Get(metric))
	if r, ok := rep.Metrics.Lookup("real"); ok && metric != "real" {
		s += ", real " + report.Human("ns", r)
	}
	if l := rep.LoadAvg; l > 0 {
		s += fmt.Sprintf(", load %.2f", l)
	}
	return s
}
