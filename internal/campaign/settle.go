package campaign

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"contend/internal/env"
)

// settlePoll is how often settle looks at the load and the pressure.
const settlePoll = 2 * time.Second

// settle waits for the machine to settle after a boot (see Settle) and
// returns what it saw. Not settling within Max is recorded, not an error.
func settle(ctx context.Context, s Settle, log io.Writer) (SettleRecord, error) {
	start := time.Now()
	rec := SettleRecord{}
	wait := func(d time.Duration) error {
		if d <= 0 {
			return nil
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return nil
		}
	}
	if err := wait(time.Duration(s.Min)); err != nil {
		return rec, err
	}
	for {
		rec.Load = env.LoadAvg()
		rec.PSI, rec.HasPSI = cpuPressure()
		rec.Settled = rec.Load <= s.Load && (!rec.HasPSI || rec.PSI <= s.PSI)
		rec.Waited = Duration(time.Since(start).Round(time.Millisecond))
		if rec.Settled || time.Since(start) >= time.Duration(s.Max) {
			break
		}
		if err := wait(settlePoll); err != nil {
			return rec, err
		}
	}
	if rec.Settled {
		fmt.Fprintf(log, "settled after %v: load %.2f, cpu pressure %s\n", time.Duration(rec.Waited), rec.Load, psiText(rec))
	} else {
		fmt.Fprintf(log, "not settled after %v (load %.2f, cpu pressure %s): running anyway, recorded in the ledger\n", time.Duration(rec.Waited), rec.Load, psiText(rec))
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
