package campaign

import (
	"fmt"
	"io"
	"strings"
	"time"

	"contend/internal/plural"
)

// WriteStatus writes what 'campaign status' shows of the campaign in
// dir, whose plan is p and ledger led: each boot (done, to do, stopped,
// interrupted, its reboot requested or under way), the arming and the
// last stop while it still holds, or 'complete'.
func WriteStatus(w io.Writer, dir string, p *Plan, led *Ledger) {
	done := led.Done()
	next := led.Next(len(p.Order))
	fmt.Fprintf(w, "campaign %s: %d of %d boots done (order %s)\n", dir, len(done), len(p.Order), p.Order)
	fmt.Fprintf(w, "  A: %s\n  B: %s\n  each boot: contend %s\n", p.Sides[0].Expect, p.Sides[1].Expect, strings.Join(p.Command, " "))
	latest := led.Latest()
	for next < len(p.Order) && latest[next].Event == EvSkipped && done[next].Event == "" {
		next++ // skipped, never redone (--vm-skip-faults)
	}
	for i := range p.Order {
		mark := "  "
		if i == next {
			mark = "->"
		}
		fmt.Fprintf(w, "  %s boot %d  %c  %s\n", mark, i+1, p.Order[i], slotStatus(led, done, latest, i))
	}
	armed := IsArmed(dir)
	switch {
	case next == len(p.Order):
		// Nothing is left to do: no advice about arming or an earlier
		// stop applies any more.
		fmt.Fprintf(w, "complete: all %s done; 'contend campaign report %s'\n", plural.N(len(p.Order), "boot", "boots"), dir)
		if armed {
			fmt.Fprintf(w, "still armed, but no step reboots a complete campaign ('contend campaign disarm %s' to tidy up)\n", dir)
		}
	case p.VM != nil:
		fmt.Fprintf(w, "a campaign of virtual machines: 'contend campaign run %s' goes on from boot %d\n", dir, next+1)
	case armed:
		fmt.Fprintln(w, "armed: the step reboots after each boot")
	default:
		fmt.Fprintln(w, "not armed: no step reboots ('contend campaign arm' to allow it)")
	}
	if e, ok := led.LastStop(); ok && next < len(p.Order) {
		fmt.Fprintf(w, "last stop (%s): %s\n", e.Time.Format(time.RFC3339), e.Message)
	}
	if led.Torn > 0 {
		fmt.Fprintf(w, "ledger: %s ignored (written during a power cut)\n", plural.N(led.Torn, "unreadable line", "unreadable lines"))
	}
}

// slotStatus returns the state of boot slot i of the ledger: done, to
// do, stopped, interrupted, or to do with its reboot requested or under
// way; done and latest are led.Done() and led.Latest().
func slotStatus(led *Ledger, done, latest map[int]Event, i int) string {
	id, started := led.Started(i)
	if e, ok := done[i]; ok {
		return fmt.Sprintf("done in boot %s, %s, %s", ShortID(e.BootID), plural.N(e.OK, "run", "runs"), e.Result)
	}
	e, ok := latest[i]
	switch {
	case ok && (e.Event == EvFailed || e.Event == EvMismatch):
		line := fmt.Sprintf("stopped (%s in boot %s)", e.Event, ShortID(e.BootID))
		if e.BootID == "" {
			line = fmt.Sprintf("stopped (%s)", e.Event) // a guest that did not report (--vm)
		}
		if started {
			line += ": will be redone"
		}
		return line
	case started:
		return fmt.Sprintf("interrupted (started in boot %s): will be redone", ShortID(id))
	case ok && e.Event == EvReboot:
		return fmt.Sprintf("to do: the step of boot %s rebooted into it", ShortID(e.BootID))
	case ok && e.Event == EvSkipped:
		return "skipped (a fault, --vm-skip-faults): " + e.Message
	case ok && e.Event == EvRebooting:
		return fmt.Sprintf("to do: the step of boot %s rebooted into it (the reboot was under way when that step ended)", ShortID(e.BootID))
	}
	return "to do"
}

// LastStop returns the last stop (a mismatch or a failure) of the ledger
// while it still holds: no step began, finished, redid or rebooted into a
// boot after it.
func (l *Ledger) LastStop() (Event, bool) {
	for i := len(l.Events) - 1; i >= 0; i-- {
		switch e := l.Events[i]; e.Event {
		case EvMismatch, EvFailed:
			return e, true
		case EvStart, EvDone, EvRedo, EvReboot, EvRebooting, EvComplete:
			return Event{}, false
		}
	}
	return Event{}, false
}

// ShortID returns the first 8 characters of a boot id, as status and
// the reports show it.
func ShortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
