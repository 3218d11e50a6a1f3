package evidence

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
)

// bpfAllowed tells why contend's BPF programs cannot run here, or nil:
// not root (CAP_BPF and CAP_PERFMON, in practice root), the kernel's
// lockdown in confidentiality mode (no reads of kernel memory), or
// needBTF and no /sys/kernel/btf/vmlinux (the lock program's CO-RE
// relocations need the kernel's BTF).
func bpfAllowed(needBTF bool) error {
	if injected("no-bpf") {
		return fmt.Errorf("BPF not allowed (injected)")
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("BPF needs root (CAP_BPF and CAP_PERFMON)")
	}
	if b, err := os.ReadFile("/sys/kernel/security/lockdown"); err == nil && strings.Contains(string(b), "[confidentiality]") {
		return fmt.Errorf("kernel lockdown (confidentiality) forbids BPF tracing")
	}
	if needBTF {
		if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err != nil {
			return fmt.Errorf("no kernel BTF (/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF)")
		}
	}
	return nil
}

// bpfLoadError is err of loading a BPF collection in one line (a
// verifier's log is many).
func bpfLoadError(err error) error {
	var ve *ebpf.VerifierError
	if errors.As(err, &ve) {
		return fmt.Errorf("the kernel refused contend's BPF program: %s", firstLineOr(ve.Error(), err))
	}
	return fmt.Errorf("cannot load contend's BPF program: %s", firstLineOr(err.Error(), err))
}

// tracepoint is a program to attach to group/name.
type tracepoint struct {
	group, name string
	prog        *ebpf.Program
}

// attach attaches every tracepoint program, or none (the error says
// which failed). The links are file descriptors of this process: they
// are closed, and the programs detached, when it ends, however it ends.
func attach(tps []tracepoint) ([]link.Link, error) {
	var ls []link.Link
	for _, tp := range tps {
		l, err := link.Tracepoint(tp.group, tp.name, tp.prog, nil)
		if err != nil {
			detach(ls)
			return nil, fmt.Errorf("cannot attach to tracepoint %s:%s: %v", tp.group, tp.name, err)
		}
		ls = append(ls, l)
	}
	return ls, nil
}

func detach(ls []link.Link) {
	for _, l := range ls {
		l.Close()
	}
}

// clearMap deletes every entry of a hash or stack map (an array's
// entries, per-CPU ones too, are set to zero).
func clearMap(m *ebpf.Map) {
	switch m.Type() {
	case ebpf.Array:
		zero := make([]byte, m.ValueSize())
		for i := uint32(0); i < m.MaxEntries(); i++ {
			m.Put(i, zero)
		}
		return
	case ebpf.PerCPUArray:
		zero := make([]uint64, ebpf.MustPossibleCPU())
		for i := uint32(0); i < m.MaxEntries(); i++ {
			m.Put(i, zero)
		}
		return
	}
	key := make([]byte, m.KeySize())
	var keys [][]byte
	it := m.Iterate()
	val := make([]byte, m.ValueSize())
	for it.Next(&key, &val) {
		keys = append(keys, append([]byte{}, key...))
	}
	for _, k := range keys {
		m.Delete(k)
	}
}

// seed puts pid in the (empty) tgid set. The maps are emptied by Stop,
// after it has read them, not here: the child is held stopped now, and
// emptying a stack map of thousands of entries takes milliseconds.
func seed(tgids *ebpf.Map, pid int) error {
	if err := tgids.Put(uint32(pid), uint8(1)); err != nil {
		return fmt.Errorf("cannot put the child's pid in the BPF set: %v", err)
	}
	return nil
}

// clearMaps empties every map (after a repetition).
func clearMaps(maps ...*ebpf.Map) {
	for _, m := range maps {
		clearMap(m)
	}
}

// lostCount reads the lost[0] counter: the events a program could not
// record, counted on each CPU apart (a counter shared by the CPUs would
// bounce between them just when a full map makes every event fail).
func lostCount(m *ebpf.Map) (uint64, error) {
	n, err := perCPUSum(m, 0)
	if err != nil {
		return 0, fmt.Errorf("cannot read the BPF count of lost events: %v", err)
	}
	return n, nil
}

// perCPUSum is the sum over the CPUs of entry i of a per-CPU array of
// 64-bit counters.
func perCPUSum(m *ebpf.Map, i uint32) (uint64, error) {
	var vs []uint64
	if err := m.Lookup(i, &vs); err != nil {
		return 0, err
	}
	var sum uint64
	for _, v := range vs {
		sum += v
	}
	return sum, nil
}
