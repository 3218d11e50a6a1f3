package cpuset

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParseFormat(t *testing.T) {
	for _, c := range []struct {
		in, out string
		n       int
	}{
		{"0-2,5", "0-2,5", 4},
		{"0\n", "0", 1},
		{"5,0-1", "0-1,5", 3},
		{"0-4095", "0-4095", 4096},
		{"1023-1025,8191", "1023-1025,8191", 4},
		{"", "", 0},
	} {
		cpus, err := Parse(c.in)
		if err != nil || len(cpus) != c.n || Format(cpus) != c.out {
			t.Errorf("Parse(%q) = %d CPUs, %q, %v; want %d, %q", c.in, len(cpus), Format(cpus), err, c.n, c.out)
		}
	}
	for _, bad := range []string{"a", "3-1", "-1", "0-", "1,,2", "0-1048576"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

// TestFromMaskBeyond1024 reads a mask of 4096 CPUs as the kernel writes
// it: CPUs past unix.CPUSet's 1024 are kept.
func TestFromMaskBeyond1024(t *testing.T) {
	mask := make([]uint64, 64)
	for _, c := range []int{0, 63, 64, 1023, 1024, 2049, 4095} {
		mask[c/64] |= 1 << (c % 64)
	}
	if got, want := fromMask(mask), []int{0, 63, 64, 1023, 1024, 2049, 4095}; !slices.Equal(got, want) {
		t.Errorf("fromMask = %v, want %v", got, want)
	}
}

// TestAffinity compares Affinity with unix.SchedGetaffinity (this machine
// has fewer than 1024 CPUs), then on a thread restricted to one CPU.
func TestAffinity(t *testing.T) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Skip(err)
	}
	got, err := Affinity(0)
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for c := 0; c < 1024; c++ {
		if set.IsSet(c) {
			want = append(want, c)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Affinity(0) = %v, want %v", got, want)
	}
	last := want[len(want)-1]
	done := make(chan []int)
	go func() {
		// The restricted thread is not given back to the runtime.
		runtime.LockOSThread()
		var one unix.CPUSet
		one.Set(last)
		if err := unix.SchedSetaffinity(0, &one); err != nil {
			done <- nil
			return
		}
		l, _ := Affinity(0)
		done <- l
	}()
	if l := <-done; !slices.Equal(l, []int{last}) {
		t.Errorf("on a thread restricted to CPU %d: Affinity(0) = %v", last, l)
	}
	if _, err := Affinity(-5); err == nil {
		t.Error("Affinity(-5) gave no error")
	}
}

func TestOnlinePossible(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "sys/devices/system/cpu")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "online"), []byte("0-3,8\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "possible"), []byte("0-2047\n"), 0o644)
	on, err1 := Online(root)
	pos, err2 := Possible(root)
	if err1 != nil || err2 != nil || Format(on) != "0-3,8" || len(pos) != 2048 {
		t.Errorf("online %v (%v), possible %d CPUs (%v); want 0-3,8 and 2048", on, err1, len(pos), err2)
	}
	os.WriteFile(filepath.Join(dir, "online"), []byte("x\n"), 0o644)
	if _, err := Online(root); err == nil {
		t.Error("an online list of x was accepted")
	}
	if _, err := Possible(t.TempDir()); err == nil {
		t.Error("a missing possible file gave no error")
	}
}
