// Package limits reads the limits of this machine that a configuration can
// run into: threads and processes, SysV semaphores, memory and address
// space. Workloads check their parameters against a Machine before anything
// starts; tests build a Machine by hand to fake a small machine.
package limits

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"contend/bind"
)

// Machine is a snapshot of the limits. A zero field means "unknown" and is
// not checked.
type Machine struct {
	// CPUs is the CPUs this process and its repetitions may run on (the
	// affinity mask's count, runtime.NumCPU): what tasks spread over.
	CPUs int

	// Tasks: the most threads or processes one more task group can have,
	// and where each limit comes from.
	NProc      int64 // RLIMIT_NPROC (soft), per user
	ThreadsMax int64 // kernel.threads-max
	PidMax     int64 // kernel.pid_max
	PidsCgroup int64 // pids.max of this process's cgroup, 0 when unlimited
	Root       bool  // RLIMIT_NPROC does not bind root
	// What exists now, counted against those limits: the tasks
	// (threads) of the machine (/proc/loadavg; pid_max and threads-max
	// count them), of this real user (RLIMIT_NPROC counts them; read
	// only when it binds) and of this cgroup (pids.current).
	TasksNow, UserTasks, PidsCurrent int64
	// MaxMapCount is vm.max_map_count, the mappings one process may
	// have: each thread's stack is two (the stack and its guard page).
	MaxMapCount int64

	// SysV semaphores (kernel.sem): SEMMSL SEMMNS SEMOPM SEMMNI.
	SemMSL, SemMNS, SemOPM, SemMNI int64
	SemVMX                         int64 // largest semaphore value (32767 on Linux)
	SemSets, SemsInUse             int64 // sets and semaphores that exist now (/proc/sysvipc/sem)

	MemTotal, MemAvailable int64 // bytes, /proc/meminfo
	Overcommit             int   // vm.overcommit_memory: 0 heuristic, 1 always, 2 never
	CommitLimit, Committed int64 // bytes, /proc/meminfo
	AddressSpace           int64 // RLIMIT_AS (soft), 0 when unlimited
	// AddressGap is the largest single mapping a process can count on:
	// the largest free range of this process's address space
	// (/proc/self/maps), at most half the user address space since the
	// layout is randomized; 0 when unknown. A larger mapping fails with
	// ENOMEM whatever the memory limits say.
	AddressGap int64
	StackMin   int64 // PTHREAD_STACK_MIN
	// ThreadStack is the stack of a thread created with default
	// attributes (glibc: the soft RLIMIT_STACK, ulimit -s, or 2 MiB on
	// x86-64 when unlimited); 0 when unknown.
	ThreadStack int64
	// NoZeroPage is true when read faults on fresh anonymous memory
	// allocate real pages (the kernel command line disables the zero
	// page, as pvm_no_zero_page=1 does): faultme then needs --mem of RAM.
	NoZeroPage bool

	// Force turns refusals that the user may know better about (memory
	// that may not fit) into warnings: the --force flag.
	Force bool
}

// Read returns the limits of this machine. Anything unreadable stays 0.
func Read() Machine {
	m := Machine{CPUs: runtime.NumCPU(), SemVMX: 32767, StackMin: 16384, ThreadStack: bind.ThreadStackDefault(), Root: os.Geteuid() == 0}
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NPROC, &rl) == nil && rl.Cur != unix.RLIM_INFINITY {
		m.NProc = int64(rl.Cur)
	}
	if unix.Getrlimit(unix.RLIMIT_AS, &rl) == nil && rl.Cur != unix.RLIM_INFINITY {
		m.AddressSpace = int64(rl.Cur)
	}
	m.ThreadsMax = readInt("/proc/sys/kernel/threads-max")
	m.PidMax = readInt("/proc/sys/kernel/pid_max")
	m.PidsCgroup, m.PidsCurrent = pidsCgroup()
	m.MaxMapCount = readInt("/proc/sys/vm/max_map_count")
	if la := strings.Fields(readString("/proc/loadavg")); len(la) >= 4 {
		_, total, _ := strings.Cut(la[3], "/")
		m.TasksNow, _ = strconv.ParseInt(total, 10, 64)
	}
	if m.NProc > 0 && !m.Root {
		m.UserTasks = userTasks(os.Getuid())
	}
	if f := fields("/proc/sys/kernel/sem"); len(f) == 4 {
		m.SemMSL, m.SemMNS, m.SemOPM, m.SemMNI = f[0], f[1], f[2], f[3]
	}
	m.SemSets, m.SemsInUse = semUsage()
	mi := meminfo()
	m.MemTotal, m.MemAvailable = mi["MemTotal"], mi["MemAvailable"]
	m.CommitLimit, m.Committed = mi["CommitLimit"], mi["Committed_AS"]
	m.Overcommit = int(readInt("/proc/sys/vm/overcommit_memory"))
	if b, err := os.ReadFile("/proc/self/maps"); err == nil {
		// The layout is randomized (ASLR): a repetition's child may
		// have a smaller largest gap than this process. Half the user
		// address space is below every gap measured here (68 TiB and
		// more), so no more is counted on.
		m.AddressGap = min(LargestGap(string(b)), UserSpace/2)
	}
	if b, err := os.ReadFile("/proc/cmdline"); err == nil && strings.Contains(string(b), "no_zero_page=1") {
		m.NoZeroPage = true
	}
	return m
}

// TaskHeadroom is the tasks kept for contend itself beyond what exists
// now: the repetition child's runtime threads, the collectors', the
// launcher's.
const TaskHeadroom = 64

// taskLimit is one limit on the tasks: its value, the tasks it counts now,
// its name and how to raise it.
type taskLimit struct {
	v, used   int64
	what, how string
}

func (m Machine) taskLimits() []taskLimit {
	ls := []taskLimit{
		{m.ThreadsMax, m.TasksNow, "kernel.threads-max", "sysctl -w kernel.threads-max=%d"},
		{m.PidMax, m.TasksNow, "kernel.pid_max", "sysctl -w kernel.pid_max=%d (at most 4194304)"},
		{m.PidsCgroup, m.PidsCurrent, "the pids cgroup limit (pids.max)", "write %d to the cgroup's pids.max (systemd: TasksMax=)"},
	}
	if !m.Root {
		ls = append(ls, taskLimit{m.NProc, m.UserTasks, "RLIMIT_NPROC (ulimit -u)", "ulimit -u %d (limits.conf: nproc)"})
	}
	return ls
}

// CheckTasks returns an error naming the binding limit, what exists now and
// how to raise the limit when n more threads or processes (beyond what
// exists now and TaskHeadroom) cannot be had, or nil. flag names the flag
// that asked for them.
func (m Machine) CheckTasks(flag string, n int64) error {
	for _, l := range m.taskLimits() {
		if l.v <= 0 {
			continue
		}
		if left := l.v - l.used - TaskHeadroom; n > left {
			return fmt.Errorf("--%s: %d threads or processes exceed %s = %d (%d tasks counted against it now, %d kept for contend); accepted: at most %d here, or raise it: "+l.how,
				flag, n, l.what, l.v, l.used, TaskHeadroom, max(left, 0), l.used+n+TaskHeadroom)
		}
	}
	return nil
}

// MaxTasks returns the largest task count CheckTasks accepts, 0 if unknown.
func (m Machine) MaxTasks() int64 {
	best := int64(0)
	for _, l := range m.taskLimits() {
		if left := max(l.v-l.used-TaskHeadroom, 1); l.v > 0 && (best == 0 || left < best) {
			best = left
		}
	}
	return best
}

// ThreadRAM is the memory one more thread takes at least, whatever its
// stack size: its kernel stack (16 KiB on x86-64), task_struct, the
// pages of its stack it touches.
const ThreadRAM = 32 << 10

// ProcessMaps is the mappings a repetition child has before its threads.
const ProcessMaps = 1024

// CheckThreads checks n threads of one process, each with a stack of stack
// bytes: their mappings against vm.max_map_count, their stacks against
// RLIMIT_AS and, under vm.overcommit_memory=2, the commit limit, and
// ThreadRAM each against the available memory (a warning under Force). It
// returns the warnings and an error naming the limit and how to raise it.
func (m Machine) CheckThreads(flag string, n, stack int64) ([]string, error) {
	if m.MaxMapCount > 0 && 2*n+ProcessMaps > m.MaxMapCount {
		return nil, fmt.Errorf("--%s: %d threads need %d mappings (a stack and its guard page each, %d for the process), more than vm.max_map_count = %d; accepted: at most %d here, or raise it: sysctl -w vm.max_map_count=%d",
			flag, n, 2*n+ProcessMaps, ProcessMaps, m.MaxMapCount, max((m.MaxMapCount-ProcessMaps)/2, 0), 2*n+ProcessMaps)
	}
	stacks := n * stack
	if m.AddressSpace > 0 && stacks > m.AddressSpace {
		return nil, fmt.Errorf("--%s: %d thread stacks of %s (%s in all) exceed RLIMIT_AS (ulimit -v) = %s; accepted: at most %d here, or raise it: ulimit -v unlimited, or lower the stack size (ulimit -s)",
			flag, n, FormatSize(stack), FormatSize(stacks), FormatSize(m.AddressSpace), m.AddressSpace/max(stack, 1))
	}
	if m.Overcommit == 2 && m.CommitLimit > 0 && stacks > m.CommitLimit-m.Committed {
		left := max(m.CommitLimit-m.Committed, 0)
		return nil, fmt.Errorf("--%s: %d thread stacks of %s (%s in all) exceed what vm.overcommit_memory=2 leaves to commit (CommitLimit - Committed_AS = %s); accepted: at most %d here, or lower the stack size (ulimit -s) or raise vm.overcommit_ratio",
			flag, n, FormatSize(stack), FormatSize(stacks), FormatSize(left), left/max(stack, 1))
	}
	if need := n * ThreadRAM; m.MemAvailable > 0 && need > m.MemAvailable {
		msg := fmt.Sprintf("--%s: %d threads need at least %s of memory (%s each: kernel stack, task, stack pages), more than the %s available", flag, n, FormatSize(need), FormatSize(ThreadRAM), FormatSize(m.MemAvailable))
		if m.Force {
			return []string{msg + " (--force given)"}, nil
		}
		return nil, fmt.Errorf("%s; accepted: at most %d here, or free memory, or give --force", msg, m.MemAvailable/ThreadRAM)
	}
	return nil, nil
}

// UserSpace is the x86-64 and arm64 user address space with 4-level page
// tables: the largest mapping that can ever succeed.
const UserSpace = int64(1) << 47

// mmapMinAddr is the lowest address a mapping may have (vm.mmap_min_addr's
// usual value; a guess that only makes the first gap a little smaller).
const mmapMinAddr = 1 << 16

// LargestGap returns the largest free range below UserSpace between the
// mappings listed in maps (the text of /proc/PID/maps), 0 when maps lists
// none.
func LargestGap(maps string) int64 {
	prev, best := int64(mmapMinAddr), int64(0)
	seen := false
	for _, line := range strings.Split(maps, "\n") {
		r, _, _ := strings.Cut(line, " ")
		lo, hi, ok := strings.Cut(r, "-")
		if !ok {
			continue
		}
		a, err1 := strconv.ParseUint(lo, 16, 64)
		b, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || a >= uint64(UserSpace) {
			continue
		}
		seen = true
		if int64(a)-prev > best {
			best = int64(a) - prev
		}
		if int64(b) > prev {
			prev = int64(b)
		}
	}
	if !seen {
		return 0
	}
	if UserSpace-prev > best {
		best = UserSpace - prev
	}
	return best
}

// readString returns the trimmed text of a file, "" when unreadable.
func readString(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func readInt(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

func fields(path string) []int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []int64
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil
		}
		out = append(out, n)
	}
	return out
}

func meminfo() map[string]int64 {
	out := map[string]int64{}
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return out
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, rest, ok := strings.Cut(s.Text(), ":")
		if !ok {
			continue
		}
		fs := strings.Fields(rest)
		if len(fs) == 0 {
			continue
		}
		n, err := strconv.ParseInt(fs[0], 10, 64)
		if err != nil {
			continue
		}
		if len(fs) > 1 && fs[1] == "kB" {
			n *= 1024
		}
		out[k] = n
	}
	return out
}

// pidsCgroup reads pids.max (0 when unlimited or unknown) and
// pids.current of this process's cgroup (v2).
func pidsCgroup() (limit, current int64) {
	for _, line := range strings.Split(readString("/proc/self/cgroup"), "\n") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			dir := "/sys/fs/cgroup" + rest
			if s := readString(dir + "/pids.max"); s != "max" {
				limit, _ = strconv.ParseInt(s, 10, 64)
			}
			return limit, readInt(dir + "/pids.current")
		}
	}
	return 0, 0
}

// userTasks counts the tasks (threads) whose real user is uid, as
// RLIMIT_NPROC does, from /proc/PID/status.
func userTasks(uid int) int64 {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	want := strconv.Itoa(uid)
	var n int64
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		var real, threads string
		for _, line := range strings.Split(readString("/proc/"+e.Name()+"/status"), "\n") {
			if v, ok := strings.CutPrefix(line, "Uid:"); ok {
				if f := strings.Fields(v); len(f) > 0 {
					real = f[0]
				}
			} else if v, ok := strings.CutPrefix(line, "Threads:"); ok {
				threads = strings.TrimSpace(v)
			}
		}
		if real == want {
			t, _ := strconv.ParseInt(threads, 10, 64)
			n += t
		}
	}
	return n
}

// semUsage counts the SysV semaphore sets that exist and their semaphores.
func semUsage() (sets, sems int64) {
	b, err := os.ReadFile("/proc/sysvipc/sem")
	if err != nil {
		return 0, 0
	}
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if i == 0 || len(f) < 4 {
			continue
		}
		n, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			continue
		}
		sets++
		sems += n
	}
	return sets, sems
}

// CheckSemSet returns an error naming the binding kernel.sem limit when one
// more semaphore set of nsems semaphores cannot be created now, or nil. flag
// and asked name what the user gave (--sems 64 may need a set of 65).
func (m Machine) CheckSemSet(flag string, asked, nsems int64) error {
	extra := nsems - asked
	if m.SemMSL > 0 && nsems > m.SemMSL {
		what := fmt.Sprintf("--%s: %d", flag, asked)
		if extra > 0 {
			what = fmt.Sprintf("--%s: %d (a set of %d semaphores)", flag, asked, nsems)
		}
		return fmt.Errorf("%s exceeds kernel.sem SEMMSL = %d semaphores per set; accepted: at most %d here", what, m.SemMSL, max(m.SemMSL-extra, 1))
	}
	if m.SemMNI > 0 && m.SemSets >= m.SemMNI {
		return fmt.Errorf("--%s: no semaphore set can be created: %d sets exist, kernel.sem SEMMNI = %d; remove stale sets (ipcs -s, ipcrm) or raise SEMMNI", flag, m.SemSets, m.SemMNI)
	}
	if m.SemMNS > 0 && m.SemsInUse+nsems > m.SemMNS {
		return fmt.Errorf("--%s: %d semaphores exceed what kernel.sem SEMMNS = %d leaves (%d in use); accepted: at most %d here", flag, nsems, m.SemMNS, m.SemsInUse, max(m.SemMNS-m.SemsInUse-extra, 0))
	}
	return nil
}

// Checked returns the limits checked before runs: Read, with
// CONTEND_FAKE_LIMITS ("threads-max=100,semmsl=10", as Override takes)
// overriding some of them, for tests of the limit checks on a machine
// with large limits.
func Checked() Machine {
	m := Read()
	if s := os.Getenv("CONTEND_FAKE_LIMITS"); s != "" {
		m = m.Override(s)
	}
	return m
}

// Override returns m with limits replaced from a spec such as
// "threads-max=100,semmsl=10,semmni=4,sem-sets=4,nproc=50,memavailable=1073741824,
// stack-min=65536,address-gap=1099511627776".
// Unknown keys are ignored. A task limit given (threads-max, pid-max,
// pids-max, nproc) counts no task now unless its count is given too
// (tasks-now, pids-current, user-tasks), so that a fake limit does not
// depend on what runs on the machine. It exists to test limit checks.
func (m Machine) Override(spec string) Machine {
	seen := map[string]bool{}
	for _, kv := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "threads-max":
			m.ThreadsMax = n
		case "pid-max":
			m.PidMax = n
		case "pids-max":
			m.PidsCgroup = n
		case "nproc":
			m.NProc, m.Root = n, false
		case "semmsl":
			m.SemMSL = n
		case "semmns":
			m.SemMNS = n
		case "semopm":
			m.SemOPM = n
		case "semmni":
			m.SemMNI = n
		case "semvmx":
			m.SemVMX = n
		case "sem-sets":
			m.SemSets = n
		case "sems-in-use":
			m.SemsInUse = n
		case "memavailable":
			m.MemAvailable = n
		case "as":
			m.AddressSpace = n
		case "address-gap":
			m.AddressGap = n
		case "no-zero-page":
			m.NoZeroPage = n != 0
		case "stack-min":
			m.StackMin = n
		case "cpus":
			m.CPUs = int(n)
		case "tasks-now":
			m.TasksNow = n
		case "user-tasks":
			m.UserTasks = n
		case "pids-current":
			m.PidsCurrent = n
		case "max-map-count":
			m.MaxMapCount = n
		case "overcommit":
			m.Overcommit = int(n)
		case "commit-limit":
			m.CommitLimit = n
		case "committed":
			m.Committed = n
		}
		seen[k] = true
	}
	if (seen["threads-max"] || seen["pid-max"]) && !seen["tasks-now"] {
		m.TasksNow = 0
	}
	if seen["pids-max"] && !seen["pids-current"] {
		m.PidsCurrent = 0
	}
	if seen["nproc"] && !seen["user-tasks"] {
		m.UserTasks = 0
	}
	return m
}

// FormatSize renders n bytes with the largest binary unit that divides it
// exactly, or with two decimals of the largest unit below it.
func FormatSize(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	if n < 1024 {
		return fmt.Sprintf("%dB", n)
	}
	i, v := 0, n
	for v%1024 == 0 && i < len(units)-1 && v >= 1024 {
		v /= 1024
		i++
	}
	if v < 1024 {
		return fmt.Sprintf("%d%s", v, units[i])
	}
	f := float64(n)
	i = 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	return fmt.Sprintf("%.2f%s", f, units[i])
}
