package campaign

import (
	"slices"
	"testing"
	"time"
)

// TestBootCostsIncludeSettling: the cost of a boot runs from the reboot
// event to the start event, written after settling; before, it ended at
// the step's begin (before settling), so a boot that settled for 30 s
// was said to cost 10 s.
func TestBootCostsIncludeSettling(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	l := &Ledger{Events: []Event{
		{Time: t0.Add(-time.Minute), Event: EvStart, Slot: 0, Begin: t0.Add(-70 * time.Second)},
		{Time: t0, Event: EvReboot, Slot: 1},
		{Time: t0.Add(40 * time.Second), Event: EvStart, Slot: 1, Begin: t0.Add(10 * time.Second),
			Settle: &SettleRecord{Waited: Duration(30 * time.Second), Settled: true}},
		{Time: t0.Add(50 * time.Second), Event: EvDone, Slot: 1},
		{Time: t0.Add(60 * time.Second), Event: EvReboot, Slot: 2},
		{Time: t0.Add(65 * time.Second), Event: EvStart, Slot: 2, Begin: t0.Add(63 * time.Second)},
	}}
	got := l.BootCosts()
	if want := []time.Duration{40 * time.Second, 5 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("boot costs %v, want %v", got, want)
	}
}
