package harness

import (
	"context"
	"fmt"
	"strings"
	"time"

	"contend/internal/results"
	"contend/internal/workload"
)

// Slot is one planned repetition: which configuration, whether it is a
// warm-up (run and kept in the file but not counted), and its round.
type Slot struct {
	Config int
	Warmup bool
	Round  int
}

// Session runs planned repetitions one after another and records each in
// a result file as soon as it ends.
type Session struct {
	Workload *workload.Workload
	Configs  []workload.Values
	Out      *results.Writer
	// Timeout returns the timeout of a repetition of config c (used by
	// the built-in runner only).
	Timeout func(c int) time.Duration
	// Runner, when set, runs the repetition of a slot instead of RunRep
	// of Workload with Configs[slot.Config] (an external program). Its
	// Rep keeps its own Output; a prepare command's output then goes to
	// the repetition's notes.
	Runner func(ctx context.Context, s Slot) Outcome
	// Next returns the next slot to run, given the file so far, or false
	// when the session is done. It allows adaptive plans.
	Next func(f *results.File) (Slot, bool)
	// Before runs before a repetition (prepare commands); an error stops
	// the session. Its output is stored with the repetition.
	Before func(ctx context.Context, s Slot) (output string, err error)
	// Derive, when set, may add derived metrics to a repetition before it
	// is recorded (a sweep's throughput).
	Derive func(rep *results.Rep)
	// After is told about each recorded repetition (printing, progress).
	After func(rep results.Rep, o Outcome)
	// Stop, when set and true after a repetition, ends the session
	// early (for example after too many failures).
	Stop func(f *results.File) bool
}

// StaticPlan returns a Next function that yields slots in order.
func StaticPlan(slots []Slot) func(*results.File) (Slot, bool) {
	i := 0
	return func(*results.File) (Slot, bool) {
		if i >= len(slots) {
			return Slot{}, false
		}
		i++
		return slots[i-1], true
	}
}

// Repeat returns warmup warm-up slots then n measured slots of config 0.
func Repeat(n, warmup int) []Slot {
	var s []Slot
	for i := 0; i < warmup; i++ {
		s = append(s, Slot{Warmup: true})
	}
	for i := 0; i < n; i++ {
		s = append(s, Slot{Round: i})
	}
	return s
}

// ErrInterrupted is returned by Run when ctx was cancelled (Ctrl-C).
var ErrInterrupted = fmt.Errorf("interrupted")

// Run executes the session. It returns ErrInterrupted after ctx was
// cancelled, an error when a result could not be written or a Before step
// failed, and nil otherwise. Every finished repetition is in the file in
// all cases.
func (s *Session) Run(ctx context.Context) error {
	BecomeSubreaper()
	f := s.Out.File
	for {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		slot, ok := s.Next(f)
		if !ok {
			return nil
		}
		var prepOut string
		if s.Before != nil {
			out, err := s.Before(ctx, slot)
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			if err != nil {
				return err
			}
			prepOut = out
		}
		var o Outcome
		if s.Runner != nil {
			o = s.Runner(ctx, slot)
			if prepOut != "" {
				o.Rep.Notes = append(o.Rep.Notes, "prepare output: "+strings.TrimRight(prepOut, "\n"))
			}
		} else {
			o = RunRep(ctx, s.Workload, s.Configs[slot.Config], s.Timeout(slot.Config))
			o.Rep.Output = prepOut
		}
		o.Rep.Index = len(f.Reps)
		o.Rep.Config = slot.Config
		o.Rep.Warmup = slot.Warmup
		o.Rep.Round = slot.Round
		if s.Derive != nil {
			s.Derive(&o.Rep)
		}
		if err := s.Out.Add(o.Rep); err != nil {
			return err
		}
		if s.After != nil {
			s.After(o.Rep, o)
		}
		if o.Rep.Status == results.StatusInterrupted {
			return ErrInterrupted
		}
		if s.Stop != nil && s.Stop(f) {
			return nil
		}
	}
}
