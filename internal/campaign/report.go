package campaign

// The report: the boot-level comparison of a campaign ('contend campaign
// report DIR', 'contend compare DIR') from its plan, its ledger and the
// result files of its finished boots.

import (
	"contend/internal/comparison"
	"contend/internal/results"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"time"
)

// ReportRefusal is an error of the user's campaign (no plan, a side with no
// finished boot, sides that cannot be compared): the command's usage
// error, its text as it is.
type ReportRefusal struct{ Err error }

func (r *ReportRefusal) Error() string { return r.Err.Error() }
func (r *ReportRefusal) Unwrap() error { return r.Err }

// Report is a campaign's comparison and what drew it.
type Report struct {
	*comparison.Comparison
	// Files are the result files of the finished boots in the order
	// of the plan, Order their sides' letters (the --boots of
	// contend-plot).
	Files []string
	Order string
}

// BuildReport returns the comparison of the campaign in dir with the boot as
// the unit. opt.BootCost, when zero, is the median boot cost measured
// from the ledger; opt.BootInfo is filled from the ledger.
func BuildReport(dir string, opt comparison.Options) (*Report, error) {
	p, err := ReadPlan(dir)
	if err != nil {
		return nil, &ReportRefusal{err}
	}
	led, err := ReadLedger(dir)
	if err != nil {
		return nil, err
	}
	sides, out, err := finished(dir, p, led)
	if err != nil {
		return nil, err
	}
	if opt.BootCost == 0 {
		if costs := led.BootCosts(); len(costs) > 0 {
			slices.Sort(costs)
			opt.BootCost, opt.BootCostMeasured = costs[len(costs)/2], true
		}
	}
	opt.BootInfo = BootInfo(led)
	out.Comparison, err = comparison.Build(sides[:], opt)
	if errors.Is(err, comparison.ErrIncompatible) {
		return nil, &ReportRefusal{err}
	}
	return out, err
}

// finished returns the two sides of the campaign's finished boots, a
// part per boot in the order of the plan, and their files.
func finished(dir string, p *Plan, led *Ledger) ([2]comparison.Side, *Report, error) {
	var sides [2]comparison.Side
	out := &Report{}
	done := led.Done()
	slots := make([]int, 0, len(done))
	for s := range done {
		slots = append(slots, s)
	}
	sort.Ints(slots)
	for _, s := range slots {
		e := done[s]
		path := filepath.Join(dir, e.Result)
		f, err := results.Read(path)
		if err != nil {
			return sides, nil, err
		}
		i := 0
		if p.Order[s] == 'B' {
			i = 1
		}
		sides[i].Parts = append(sides[i].Parts, comparison.Part{Name: e.Result, File: f, Configs: []int{0}})
		out.Files = append(out.Files, path)
		out.Order += string(p.Order[s])
	}
	for i, name := range []string{"A", "B"} {
		if len(sides[i].Parts) == 0 {
			return sides, nil, &ReportRefusal{fmt.Errorf("campaign %s: no finished boot of side %s yet: nothing to compare ('contend campaign status %s')", dir, name, dir)}
		}
	}
	sides[0].Name, sides[1].Name = "A: "+p.Sides[0].Expect.String(), "B: "+p.Sides[1].Expect.String()
	return sides, out, nil
}

// BootInfo returns what the ledger knows of each finished boot, by boot
// id: its slot and the settling of its step (the last start event of the
// slot in that boot).
func BootInfo(led *Ledger) map[string]comparison.BootInfo {
	out := map[string]comparison.BootInfo{}
	done := led.Done()
	for _, e := range led.Events {
		if e.Event != EvStart || e.BootID == "" {
			continue
		}
		if d, ok := done[e.Slot]; !ok || d.BootID != e.BootID {
			continue
		}
		bi := comparison.BootInfo{Slot: e.Slot}
		if e.Settle != nil {
			bi.Settle, bi.SettleLoad, bi.HasSettle = time.Duration(e.Settle.Waited), e.Settle.Load, true
		}
		out[e.BootID] = bi
	}
	return out
}
