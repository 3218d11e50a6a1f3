package evidence

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"contend/internal/results"
)

// sched sums the run-queue delay and context switches of every thread
// of the child and of its descendants, from the kernel's taskstats exit
// records, and takes their CPU time from rusage.
//
// The exit records: registered for every CPU, the kernel sends one record
// per exiting thread to the socket, where they wait until Stop reads them
// (nothing is read while the child runs). The kernel writes a thread's
// record in do_exit() before exit_mm(), from counters as they are then:
// what the thread does after it (the address-space teardown of the last
// thread of a process, closing its files, the final switch out) is in no
// record. A thread's cpu_delay_total is the time it was runnable but
// waiting for a CPU (sched_info run_delay, kept whether or not
// kernel.task_delayacct is on) up to the record; cpu_count the times it
// was given a CPU (sched_info pcount), which the scheduler counts on the
// same prev != next switch as a switch out (nvcsw or nivcsw), so that
// cpu_count is nvcsw + nivcsw + 1 at the record, the 1 being the run the
// thread is in when it writes it: k.csw is the sum of cpu_count less
// one per record, the threads' context switches before their records, and
// k.threads the number of records. The block I/O, swap-in and reclaim
// delays (kernel.task_delayacct=1) are as of the record too.
//
// The CPU time is not taken from the records: cpu_run_virtual_total (the
// scheduler's se.sum_exec_runtime) lacks the slice the thread is running
// in and the exit after the record, which made it 0.31 of the rusage CPU
// time for mutex with 100 threads and 0.60 for osim on a quiet machine.
// k.tree_cpu is the change of contend's own RUSAGE_CHILDREN across the
// repetition instead: the CPU time of every process contend reaped in it
// (the child, with what it waited for, and the orphans contend reaps as
// the child subreaper), each whole, as the kernel adds it up when the
// process is reaped. Contend reaps nothing else between Prepare and Stop
// (it starts no other process then), so it is exact, to the microsecond
// of rusage's timevals.
//
// Unlike inherited perf counters (perf.go), none of this adds work to
// the tasks' context switches; the kernel builds and sends each record in
// the exiting thread (do_exit, before exit_mm wakes its joiner), one
// netlink message per thread: about 1 µs of the thread's CPU time, at most
// 2 µs (scripts/taskstats-exit-cost.c; docs/evidence.md has the figures).
type sched struct {
	fd       int
	family   uint16
	delayacc bool
	pid      int
	buf      []byte // receive buffer, reused
	cpu0     int64  // RUSAGE_CHILDREN user + system time at preStart, ns
	cpu0ok   bool
}

var schedMetrics = []results.Metric{
	{Name: "k.runq_delay", Unit: "ns", Better: "lower", Desc: "time the child's threads (all processes) waited on a run queue for a CPU, each up to its exit record (taskstats cpu_delay_total; a wait while a thread exits, after its record, is not in it)"},
	{Name: "k.tree_cpu", Unit: "ns", Better: "lower", Desc: "CPU time, user and system, of every process of the repetition that contend reaped: the child with what it waited for, and the orphans contend reaped as its subreaper (the change of contend's RUSAGE_CHILDREN over the repetition; exact, to the microsecond)"},
	{Name: "k.csw", Unit: "count", Better: "lower", Desc: "context switches, voluntary and involuntary, of the child's threads (all processes) before their exit records: taskstats cpu_count less one per record (cpu_count is nvcsw + nivcsw + 1 at the record); the switches of a thread while it exits, after its record, its last one included, are not in it"},
	{Name: "k.threads", Unit: "count", Desc: "threads of the child and of its descendants that ended in the repetition (taskstats exit records: one per thread, of every process)"},
}

var delayacctMetrics = []results.Metric{
	{Name: "k.blkio_delay", Unit: "ns", Better: "lower", Desc: "time the child's threads waited for block I/O, each up to its exit record (taskstats, needs kernel.task_delayacct)"},
	{Name: "k.swapin_delay", Unit: "ns", Better: "lower", Desc: "time the child's threads waited for swap-in, each up to its exit record (taskstats, needs kernel.task_delayacct)"},
	{Name: "k.reclaim_delay", Unit: "ns", Better: "lower", Desc: "time the child's threads spent in direct memory reclaim, each up to its exit record (taskstats, needs kernel.task_delayacct)"},
}

func openSched() (*sched, error) {
	if injected("no-taskstats") {
		return nil, fmt.Errorf("taskstats: genetlink family TASKSTATS not found (kernel without CONFIG_TASKSTATS)")
	}
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_GENERIC)
	if err != nil {
		return nil, fmt.Errorf("taskstats: netlink socket: %v", err)
	}
	s := &sched{fd: fd}
	fail := func(err error) (*sched, error) { unix.Close(fd); return nil, err }
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return fail(fmt.Errorf("taskstats: bind: %v", err))
	}
	// The exit records of a repetition wait in the socket until Stop.
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 32<<20); err != nil {
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 32<<20)
	}
	fam, err := s.familyID()
	if err != nil {
		return fail(fmt.Errorf("taskstats: genetlink family TASKSTATS not found (kernel without CONFIG_TASKSTATS?): %v", err))
	}
	s.family = fam
	cpus, err := os.ReadFile("/sys/devices/system/cpu/possible")
	if err != nil {
		return fail(fmt.Errorf("taskstats: cannot read the possible CPUs: %v", err))
	}
	mask := append([]byte(strings.TrimSpace(string(cpus))), 0)
	if err := s.request(unix.TASKSTATS_CMD_GET, unix.TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, mask); err != nil {
		return fail(fmt.Errorf("taskstats: cannot listen to exit records: %v (needs CAP_NET_ADMIN)", err))
	}
	// Go's os package forks and reaps a probe child the first time it
	// starts or finds a process (whether clone(CLONE_PIDFD) works): have
	// it now, or the first repetition counts it (an exit record whose
	// parent is contend, and its CPU time in RUSAGE_CHILDREN).
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Release()
	}
	b, _ := os.ReadFile("/proc/sys/kernel/task_delayacct")
	s.delayacc = strings.TrimSpace(string(b)) == "1" && !injected("no-delayacct")
	unix.SetNonblock(fd, true)
	return s, nil
}

func (s *sched) note() string {
	if !s.delayacc {
		return "delay accounting off (kernel.task_delayacct=0): block I/O, swap-in and reclaim delays not recorded (sysctl kernel.task_delayacct=1 records them); run-queue delay is recorded"
	}
	return ""
}

// nlmsg builds one generic netlink request.
func nlmsg(typ uint16, cmd uint8, attrType uint16, payload []byte) []byte {
	alen := 4 + len(payload)
	pad := (alen + 3) &^ 3
	total := unix.NLMSG_HDRLEN + 4 + pad
	b := make([]byte, total)
	binary.LittleEndian.PutUint32(b[0:], uint32(total))
	binary.LittleEndian.PutUint16(b[4:], typ)
	binary.LittleEndian.PutUint16(b[6:], unix.NLM_F_REQUEST|unix.NLM_F_ACK)
	b[16] = cmd
	b[17] = 1 // version
	binary.LittleEndian.PutUint16(b[20:], uint16(alen))
	binary.LittleEndian.PutUint16(b[22:], attrType)
	copy(b[24:], payload)
	return b
}

// attrs splits netlink attributes.
func attrs(b []byte) map[uint16][]byte {
	m := map[uint16][]byte{}
	for len(b) >= 4 {
		l := int(binary.LittleEndian.Uint16(b[0:]))
		t := binary.LittleEndian.Uint16(b[2:]) & 0x3fff
		if l < 4 || l > len(b) {
			break
		}
		m[t] = b[4:l]
		b = b[min((l+3)&^3, len(b)):]
	}
	return m
}

// request sends one request and reads the kernel's answer until its ack.
func (s *sched) request(cmd uint8, attr uint16, payload []byte) error {
	typ := s.family
	if typ == 0 {
		typ = unix.GENL_ID_CTRL
	}
	if err := unix.Sendto(s.fd, nlmsg(typ, cmd, attr, payload), 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	buf := make([]byte, 64<<10)
	for {
		n, _, err := unix.Recvfrom(s.fd, buf, 0)
		if err != nil {
			return err
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return err
		}
		for _, m := range msgs {
			switch m.Header.Type {
			case unix.NLMSG_ERROR:
				if code := int32(binary.LittleEndian.Uint32(m.Data)); code != 0 {
					return unix.Errno(-code)
				}
				return nil
			case unix.GENL_ID_CTRL:
				if len(m.Data) > 4 {
					if id, ok := attrs(m.Data[4:])[unix.CTRL_ATTR_FAMILY_ID]; ok && len(id) >= 2 {
						s.family = binary.LittleEndian.Uint16(id)
					}
				}
			}
		}
	}
}

func (s *sched) familyID() (uint16, error) {
	if err := s.request(unix.CTRL_CMD_GETFAMILY, unix.CTRL_ATTR_FAMILY_NAME, []byte(unix.TASKSTATS_GENL_NAME+"\x00")); err != nil {
		return 0, err
	}
	if s.family == 0 {
		return 0, errors.New("no family id in the answer")
	}
	return s.family, nil
}

func (s *sched) Name() string { return "sched" }

func (s *sched) Metrics() []results.Metric {
	ms := append([]results.Metric{}, schedMetrics...)
	if s.delayacc {
		ms = append(ms, delayacctMetrics...)
	}
	return ms
}

// preStart drops the exit records of tasks that ended before this
// repetition and notes the CPU time of contend's reaped children so far.
func (s *sched) preStart() error {
	s.cpu0, s.cpu0ok = childrenCPU()
	_, err := s.drain()
	if errors.Is(err, unix.ENOBUFS) {
		_, err = s.drain()
	}
	return err
}

// childrenCPU returns the user + system time of every child this
// process has reaped (RUSAGE_CHILDREN), in ns.
func childrenCPU() (int64, bool) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_CHILDREN, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}

// Start notes the child's pid: its records are those of its threads and
// descendants.
func (s *sched) Start(pid int) error {
	s.pid = pid
	return nil
}

// exitRec is the part of a thread's exit record used here.
type exitRec struct {
	pid, tgid, ppid          uint32
	cpuDelay, cpuCount       uint64
	blkio, swapin, freepages uint64
}

// drain reads every waiting exit record.
func (s *sched) drain() ([]exitRec, error) {
	var out []exitRec
	if s.buf == nil {
		s.buf = make([]byte, 256<<10)
	}
	buf := s.buf
	var lost error
	for {
		n, _, err := unix.Recvfrom(s.fd, buf, 0)
		if err == unix.EAGAIN {
			return out, lost
		}
		if err == unix.ENOBUFS {
			// Records were dropped; keep reading what is left.
			lost = unix.ENOBUFS
			continue
		}
		if err != nil {
			return out, err
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return out, err
		}
		for _, m := range msgs {
			if m.Header.Type != s.family || len(m.Data) < 4 {
				continue
			}
			agg, ok := attrs(m.Data[4:])[unix.TASKSTATS_TYPE_AGGR_PID]
			if !ok {
				continue
			}
			st, ok := attrs(agg)[unix.TASKSTATS_TYPE_STATS]
			if !ok || len(st) < int(unsafe.Offsetof(unix.Taskstats{}.Ac_tgid))+4 {
				continue
			}
			var ts unix.Taskstats
			copy((*[unsafe.Sizeof(ts)]byte)(unsafe.Pointer(&ts))[:], st)
			out = append(out, exitRec{pid: ts.Ac_pid, tgid: ts.Ac_tgid, ppid: ts.Ac_ppid,
				cpuDelay: ts.Cpu_delay_total, cpuCount: ts.Cpu_count,
				blkio: ts.Blkio_delay_total, swapin: ts.Swapin_delay_total, freepages: ts.Freepages_delay_total})
		}
	}
}

// Stop sums the records of the child's threads and of every process
// descended from it (or reparented to contend, which is the subreaper of
// the repetition's orphans), and takes k.tree_cpu from RUSAGE_CHILDREN:
// it is called after the child's process group is killed and reaped.
func (s *sched) Stop() (map[string]float64, []string, error) {
	recs, err := s.drain()
	if errors.Is(err, unix.ENOBUFS) {
		return nil, nil, fmt.Errorf("exit records were lost (socket buffer full: too many tasks ended on the machine during the repetition); no scheduler delay for it")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading exit records: %v", err)
	}
	m := sumTree(recs, s.pid, os.Getpid(), s.delayacc)
	if cpu1, ok := childrenCPU(); ok && s.cpu0ok {
		m["k.tree_cpu"] = float64(cpu1 - s.cpu0)
	}
	s.cpu0ok = false
	return m, nil, nil
}

// sumTree sums the records of the thread groups of root and its
// descendants; self is contend's pid (orphans are reparented to it). It
// returns every metric of the records (k.tree_cpu is not one of them).
func sumTree(recs []exitRec, root, self int, delayacc bool) map[string]float64 {
	in := map[uint32]bool{uint32(root): true}
	for changed := true; changed; {
		changed = false
		for _, r := range recs {
			if !in[r.tgid] && (in[r.ppid] || int(r.ppid) == self) {
				in[r.tgid] = true
				changed = true
			}
		}
	}
	var delay, count, threads, blkio, swapin, reclaim float64
	for _, r := range recs {
		if in[r.tgid] {
			delay += float64(r.cpuDelay)
			// cpu_count is nvcsw + nivcsw + 1: the thread's switches
			// before its record and the run it writes it in (0 only
			// from a kernel without sched_info, which counts nothing).
			count += float64(max(r.cpuCount, 1) - 1)
			threads++
			blkio += float64(r.blkio)
			swapin += float64(r.swapin)
			reclaim += float64(r.freepages)
		}
	}
	m := map[string]float64{"k.runq_delay": delay, "k.csw": count, "k.threads": threads}
	if delayacc {
		m["k.blkio_delay"], m["k.swapin_delay"], m["k.reclaim_delay"] = blkio, swapin, reclaim
	}
	return m
}

func (s *sched) Close() error {
	if s.fd >= 0 {
		unix.Close(s.fd)
		s.fd = -1
	}
	return nil
}
