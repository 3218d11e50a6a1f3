package campaign

import (
	"errors"
	"path/filepath"
	"time"

	"contend/internal/env"
	"contend/internal/jsonl"
	"contend/internal/safefile"
)

// Ledger events.
const (
	EvStart    = "start"    // a step began measuring boot Slot
	EvDone     = "done"     // the measurement of boot Slot finished
	EvRedo     = "redo"     // boot Slot had a start without a done: run again
	EvMismatch = "mismatch" // the running kernel is not the one boot Slot expects
	EvFailed   = "failed"   // a run or a boot arrangement failed
	EvReboot   = "reboot"   // the step rebooted into boot Slot
	// EvRebooting: the step was stopped by a signal, or its reboot
	// command ended by one, after the reboot command started: the
	// shutdown of the reboot into boot Slot, not a failure.
	EvRebooting = "rebooting"
	EvComplete  = "complete" // every boot of the plan is done
	EvArm       = "arm"      // campaign arm
	EvDisarm    = "disarm"   // campaign disarm, or a step that found it armed
)

// Event is one line of the ledger.
type Event struct {
	Time   time.Time   `json:"time"`
	Event  string      `json:"event"`
	Slot   int         `json:"slot"` // boot of the plan, from 0
	Side   string      `json:"side,omitempty"`
	BootID string      `json:"boot_id,omitempty"`
	Kernel *env.Kernel `json:"kernel,omitempty"`
	// Begin is when the step started (before settling). The cost of a
	// boot is measured from the previous reboot to the start event's
	// Time, written after settling (BootCosts).
	Begin   time.Time     `json:"begin,omitzero"`
	Settle  *SettleRecord `json:"settle,omitempty"`
	Result  string        `json:"result,omitempty"` // relative to the campaign directory
	OK      int           `json:"ok,omitempty"`     // successful repetitions
	Message string        `json:"message,omitempty"`
}

// SettleRecord is what the settle wait saw.
type SettleRecord struct {
	Waited  Duration `json:"waited"`
	Load    float64  `json:"load"`
	PSI     float64  `json:"psi"`
	HasPSI  bool     `json:"has_psi"`
	Settled bool     `json:"settled"`
}

// Append writes e as one line at the end of the ledger of dir
// (internal/jsonl: O_APPEND and fsync; a power cut loses at most the line
// being written, and ReadLedger skips a torn line).
func Append(dir string, e Event) error {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	return jsonl.Append(filepath.Join(dir, LedgerFile), e)
}

// Ledger is the events of a campaign, with the number of torn lines
// skipped (a line cut short by a power cut).
type Ledger struct {
	Events []Event
	Torn   int
}

// ReadLedger reads the ledger of dir; a missing ledger is empty, and a
// line that is neither an event nor a torn one refuses it.
func ReadLedger(dir string) (*Ledger, error) {
	evs, torn, err := jsonl.Read(filepath.Join(dir, LedgerFile), safefile.SelfOrRoot, func(e Event) error {
		if e.Event == "" {
			return errors.New("no event")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &Ledger{Events: evs, Torn: torn}, nil
}

// Done returns the done event of every finished boot of the plan, by slot.
func (l *Ledger) Done() map[int]Event {
	d := map[int]Event{}
	for _, e := range l.Events {
		if e.Event == EvDone {
			d[e.Slot] = e
		}
	}
	return d
}

// Latest returns the last event of each boot of the plan, by slot (the
// campaign-wide events, slot -1, left out).
func (l *Ledger) Latest() map[int]Event {
	d := map[int]Event{}
	for _, e := range l.Events {
		if e.Slot >= 0 {
			d[e.Slot] = e
		}
	}
	return d
}

// Next returns the first boot of a plan of n boots that is not done (n
// when all are).
func (l *Ledger) Next(n int) int {
	d := l.Done()
	for i := 0; i < n; i++ {
		if _, ok := d[i]; !ok {
			return i
		}
	}
	return n
}

// Started reports whether slot has a start event not followed by its done
// (an interrupted step), and the boot it started in.
func (l *Ledger) Started(slot int) (string, bool) {
	id, open := "", false
	for _, e := range l.Events {
		if e.Slot != slot {
			continue
		}
		switch e.Event {
		case EvStart:
			id, open = e.BootID, true
		case EvDone, EvRedo:
			open = false
		}
	}
	return id, open
}

// BootCosts returns the measured cost of each boot: from a reboot event to
// the next start event, which a step writes once the machine settled and
// just before it runs: the reboot, the boot, the step's start and the
// settling (the time a boot costs a campaign).
func (l *Ledger) BootCosts() []time.Duration {
	var out []time.Duration
	var reboot time.Time
	for _, e := range l.Events {
		switch e.Event {
		case EvReboot:
			reboot = e.Time
		case EvStart:
			if !reboot.IsZero() && e.Time.After(reboot) {
				out = append(out, e.Time.Sub(reboot))
			}
			reboot = time.Time{}
		}
	}
	return out
}
