// Package cpuset reads this machine's sets of CPUs, of any size: the
// online and possible CPUs (/sys/devices/system/cpu) and a task's
// affinity mask (sched_getaffinity with a mask grown to the kernel's, where
// unix.CPUSet stops at CPU 1023), and reads and writes kernel CPU lists
// ("0-3,6").
package cpuset

import (
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// MaxCPUs is the largest mask Affinity grows to, in CPUs (the kernel's
// NR_CPUS is at most 8192 today).
const MaxCPUs = 1 << 20

// Affinity returns the CPUs task pid (0: the calling thread) may run on,
// in order. Its mask starts at 1024 CPUs and doubles while the kernel
// refuses it as shorter than its nr_cpu_ids (EINVAL).
func Affinity(pid int) ([]int, error) {
	for n := 1024; n <= MaxCPUs; n *= 2 {
		mask := make([]uint64, n/64)
		r, _, e := unix.RawSyscall(unix.SYS_SCHED_GETAFFINITY, uintptr(pid), uintptr(len(mask)*8), uintptr(unsafe.Pointer(&mask[0])))
		if e == unix.EINVAL {
			continue
		}
		if e != 0 {
			return nil, fmt.Errorf("sched_getaffinity of task %d: %w", pid, e)
		}
		// r is the bytes the kernel wrote (its cpumask size).
		return fromMask(mask[:min(len(mask), (int(r)+7)/8)]), nil
	}
	return nil, fmt.Errorf("sched_getaffinity of task %d: the kernel refused a mask of %d CPUs", pid, MaxCPUs)
}

// fromMask lists the bits set in mask (bit i of word w: CPU 64w+i).
func fromMask(mask []uint64) []int {
	var out []int
	for w, x := range mask {
		for x != 0 {
			b := bits.TrailingZeros64(x)
			out = append(out, 64*w+b)
			x &^= 1 << b
		}
	}
	return out
}

// Online returns the online CPUs of the machine under root ("/" or a
// fake tree), from sys/devices/system/cpu/online.
func Online(root string) ([]int, error) {
	return readList(root, "sys/devices/system/cpu/online")
}

// Possible returns the CPUs the kernel of the machine under root may ever
// bring online (sys/devices/system/cpu/possible; hotplug, a VM's maxcpus).
func Possible(root string) ([]int, error) {
	return readList(root, "sys/devices/system/cpu/possible")
}

func readList(root, rel string) ([]int, error) {
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return nil, err
	}
	l, err := Parse(string(b))
	if err != nil {
		return nil, fmt.Errorf("/%s: %w", rel, err)
	}
	if len(l) == 0 {
		return nil, errors.New("/" + rel + " is empty")
	}
	return l, nil
}

// Parse parses a kernel CPU list such as "0-3,6" into its CPUs in order.
func Parse(s string) ([]int, error) {
	var out []int
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 || a >= MaxCPUs {
			return nil, fmt.Errorf("%q is not a CPU list such as 1-3,5", s)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b >= MaxCPUs {
				return nil, fmt.Errorf("%q is not a CPU list such as 1-3,5", s)
			}
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	sort.Ints(out)
	return out, nil
}

// Format writes cpus (in order) as a kernel CPU list ("0-3,6").
func Format(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(cpus[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
