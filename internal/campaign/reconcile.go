package campaign

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"contend/internal/env"
	"contend/internal/results"
)

// reconcile makes the ledger agree with the result files on disk before a
// step picks its boot: the files are facts, the ledger may have lost lines
// (emptied, truncated, restored from an old copy). While the next boot to
// run (led.Next) has no start event in the ledger but its result file
// exists, that file is either a finished measurement of that boot (a
// complete run with the label the step gives that boot, at least one
// successful repetition: what a step records as done), recorded as done
// with the boot id of its repetitions, or anything else, set aside as
// BOOT.unrecorded-N.jsonl (.json for a file an older contend named so)
// with a redo event (kept, not analysed) so that the boot is measured
// again. It returns the ledger read again and the next boot. bootID is
// the running boot's, which a redo event names. An open start (an
// interrupted step) is left to Step's redo.
func reconcile(dir string, p *Plan, led *Ledger, bootID string, log io.Writer) (*Ledger, int, error) {
	for {
		slot := led.Next(len(p.Order))
		if slot == len(p.Order) {
			return led, slot, nil
		}
		if started(led, slot) {
			return led, slot, nil
		}
		label := p.Order[slot]
		result, ok := resultOnDisk(dir, slot, label)
		if !ok {
			return led, slot, nil
		}
		path := filepath.Join(dir, result)
		ev, why := recovered(slot, label, path)
		if why == "" {
			ev.Result = result
			ev.Message = fmt.Sprintf("the ledger had no record of boot %d, but %s is its complete result (%d ok, boot %s): recorded as done", slot+1, result, ev.OK, short(ev.BootID))
		} else {
			aside := asideName(result, "unrecorded", len(led.Events))
			if err := os.Rename(path, filepath.Join(dir, aside)); err != nil {
				return nil, 0, fmt.Errorf("boot %d: the ledger has no record of %s (%s) and it cannot be set aside: %v; move it away by hand and run the step again", slot+1, result, why, err)
			}
			syncDir(filepath.Join(dir, BootsDir))
			ev = Event{Event: EvRedo, Slot: slot, Side: string(label), BootID: bootID, Result: aside,
				Message: fmt.Sprintf("the ledger had no record of boot %d, and %s is not a finished measurement of it (%s): set aside as %s, the boot is measured again", slot+1, result, why, aside)}
		}
		fmt.Fprintln(log, ev.Message)
		if err := Append(dir, ev); err != nil {
			return nil, 0, err
		}
		var err error
		if led, err = ReadLedger(dir); err != nil {
			return nil, 0, err
		}
		if ev.Event == EvRedo {
			return led, slot, nil
		}
	}
}

// started tells whether slot has a start event in the ledger.
func started(led *Ledger, slot int) bool {
	for _, e := range led.Events {
		if e.Slot == slot && e.Event == EvStart {
			return true
		}
	}
	return false
}

// recovered returns the done event that the result file at path stands
// for as boot slot of side label, or why it does not.
func recovered(slot int, label byte, path string) (Event, string) {
	f, err := results.Read(path, results.WithoutOutputs)
	if err != nil {
		return Event{}, err.Error()
	}
	if want := fmt.Sprintf("%c boot %d", label, slot+1); f.Label != want {
		return Event{}, fmt.Sprintf("its label is %q, not %q", f.Label, want)
	}
	if !f.Complete {
		return Event{}, "its run did not finish"
	}
	ok := f.Counts(-1)[results.StatusOK]
	if ok == 0 {
		return Event{}, "no successful repetition"
	}
	// The label is the step's own (RunArgs): the step checked the kernel
	// before it ran the command.
	k := env.Kernel{Release: f.Env["kernel.release"], Version: f.Env["kernel.version"], Cmdline: f.Env["kernel.cmdline"]}
	for _, r := range f.Reps {
		if r.BootID != "" {
			k.BootID = r.BootID
			break
		}
	}
	return Event{Event: EvDone, Slot: slot, Side: string(label), BootID: k.BootID, Kernel: &k, OK: ok}, ""
}
