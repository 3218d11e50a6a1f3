package evidence

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"contend/internal/plural"
	"contend/internal/results"
	"contend/internal/tmpdir"
)

// profileRate is the sampling frequency (samples a second on each CPU a
// task of the child runs on): perf's default is 4000. On this project's
// 2-CPU VM (cpu-clock: an hrtimer interrupt and a call-chain walk a
// sample) 999 cost faultme over 4 GiB +5.4, +1.6 and +3.3% of its time
// in three A/Bs of 20 + 20, 499 +1.0, +1.4 and +2.7% (about half, within
// this VM's noise); a half-second repetition still has about 450 samples
// (notes/measurements.md).
const profileRate = 499

// profileSamples bounds the samples a second of a recording in all:
// every CPU the child's tasks run on is sampled (a system-wide recording
// samples every CPU, busy or idle), so at profileRate a CPU perf would
// take 255,000 samples a second on 512 CPUs, each an interrupt and a
// call-chain walk, more than perf record drains. Up to 16 CPUs each is
// sampled at profileRate; on more, at a share of profileSamples, at least
// profileRateLo: 124 Hz on 64 CPUs, 15 Hz on 512 (tens of thousands of
// samples in a second's run still). The cost then does not grow with the
// CPUs; a 64-vCPU guest under TCG, where every sample is emulated, took
// 22 times as long for a mutex repetition at 499 Hz a vCPU.
const (
	profileSamples = 16 * profileRate
	profileRateLo  = 10
)

// profileRateFor is the sampling frequency of each CPU on a machine of
// cpus CPUs.
func profileRateFor(cpus int) int {
	return max(min(profileRate, profileSamples/max(cpus, 1)), profileRateLo)
}

// profileBuffer is perf record's ring buffer on each CPU in a
// system-wide recording (-m): perf is woken when half of one is full, and
// 499 samples a second of a few hundred bytes each (a call chain) fill
// 4 MiB in tens of seconds, where perf's default (512 KiB) filled half in under
// a second; what is left is drained after the child ends. (The machine's
// task records, comm, mmap and fork, wake it too: a 4 s recording at
// load 14 woke it 8 times, against 12 with the default.) On many CPUs
// the buffers are bounded as a whole (profileBuffers): 8 MiB a CPU up to
// 32 CPUs, then a share of 256 MiB, at least 512 KiB (perf's default): at
// 512 CPUs 512 KiB each, which perf empties more often (the header says
// so).
const (
	profileBuffer   = 8 << 20
	profileBuffers  = 256 << 20
	profileBufferLo = 512 << 10
)

// profileBufferFor is the ring buffer of each CPU (bytes, a power of 2)
// for a system-wide recording on cpus CPUs: profileBuffer, or a share of
// profileBuffers.
func profileBufferFor(cpus int) int {
	b := profileBuffer
	for b > profileBufferLo && b*max(cpus, 1) > profileBuffers {
		b /= 2
	}
	return b
}

// profileNice is perf record's nice value while it records: when it
// wakes, it takes a CPU from the child's tasks only when they leave one
// idle (or nearly: a nice 19 task gets 1.5% against a nice 0 one).
const profileNice = 19

// Profile metric families: a symbol's share of the samples, self (the
// sampled function) and children (anywhere on the stack), in percent.
const (
	ProfileSelf     = "k.profile.self."
	ProfileChildren = "k.profile.children."
)

// ProfileSamples is the number of samples of a repetition's profile.
const ProfileSamples = "k.profile.samples"

// profileMin is the share (percent) below which a symbol is not kept in a
// repetition's metrics, and profileMax the most symbols kept of each
// kind: a profile's long tail is noise, and every kept symbol is a
// metric of its own in the file.
const (
	profileMin = 0.5
	profileMax = 40
)

// profile samples the call graphs of the child and everything it starts
// with `perf record`, enabled while the child is stopped before its
// first instruction, then symbolises them with `perf script` (the
// kernel's from /proc/kallsyms, user space's from the ELF symbol tables)
// and folds them per symbol after the child is reaped.
//
// Where perf may sample the whole machine (root, or
// perf_event_paranoid <= 0), it does (-a: one sampling event per CPU)
// and the samples of the child's processes are kept (the child's pid and
// every process forked from one of them, from perf's fork records): a
// per-CPU event costs the child's tasks nothing when they switch or
// start threads, where an event attached to the child (-p) is inherited
// by each of its threads and switched in and out with each of them
// (mutex and osim switch hundreds of thousands of times a second).
// Elsewhere it is attached to the child (-p), inherited as before.
type profile struct {
	perf   string      // the perf binary
	event  string      // cycles where a PMU counts them, else cpu-clock
	wide   bool        // system-wide (-a), filtered to the child's processes
	why    string      // why not wide
	dir    string      // private directory of the recordings
	td     *tmpdir.Dir // dir, owned (internal/tmpdir)
	buffer int         // bytes of ring buffer a CPU (-m), system-wide
	rate   int         // samples a second a CPU (-F)
	cpus   int         // the CPUs the rate is for
	n      int         // repetitions recorded
	rec    *recording
	folded map[string]float64 // the last repetition's folded stacks
}

// recording is one repetition's perf record in flight.
type recording struct {
	cmd    *exec.Cmd
	pid    int // the child
	data   string
	exited chan error
	errf   string   // perf's standard error
	ctl    *os.File // perf's control descriptor, held open while it records
	ack    *os.File // and the read end of its answers
}

// stderr is the first line perf wrote to its standard error.
func (r *recording) stderr(err error) string {
	b, _ := os.ReadFile(r.errf)
	return firstLineOr(string(b), err)
}

func openProfile(cpus int) (*profile, error) {
	if injected("no-perf") {
		return nil, fmt.Errorf("perf_event_open: no permission (injected)")
	}
	bin, err := exec.LookPath("perf")
	if err != nil {
		return nil, fmt.Errorf("no perf program on PATH (Debian: apt-get install linux-perf)")
	}
	event := "cpu-clock"
	if _, err := openPerf("hw", hardwareCounters[:1]); err == nil {
		event = "cycles"
	}
	// Named for the pid, to tell whose it is; stale when its owner
	// file is not locked (internal/tmpdir).
	td, err := tmpdir.New(tmpdir.Profile, fmt.Sprintf("%d-", os.Getpid()))
	if err != nil {
		return nil, err
	}
	dir := td.Path
	p := &profile{perf: bin, event: event, dir: dir, td: td, buffer: profileBufferFor(cpus), rate: profileRateFor(cpus), cpus: cpus}
	// Probes: a recording of a process that ends at once, as the run's
	// will be made (permission, events, the perf build), system-wide
	// first. The process is perf's own --version, the one program sure
	// to be there (a guest's initramfs has no true: perf record then
	// exits 255), and the probe is not quiet, so a failure says why.
	probe := func(target ...string) error {
		data := filepath.Join(dir, "probe.data")
		defer os.Remove(data)
		args := slices.DeleteFunc(p.recordArgs(data, len(target) > 0), func(a string) bool { return a == "-q" })
		args = append(append(args, target...), "--", bin, "--version")
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s", firstLineOr(string(out), err))
		}
		return nil
	}
	werr := fmt.Errorf("system-wide sampling not allowed (injected)")
	if !injected("no-perf-wide") {
		werr = probe("-a")
	}
	if werr == nil {
		p.wide = true
		return p, nil
	}
	p.why = werr.Error()
	if err := probe(); err != nil {
		td.Close()
		return nil, fmt.Errorf("perf record cannot sample here: %v", err)
	}
	return p, nil
}

// profileDirPrefix starts the name of a profile's private directory of
// recordings, followed by the pid of the contend that made it.
const profileDirPrefix = tmpdir.Profile

// recordArgs are perf record's options up to its target: quiet, no
// build-id collection (-N -B: perf script reads the symbols from the
// files as they are), no side-band thread for BPF programs' records
// (--no-bpf-event: that thread polls with a 1 s time-out, and perf
// record waited for it to end: 1.4 s for a recording of `true` at load
// 13, 0.2-0.7 s without), the event and rate, frame-pointer call
// chains; wide adds the larger ring buffer of a system-wide recording.
// cpu-clock is sampled outside the idle task only (:I, exclude_idle):
// system-wide, an idle CPU's timer is sampled too, and on an idle 2-CPU
// machine 299 of 301 samples were the idle task's, each a call-chain walk
// and a record for perf to drain, none of them the child's (cycles do not
// count while a CPU halts).
func (p *profile) recordArgs(data string, wide bool) []string {
	event := p.event
	if event == "cpu-clock" {
		event += ":I"
	}
	args := []string{"record", "-q", "-N", "-B", "--no-bpf-event", "-e", event, "-F", strconv.Itoa(p.rate), "-g", "-o", data}
	if wide {
		args = append(args, "-m", strconv.Itoa(p.buffer>>10)+"K")
	}
	return args
}

func firstLineOr(out string, err error) string {
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return err.Error()
}

func (p *profile) Name() string { return "profile" }

func (p *profile) note() string {
	var n []string
	if p.event == "cpu-clock" {
		n = append(n, "sampling cpu-clock (no hardware cycles counter here)")
	}
	if p.rate < profileRate {
		n = append(n, fmt.Sprintf("%d Hz a CPU on %d CPUs (%d on 16 or fewer): %d samples a second in all at most", p.rate, p.cpus, profileRate, profileSamples))
	}
	if p.wide && p.buffer < profileBuffer {
		n = append(n, fmt.Sprintf("%d KiB of ring buffer a CPU (%d MiB in all at most): perf is woken more often than with %d MiB", p.buffer>>10, profileBuffers>>20, profileBuffer>>20))
	}
	if !p.wide {
		n = append(n, "attached to the child (-p), its threads inherit the sampling: it costs each of their switches; system-wide sampling: "+p.why)
	}
	return strings.Join(n, "; ")
}

// NeedsStop: perf must be attached before the child's first instruction.
func (p *profile) NeedsStop() bool { return true }

// ProfileEvent returns the perf event a profile metric's description
// (Metrics: "share of the cycles samples ...") says it sampled: "cycles"
// or "cpu-clock"; "" when desc is not a profile's.
func ProfileEvent(desc string) string {
	rest, ok := strings.CutPrefix(desc, "share of the ")
	if !ok {
		return ""
	}
	ev, _, ok := strings.Cut(rest, " samples")
	if !ok || strings.ContainsAny(ev, " \t") {
		return ""
	}
	return ev
}

func (p *profile) Metrics() []results.Metric {
	return []results.Metric{
		{Name: ProfileSamples, Unit: "count", Desc: "samples of the child's tasks the profile's shares are of (perf record, " + p.event + " at " + strconv.Itoa(p.rate) + " Hz)"},
		{Name: ProfileSelf + "*", Unit: "%", Desc: "share of the " + p.event + " samples of the child's tasks taken in the symbol itself (perf record, self)"},
		{Name: ProfileChildren + "*", Unit: "%", Desc: "share of the " + p.event + " samples of the child's tasks with the symbol on the stack (perf record, children)"},
	}
}

// Start starts perf record, system-wide or attached to the stopped child
// pid, and enables its sampling before the child goes; perf then runs at
// nice profileNice. perf is started from a goroutine of its own, locked
// to its thread, never from the caller's thread (the one that forks the
// child, where the perf collector's inherited counters wait: they would
// count perf too); it gets SIGKILL when that thread ends (contend
// killed), and a process group of its own, out of the child's group
// kill.
func (p *profile) Start(pid int) error {
	p.n++
	data := filepath.Join(p.dir, fmt.Sprintf("rep-%d.data", p.n))
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return err
	}
	ackR, ackW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return err
	}
	// The control descriptor's write end and the answers' read end are
	// held until Stop.
	defer ctlR.Close()
	defer ackW.Close()
	keep := false
	defer func() {
		if !keep {
			ctlW.Close()
			ackR.Close()
		}
	}()
	errf, err := os.Create(data + ".err")
	if err != nil {
		return err
	}
	defer errf.Close()
	args := append(p.recordArgs(data, p.wide), "-D", "-1", "--control", "fd:3,4")
	if p.wide {
		args = append(args, "-a")
	} else {
		args = append(args, "-p", strconv.Itoa(pid))
	}
	cmd := exec.Command(p.perf, args...)
	cmd.ExtraFiles = []*os.File{ctlR, ackW}
	cmd.Stderr = errf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	started := make(chan error, 1)
	exited := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // Pdeathsig belongs to the forking thread
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		exited <- waitNoReap(cmd.Process.Pid)
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("perf record: %v", err)
	}
	ctlR.Close()
	ackW.Close()
	rec := &recording{cmd: cmd, pid: pid, data: data, exited: exited, errf: errf.Name(), ctl: ctlW, ack: ackR}
	// Enable sampling once perf has attached, and wait for its ack.
	if _, err := ctlW.Write([]byte("enable\n")); err != nil {
		rec.kill()
		return fmt.Errorf("perf record did not start: %s", rec.stderr(err))
	}
	ack := make(chan error, 1)
	go func() {
		line, err := readLine(ackR)
		if err == nil && strings.TrimSpace(line) != "ack" {
			err = fmt.Errorf("unexpected answer %q", line)
		}
		ack <- err
	}()
	select {
	case err := <-ack:
		if err != nil {
			rec.kill()
			return fmt.Errorf("perf record did not attach: %s", rec.stderr(err))
		}
	case <-time.After(30 * time.Second):
		rec.kill()
		return fmt.Errorf("perf record did not attach within 30 s")
	}
	// perf record is one thread (no --threads): its nice is its
	// process's.
	unix.Setpriority(unix.PRIO_PROCESS, cmd.Process.Pid, profileNice)
	p.rec = rec
	keep = true
	return nil
}

// endedBy tells whether err is a process's end by signal sig.
func endedBy(err error, sig syscall.Signal) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == sig
}

// waitNoReap waits until pid has exited and leaves it unreaped (the
// collector reaps it in Stop, after sched has read RUSAGE_CHILDREN: perf's
// CPU time is not the child's).
func waitNoReap(pid int) error {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return err
		}
	}
}

func (p *profile) helperPIDs() []int {
	if p.rec == nil {
		return nil
	}
	return []int{p.rec.cmd.Process.Pid}
}

// readLine reads one line from f, a byte at a time (nothing after it is
// taken from f: perf answers each command on the same pipe).
func readLine(f *os.File) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for {
		if _, err := f.Read(one); err != nil {
			return string(b), err
		}
		b = append(b, one[0])
		if one[0] == '\n' {
			return string(b), nil
		}
	}
}

func (r *recording) kill() {
	r.cmd.Process.Kill()
	<-r.exited
	r.cmd.Wait()
	r.close()
}

// close closes contend's ends of perf's control pipes.
func (r *recording) close() {
	r.ctl.Close()
	r.ack.Close()
}

// Stop ends perf record (a system-wide one is told to at once, back at
// nice 0 to write what it holds; one attached to the child ends with the
// child's last task, or is told to after 10 s), reaps it, and folds the
// recording: in a system-wide one, the samples of the child's processes.
func (p *profile) Stop() (map[string]float64, []string, error) {
	rec := p.rec
	p.rec = nil
	p.folded = nil
	if rec == nil {
		return nil, nil, nil
	}
	defer os.Remove(rec.data)
	defer os.Remove(rec.errf)
	if p.wide {
		unix.Setpriority(unix.PRIO_PROCESS, rec.cmd.Process.Pid, 0)
		rec.ctl.Write([]byte("stop\n"))
	}
	select {
	case <-rec.exited:
	case <-time.After(10 * time.Second):
		rec.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-rec.exited:
		case <-time.After(30 * time.Second):
			rec.cmd.Process.Kill()
			<-rec.exited
		}
	}
	werr := rec.cmd.Wait()
	rec.close()
	if endedBy(werr, syscall.SIGINT) {
		// perf record ends on SIGINT by raising it again once its file
		// is written.
		werr = nil
	}
	if werr != nil {
		return nil, nil, fmt.Errorf("perf record: %s", rec.stderr(werr))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := []string{"script", "-i", rec.data, "-F", "comm,pid,tid,period,ip,sym,dso", "--show-lost-events"}
	root := 0
	if p.wide {
		args = append(args, "--show-task-events")
		root = rec.pid
	}
	script := exec.CommandContext(ctx, p.perf, args...)
	script.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := script.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	var serr strings.Builder
	script.Stderr = &serr
	if err := script.Start(); err != nil {
		return nil, nil, fmt.Errorf("perf script: %v", err)
	}
	prof, ferr := foldScript(out, root)
	if err := script.Wait(); err != nil {
		return nil, nil, fmt.Errorf("perf script: %s", firstLineOr(serr.String(), err))
	}
	if ferr != nil {
		return nil, nil, fmt.Errorf("perf script: %v", ferr)
	}
	m := map[string]float64{ProfileSamples: float64(prof.Samples)}
	var notes []string
	if prof.Lost > 0 {
		notes = append(notes, fmt.Sprintf("evidence profile: perf lost %s (its buffer was full): the shares are of those it kept", plural.N(prof.Lost, "sample", "samples")))
	}
	if prof.Samples == 0 {
		notes = append(notes, "evidence profile: no samples (the repetition ran shorter than a sampling period?)")
		return m, notes, nil
	}
	for _, s := range Top(prof.Self, profileMin, profileMax) {
		m[ProfileSelf+metricSymbol(s)] = prof.Self[s]
	}
	for _, s := range Top(prof.Children, profileMin, profileMax) {
		m[ProfileChildren+metricSymbol(s)] = prof.Children[s]
	}
	p.folded = prof.Folded
	return m, notes, nil
}

// TakeFolded returns the folded stacks of the last repetition stopped
// (Folder), once.
func (p *profile) TakeFolded() map[string]float64 {
	f := p.folded
	p.folded = nil
	return f
}

// metricSymbol is symbol s as a metric name's last part: no white space
// or control characters, at most 64 bytes (a C++ or Go symbol can be
// longer; its first 64 bytes tell it in a table).
func metricSymbol(s string) string {
	s = strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return '_'
		}
		return r
	}, s)
	if len(s) > 64 {
		s = s[:64]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return s
}

func (p *profile) Close() error {
	p.folded = nil
	if p.rec != nil {
		p.rec.kill()
		p.rec = nil
	}
	return p.td.Close()
}
