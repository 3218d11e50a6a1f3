package workload

import (
	"errors"
	"strings"
	"testing"

	"contend/internal/results"
)

// TestWriteOriginal: the successful measured repetitions only, rebuilt
// for a workload (faultme: its map= and time = lines, the parameters
// filled with their defaults), as captured for a program; a workload
// without an original format is a usage error naming the flag.
func TestWriteOriginal(t *testing.T) {
	rep := func(status string, warmup bool, ns float64, out string) results.Rep {
		return results.Rep{Status: status, Warmup: warmup, Output: out, Metrics: results.ValuesOf(map[string]float64{"time": ns})}
	}
	reps := []results.Rep{
		rep(results.StatusOK, true, 1e6, "warm\n"), rep(results.StatusOK, false, 2.5e6, "one\n"),
		rep(results.StatusFailed, false, 0, "failed\n"), rep(results.StatusOK, false, 3e6, "two\n"),
	}
	f := &results.File{Workload: "faultme", Configs: []results.Config{{Params: []results.Param{{Name: "mem", Value: "1048576"}}}}, Reps: reps}
	var b strings.Builder
	if err := WriteOriginal(&b, f); err != nil {
		t.Fatal(err)
	}
	if want := "map=1048576\ntime = 2500 usecs\nmap=1048576\ntime = 3000 usecs\n"; b.String() != want {
		t.Errorf("faultme:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	f.Workload = "exec:prog"
	if err := WriteOriginal(&b, f); err != nil || b.String() != "one\ntwo\n" {
		t.Errorf("exec: %q, %v", b.String(), err)
	}
	f.Workload = "nosuch"
	var ue *UsageError
	if err := WriteOriginal(&b, f); !errors.As(err, &ue) || err.Error() != `--format original: workload "nosuch" has no original output format` {
		t.Errorf("nosuch: %v", err)
	}
	f.Workload, f.Configs[0].Params[0].Value = "faultme", "lots"
	if err := WriteOriginal(&b, f); err == nil || !strings.Contains(err.Error(), "parameters of configuration 1") {
		t.Errorf("edited parameters: %v", err)
	}
}
