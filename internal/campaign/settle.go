package campaign

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// settlePoll is how often settle looks at the load and the pressure.
const settlePoll = 2 * time.Second

// settle waits for the machine to settle after a boot (see Settle) and
// returns what it saw. Not settling within Max is recorded, not an error.
func (s *step) settle(ctx context.Context) (SettleRecord, error) {
	set, o := s.p.Settle, s.o
	start := o.Now()
	since := func() time.Duration { return o.Now().Sub(start) }
	rec := SettleRecord{}
	if err := o.Sleep(ctx, time.Duration(set.Min)); err != nil {
		return rec, err
	}
	for {
		rec.Load = o.Load()
		rec.PSI, rec.HasPSI = o.Pressure()
		rec.Settled = rec.Load <= set.Load && (!rec.HasPSI || rec.PSI <= set.PSI)
		rec.Waited = Duration(since().Round(time.Millisecond))
		if rec.Settled || since() >= time.Duration(set.Max) {
			break
		}
		if err := o.Sleep(ctx, settlePoll); err != nil {
			return rec, err
		}
	}
	if rec.Settled {
		fmt.Fprintf(o.Log, "settled after %v: load %.2f, cpu pressure %s\n", time.Duration(rec.Waited), rec.Load, psiText(rec))
	} else {
		fmt.Fprintf(o.Log, "not settled after %v (load %.2f, cpu pressure %s): running anyway, recorded in the ledger\n", time.Duration(rec.Waited), rec.Load, psiText(rec))
	}
	return rec, nil
}

func psiText(r SettleRecord) string {
	if !r.HasPSI {
		return "not available"
	}
	return fmt.Sprintf("%.2f%%", r.PSI)
}

// cpuPressure returns the "some avg10" of /proc/pressure/cpu.
func cpuPressure() (float64, bool) {
	b, err := os.ReadFile("/proc/pressure/cpu")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "some ") {
			continue
		}
		for _, kv := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(kv, "avg10="); ok {
				x, err := strconv.ParseFloat(v, 64)
				return x, err == nil
			}
		}
	}
	return 0, false
}
