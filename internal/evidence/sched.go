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

// sched sums the run-queue delay, CPU time and context switches of every
// thread of the child and of its descendants, from the kernel's
// taskstats exit records: registered for
// every CPU, the kernel sends one record per exiting thread to the
// socket, where they wait until Stop reads them (nothing is read while
// the child runs). A thread's cpu_delay_total is the time it was
// runnable but waiting for a CPU (sched_info run_delay), kept whether or
// not kernel.task_delayacct is on; cpu_run_virtual_total its run time
// (se.sum_exec_runtime as of the record: the exiting thread's last slice
// is not yet added, at most a tick); cpu_count the times it was given
// a CPU, which is its context switches: the scheduler counts an arrival
// (sched_info pcount) and a switch out (nvcsw or nivcsw) on the same
// prev != next switch, so cpu_count is nvcsw + nivcsw + 1 at the record,
// the 1 being the run that ends the thread (a preemption between the
// record and the end is missed). Both were once kept, and were equal in
// every repetition; only one is.
// The block I/O, swap-in and reclaim delays need kernel.task_delayacct=1.
// Unlike inherited perf counters (perf.go), none of this adds work to
// the tasks' context switches; the kernel builds and sends each record in
// the exiting thread (do_exit, before exit_mm wakes its joiner), one
// netlink message per thread: about 1 µs of the thread's CPU time, at most
// 2 µs (scripts/taskstats-exit-cost.c; docs/HACKING.md has the figures).
type sched struct {
	fd       int
	family   uint16
	delayacc bool
	pid      int
	buf      []byte // receive buffer, reused
}

var schedMetrics = []results.Metric{
	{Name: "k.runq_delay", Unit: "ns", Better: "lower", Desc: "time the child's threads (all processes) waited on a run queue for a CPU (taskstats cpu_delay_total)"},
	{Name: "k.cpu_time", Unit: "ns", Better: "lower", Desc: "CPU time of the child's threads (all processes): taskstats cpu_run_virtual_total, the scheduler's sum_exec_runtime, as of the thread's exit record (its last slice, at most a tick, may be missing)"},
	{Name: "k.switches", Unit: "count", Better: "lower", Desc: "context switches of the child's threads (all processes), voluntary and involuntary, the switch out at exit included: taskstats cpu_count, the times a thread was given a CPU, which is nvcsw + nivcsw + 1 at its exit record (a preemption while it exits is missed)"},
}

var delayacctMetrics = []results.Metric{
	{Name: "k.blkio_delay", Unit: "ns", Better: "lower", Desc: "time the child's threads waited for block I/O (taskstats, needs kernel.task_delayacct)"},
	{Name: "k.swapin_delay", Unit: "ns", Better: "lower", Desc: "time the child's threads waited for swap-in (taskstats, needs kernel.task_delayacct)"},
	{Name: "k.reclaim_delay", Unit: "ns", Better: "lower", Desc: "time the child's threads spent in direct memory reclaim (taskstats, needs kernel.task_delayacct)"},
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
// repetition.
func (s *sched) preStart() error {
	_, err := s.drain()
	if errors.Is(err, unix.ENOBUFS) {
		_, err = s.drain()
	}
	return err
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
	runtime                  uint64 // cpu_run_virtual_total
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
				blkio: ts.Blkio_delay_total, swapin: ts.Swapin_delay_total, freepages: ts.Freepages_delay_total,
				runtime: ts.Cpu_run_virtual_total})
		}
	}
}

// Stop sums the records of the child's threads and of every process
// descended from it (or reparented to contend, which is the subreaper of
// the repetition's orphans).
func (s *sched) Stop() (map[string]float64, []string, error) {
	recs, err := s.drain()
	if errors.Is(err, unix.ENOBUFS) {
		return nil, nil, fmt.Errorf("exit records were lost (socket buffer full: too many tasks ended on the machine during the repetition); no scheduler delay for it")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading exit records: %v", err)
	}
	return sumTree(recs, s.pid, os.Getpid(), s.delayacc), nil, nil
}

// sumTree sums the records of the thread groups of root and its
// descendants; self is contend's pid (orphans are reparented to it).
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
	var delay, count, blkio, swapin, reclaim, runtime float64
	for _, r := range recs {
		if in[r.tgid] {
			delay += float64(r.cpuDelay)
			count += float64(r.cpuCount)
			runtime += float64(r.runtime)
			blkio += float64(r.blkio)
			swapin += float64(r.swapin)
			reclaim += float64(r.freepages)
		}
	}
	m := map[string]float64{"k.runq_delay": delay, "k.cpu_time": runtime, "k.switches": count}
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
