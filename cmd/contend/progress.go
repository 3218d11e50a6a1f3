package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"contend/internal/report"
	"contend/internal/results"
)

// progress shows "repetition i of N, last value, ETA" on a terminal, and
// nothing otherwise.
type progress struct {
	w      io.Writer
	on     bool
	total  int
	done_  int
	start  time.Time
	metric string
	unit   string
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
	return &progress{w: w, on: !quiet && isTerminal(w), total: total, start: time.Now(), metric: metric, unit: unit}
}

func (p *progress) step(rep results.Rep) {
	p.done_++
	if !p.on {
		return
	}
	last := rep.Status
	if v, ok := rep.Metrics[p.metric]; ok && rep.Status == results.StatusOK {
		last = p.metric + " " + report.Human(p.unit, v)
	}
	eta := time.Duration(0)
	if p.done_ > 0 {
		eta = time.Since(p.start) / time.Duration(p.done_) * time.Duration(p.total-p.done_)
	}
	fmt.Fprintf(p.w, "\r\033[Krepetition %d of %d: %s, ETA %s", p.done_, p.total, last, eta.Round(time.Second))
}

func (p *progress) done() {
	if p.on && p.done_ > 0 {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

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
	s += ": " + metric + " " + report.Human(unit, rep.Metrics[metric])
	if r, ok := rep.Metrics["real"]; ok && metric != "real" {
		s += ", real " + report.Human("ns", r)
	}
	if l := rep.LoadAvg; l > 0 {
		s += fmt.Sprintf(", load %.2f", l)
	}
	return s
}
