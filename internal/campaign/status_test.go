package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// statusPlan is a plan of four boots ABBA for WriteStatus.
func statusPlan() *Plan {
	return &Plan{
		Sides:   [2]Side{{Label: "A", Expect: Expect{Release: "6.1"}}, {Label: "B", Expect: Expect{Release: "6.2", Cmdline: "quiet"}}},
		Order:   "ABBA",
		Command: []string{"run", "mutex", "-n", "3"},
	}
}

// TestWriteStatus: each state of a boot has its line, the next boot its
// arrow, and the tail says the arming and the last stop while it holds.
func TestWriteStatus(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name   string
		events []Event
		armed  bool
		torn   int
		want   string
	}{
		{"fresh", nil, false, 0, `campaign D: 0 of 4 boots done (order ABBA)
  A: release 6.1
  B: release 6.2, cmdline has quiet
  each boot: contend run mutex -n 3
  -> boot 1  A  to do
     boot 2  B  to do
     boot 3  B  to do
     boot 4  A  to do
not armed: no step reboots ('contend campaign arm' to allow it)
`},
		{"states", []Event{
			{Event: EvStart, Slot: 0, BootID: "0123456789ab"},
			{Event: EvDone, Slot: 0, BootID: "0123456789ab", OK: 1, Result: "boots/01-A.json"},
			{Event: EvReboot, Slot: 1, BootID: "0123456789ab"},
			{Event: EvStart, Slot: 1, BootID: "ffffeeeeddd"},
			{Event: EvFailed, Slot: 2, BootID: "aaaabbbbcccc", Time: t0, Message: "side B: exit status 1"},
		}, true, 2, `campaign D: 1 of 4 boots done (order ABBA)
  A: release 6.1
  B: release 6.2, cmdline has quiet
  each boot: contend run mutex -n 3
     boot 1  A  done in boot 01234567, 1 run, boots/01-A.json
  -> boot 2  B  interrupted (started in boot ffffeeee): will be redone
     boot 3  B  stopped (failed in boot aaaabbbb)
     boot 4  A  to do
armed: the step reboots after each boot
last stop (2026-12-01T10:00:00Z): side B: exit status 1
ledger: 2 unreadable lines ignored (written during a power cut)
`},
		{"rebooting", []Event{
			{Event: EvStart, Slot: 0, BootID: "b1"},
			{Event: EvDone, Slot: 0, BootID: "b1", OK: 3, Result: "boots/01-A.json"},
			{Event: EvMismatch, Slot: 1, BootID: "b2", Message: "wrong kernel"},
			{Event: EvStart, Slot: 1, BootID: "b3"},
			{Event: EvRebooting, Slot: 2, BootID: "b3"},
		}, false, 0, `campaign D: 1 of 4 boots done (order ABBA)
  A: release 6.1
  B: release 6.2, cmdline has quiet
  each boot: contend run mutex -n 3
     boot 1  A  done in boot b1, 3 runs, boots/01-A.json
  -> boot 2  B  interrupted (started in boot b3): will be redone
     boot 3  B  to do: the step of boot b3 rebooted into it (the reboot was under way when that step ended)
     boot 4  A  to do
not armed: no step reboots ('contend campaign arm' to allow it)
`},
		{"complete", []Event{
			{Event: EvFailed, Slot: 0, BootID: "b0", Message: "x"},
			{Event: EvStart, Slot: 0, BootID: "b1"}, {Event: EvDone, Slot: 0, BootID: "b1", OK: 2, Result: "r1"},
			{Event: EvDone, Slot: 1, BootID: "b2", OK: 2, Result: "r2"},
			{Event: EvDone, Slot: 2, BootID: "b3", OK: 2, Result: "r3"},
			{Event: EvDone, Slot: 3, BootID: "b4", OK: 2, Result: "r4"},
			{Event: EvFailed, Slot: -1, Message: "late"},
		}, true, 0, `campaign D: 4 of 4 boots done (order ABBA)
  A: release 6.1
  B: release 6.2, cmdline has quiet
  each boot: contend run mutex -n 3
     boot 1  A  done in boot b1, 2 runs, r1
     boot 2  B  done in boot b2, 2 runs, r2
     boot 3  B  done in boot b3, 2 runs, r3
     boot 4  A  done in boot b4, 2 runs, r4
complete: all 4 boots done; 'contend campaign report D'
still armed, but no step reboots a complete campaign ('contend campaign disarm D' to tidy up)
`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.armed {
				if err := os.WriteFile(filepath.Join(dir, ArmedFile), nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var b strings.Builder
			WriteStatus(&b, dir, statusPlan(), &Ledger{Events: c.events, Torn: c.torn})
			if got := strings.ReplaceAll(b.String(), dir, "D"); got != c.want {
				t.Errorf("status:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// TestLastStop: a stop holds until a step begins, finishes, redoes or
// reboots after it.
func TestLastStop(t *testing.T) {
	stop := Event{Event: EvMismatch, Slot: 1, Message: "m"}
	for _, c := range []struct {
		events []Event
		want   bool
	}{
		{nil, false},
		{[]Event{stop}, true},
		{[]Event{stop, {Event: EvArm}, {Event: EvDisarm}}, true},
		{[]Event{stop, {Event: EvStart}}, false},
		{[]Event{stop, {Event: EvRedo}}, false},
		{[]Event{stop, {Event: EvReboot}}, false},
		{[]Event{{Event: EvDone}, {Event: EvFailed, Message: "f"}}, true},
	} {
		e, ok := (&Ledger{Events: c.events}).LastStop()
		if ok != c.want || (ok && e.Message == "") {
			t.Errorf("LastStop(%v) = %v, %v; want %v", c.events, e, ok, c.want)
		}
	}
	if ShortID("0123456789") != "01234567" || ShortID("abc") != "abc" {
		t.Errorf("ShortID: %q %q", ShortID("0123456789"), ShortID("abc"))
	}
}
