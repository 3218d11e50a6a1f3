package workload

import (
	"slices"
	"strings"
	"testing"

	"contend/internal/limits"
)

// TestDecimalSizeNotes: a size with a decimal unit gets one note, with
// the bytes it means (1GB = 10^9 = 953.67MiB) and the binary spelling;
// binary units and other parameters none.
func TestDecimalSizeNotes(t *testing.T) {
	w, _ := Lookup("faultme")
	notes := w.DecimalSizeNotes(map[string]string{"mem": " 1GB", "stride": "4KiB", "threads": "4"})
	want := []string{"--mem 1GB is decimal: 1000000000 bytes (953.67MiB); for 1073741824 bytes write 1GiB or 1G (K, M, G, T are binary here)"}
	if !slices.Equal(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
	if notes := w.DecimalSizeNotes(map[string]string{"mem": "1GiB", "stride": "4K"}); len(notes) != 0 {
		t.Errorf("binary sizes: %q", notes)
	}
}

// TestResolveOn: values, the notes, and the machine check's refusal (a
// thread count above a fake threads-max).
func TestResolveOn(t *testing.T) {
	w, _ := Lookup("faultme")
	m := limits.Machine{CPUs: 2, ThreadsMax: 100000, PidMax: 100000, StackMin: 16384, ThreadStack: 8 << 20}
	v, warns, err := w.ResolveOn(map[string]string{"threads": "3", "mem": "1MB"}, m)
	if err != nil || v.Int("threads") != 3 || len(warns) == 0 || !strings.HasPrefix(warns[0], "--mem 1MB is decimal: 1000000 bytes") {
		t.Errorf("%v %v %q", err, v, warns)
	}
	if _, _, err := w.ResolveOn(map[string]string{"threads": "0"}, m); err == nil || !strings.Contains(err.Error(), "--threads: 0 is out of range") {
		t.Errorf("threads 0: %v", err)
	}
	m.ThreadsMax = 10
	if _, _, err := w.ResolveOn(map[string]string{"threads": "50", "mem": "1MiB"}, m); err == nil || !strings.Contains(err.Error(), "threads-max") {
		t.Errorf("50 threads over threads-max 10: %v", err)
	}
}

// TestConcurrency: the first parameter counted in threads, tasks or
// processes.
func TestConcurrency(t *testing.T) {
	for _, c := range []struct {
		name  string
		given map[string]string
		want  int64
	}{
		{"faultme", map[string]string{"threads": "7"}, 7},
		{"osim", map[string]string{"tasks": "12"}, 12},
	} {
		w, _ := Lookup(c.name)
		v, err := w.Resolve(c.given)
		if err != nil {
			t.Fatal(err)
		}
		if n := w.Concurrency(v); n != c.want {
			t.Errorf("%s: %d, want %d", c.name, n, c.want)
		}
	}
}
