package evidence

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// TestSystemCPUTimeByKind: the system collector keeps /proc/stat's CPU
// time by kind (user ... steal) in nanoseconds at the auxiliary vector's
// USER_HZ, and /proc/softirqs summed over CPUs, as deltas; a kernel's
// /proc/stat without steal declares no steal.
func TestSystemCPUTimeByKind(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "self"), 0o755); err != nil {
		t.Fatal(err)
	}
	auxv := make([]byte, 48)
	binary.NativeEndian.PutUint64(auxv[0:], 6) // AT_PAGESZ
	binary.NativeEndian.PutUint64(auxv[8:], 4096)
	binary.NativeEndian.PutUint64(auxv[16:], 17) // AT_CLKTCK
	binary.NativeEndian.PutUint64(auxv[24:], 250)
	write("self/auxv", string(auxv))
	const softHead = "                    CPU0       CPU1\n"
	write("stat", "cpu  1000 10 500 9000 20 0 30 40 5 0\ncpu0 500 5 250 4500 10 0 15 20 2 0\nintr 1 2\n")
	write("softirqs", softHead+"          HI:          0          0\n       TIMER:        100        200\n         RCU:          7          8\n")
	t.Setenv("CONTEND_TEST_PROC", root)
	s, err := openSystem()
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]string{}
	for _, m := range s.Metrics() {
		declared[m.Name] = m.Unit
	}
	for _, want := range []string{"k.sys.cpu_user", "k.sys.cpu_system", "k.sys.cpu_irq", "k.sys.cpu_softirq", "k.sys.cpu_steal", "k.sys.softirq_timer", "k.sys.softirq_rcu"} {
		if declared[want] == "" {
			t.Errorf("%s not declared: %v", want, declared)
		}
	}
	if declared["k.sys.cpu_steal"] != "ns" || declared["k.sys.softirq_timer"] != "count" {
		t.Errorf("units: %v", declared)
	}
	if _, ok := declared["k.sys.softirq_net_rx"]; ok {
		t.Errorf("net_rx declared, but this /proc/softirqs has no such row")
	}
	if err := s.preStart(); err != nil {
		t.Fatal(err)
	}
	write("stat", "cpu  1250 10 525 9100 20 1 33 90 5 0\ncpu0 500 5 250 4500 10 0 15 20 2 0\n")
	write("softirqs", softHead+"          HI:          0          0\n       TIMER:        150        260\n         RCU:          7         18\n")
	m, _, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	const tick = 1e9 / 250 // ns per USER_HZ tick at AT_CLKTCK 250
	want := map[string]float64{
		"k.sys.cpu_user": 250 * tick, "k.sys.cpu_nice": 0, "k.sys.cpu_system": 25 * tick, "k.sys.cpu_idle": 100 * tick,
		"k.sys.cpu_irq": 1 * tick, "k.sys.cpu_softirq": 3 * tick, "k.sys.cpu_steal": 50 * tick,
		"k.sys.softirq_timer": 110, "k.sys.softirq_rcu": 10, "k.sys.softirq_hi": 0,
	}
	for k, v := range want {
		if got, ok := m[k]; !ok || got != v {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}

	// A kernel before steal (2.6.11) has seven columns: no steal declared.
	write("stat", "cpu  1000 10 500 9000 20 0 30\n")
	s2, err := openSystem()
	if err != nil {
		t.Fatal(err)
	}
	for _, mt := range s2.Metrics() {
		if mt.Name == "k.sys.cpu_steal" {
			t.Error("k.sys.cpu_steal declared from a /proc/stat without its column")
		}
	}
}

// TestClockTickFallsBack: without a readable auxiliary vector USER_HZ is
// taken as 100, the value every Linux architecture exports.
func TestClockTickFallsBack(t *testing.T) {
	if got := clockTick(t.TempDir()); got != 100 {
		t.Errorf("clockTick of an empty proc = %v, want 100", got)
	}
	if got := clockTick("/proc"); got <= 0 {
		t.Errorf("clockTick(/proc) = %v", got)
	}
}
