package evidence

import (
	"bytes"
	"encoding/binary"
	"os"
	"strconv"
	"strings"
)

// cpuKinds are the columns of /proc/stat's "cpu" line kept, in its order:
// the machine's CPU time by kind, summed over CPUs, as deltas over the
// repetition in nanoseconds. The kernel counts them in USER_HZ ticks
// (clockTick), at each timer tick on the CPU the tick lands on: a
// repetition shorter than a few ticks shows whole ticks or none.
var cpuKinds = []struct{ name, better, desc string }{
	{"k.sys.cpu_user", "", "system-wide CPU time in user mode, of every process (guest time included), from /proc/stat; in whole ticks"},
	{"k.sys.cpu_nice", "", "system-wide CPU time in user mode of niced processes, from /proc/stat; in whole ticks"},
	{"k.sys.cpu_system", "", "system-wide CPU time in kernel mode outside interrupts, from /proc/stat; in whole ticks"},
	{"k.sys.cpu_idle", "", "system-wide time the CPUs were idle, from /proc/stat; in whole ticks"},
	{"k.sys.cpu_iowait", "", "system-wide idle time while some task waited for I/O, from /proc/stat; in whole ticks"},
	{"k.sys.cpu_irq", "lower", "system-wide CPU time in hard interrupts, from /proc/stat (0 unless the kernel accounts IRQ time: CONFIG_IRQ_TIME_ACCOUNTING); in whole ticks"},
	{"k.sys.cpu_softirq", "lower", "system-wide CPU time in softirqs, from /proc/stat; in whole ticks"},
	{"k.sys.cpu_steal", "lower", "system-wide time the hypervisor ran something else while this machine's vCPUs wanted to run (steal), from /proc/stat; on a VM the largest source of noise there is; in whole ticks"},
}

// softirqKinds are the rows of /proc/softirqs kept (sum over CPUs, deltas).
var softirqKinds = []struct{ row, name, desc string }{
	{"HI", "k.sys.softirq_hi", "system-wide high-priority tasklet softirqs"},
	{"TIMER", "k.sys.softirq_timer", "system-wide timer-wheel softirqs"},
	{"NET_TX", "k.sys.softirq_net_tx", "system-wide network transmit softirqs"},
	{"NET_RX", "k.sys.softirq_net_rx", "system-wide network receive softirqs"},
	{"BLOCK", "k.sys.softirq_block", "system-wide block-device completion softirqs"},
	{"IRQ_POLL", "k.sys.softirq_irq_poll", "system-wide IRQ-poll softirqs"},
	{"TASKLET", "k.sys.softirq_tasklet", "system-wide tasklet softirqs"},
	{"SCHED", "k.sys.softirq_sched", "system-wide scheduler (load-balancing) softirqs"},
	{"HRTIMER", "k.sys.softirq_hrtimer", "system-wide high-resolution timer softirqs"},
	{"RCU", "k.sys.softirq_rcu", "system-wide RCU callback softirqs"},
}

// clockTick is USER_HZ, the unit of /proc/stat: AT_CLKTCK of the
// auxiliary vector (sysconf(_SC_CLK_TCK)), 100 where it cannot be read.
func clockTick(procRoot string) float64 {
	b, err := os.ReadFile(procRoot + "/self/auxv")
	if err != nil {
		return 100
	}
	const atClkTck = 17
	for len(b) >= 16 {
		k, v := binary.NativeEndian.Uint64(b), binary.NativeEndian.Uint64(b[8:])
		b = b[16:]
		if k == atClkTck && v > 0 {
			return float64(v)
		}
		if k == 0 {
			break
		}
	}
	return 100
}

// readCPUKinds adds /proc/stat's CPU time by kind (nanoseconds) to m.
func readCPUKinds(procRoot string, tick float64, m map[string]float64) {
	b, err := os.ReadFile(procRoot + "/stat")
	if err != nil {
		return
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) == 0 || f[0] != "cpu" {
		return
	}
	for i, k := range cpuKinds {
		if i+1 >= len(f) {
			break // an older kernel without steal
		}
		x, err := strconv.ParseFloat(f[i+1], 64)
		if err != nil {
			return
		}
		m[k.name] = x * 1e9 / tick
	}
}

// readSoftirqs adds /proc/softirqs's counts (summed over CPUs) to m.
func readSoftirqs(procRoot string, m map[string]float64) {
	b, err := os.ReadFile(procRoot + "/softirqs")
	if err != nil {
		return
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 2 {
		return
	}
	ncpu := len(strings.Fields(lines[0]))
	rows := map[string]string{}
	for _, k := range softirqKinds {
		rows[k.row+":"] = k.name
	}
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		name, ok := rows[firstOr(f)]
		if !ok {
			continue
		}
		sum := 0.0
		for i := 1; i < len(f) && i <= ncpu; i++ {
			x, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			sum += x
		}
		m[name] = sum
	}
}

func firstOr(f []string) string {
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
