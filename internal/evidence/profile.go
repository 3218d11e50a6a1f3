package evidence

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"contend/internal/results"
)

// profileRate is the sampling frequency (samples a second on each CPU a
// task of the child runs on): perf's default is 4000; at 999 the
// sampling's interrupts and the recorder's own work stay near 1% of a
// CPU.
const profileRate = 999

// Profile metric families: a symbol's share of the samples, self (the
// sampled function) and children (anywhere on the stack), in percent.
const (
	ProfileSelf     = "k.profile.self."
	ProfileChildren = "k.profile.children."
)

// profileMin is the share (percent) below which a symbol is not kept in a
// repetition's metrics, and profileMax the most symbols kept of each
// kind: a profile's long tail is noise, and every kept symbol is a
// metric of its own in the file.
const (
	profileMin = 0.5
	profileMax = 40
)

// profile samples the call graphs of the child and everything it starts
// with `perf record` attached to the child stopped before its first
// instruction (perf follows the threads and processes it creates), then
// symbolises them with `perf script` (the kernel's from /proc/kallsyms,
// user space's from the ELF symbol tables) and folds them per symbol
// after the child is reaped.
type profile struct {
	perf  string // the perf binary
	event string // cycles where a PMU counts them, else cpu-clock
	dir   string // private directory of the recordings
	n     int    // repetitions recorded
	rec   *recording
}

// recording is one repetition's perf record in flight.
type recording struct {
	cmd    *exec.Cmd
	data   string
	exited chan error
	errf   string   // perf's standard error
	ctl    *os.File // perf's control descriptor, held open while it records
}

// stderr is the first line perf wrote to its standard error.
func (r *recording) stderr(err error) string {
	b, _ := os.ReadFile(r.errf)
	return firstLineOr(string(b), err)
}

func openProfile() (*profile, error) {
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
	dir, err := os.MkdirTemp("", "contend-profile-")
	if err != nil {
		return nil, err
	}
	p := &profile{perf: bin, event: event, dir: dir}
	// Probe: a recording of a process that ends at once, as the run's
	// will be made (permission, events, the perf build).
	probe := exec.Command(bin, "record", "-q", "-N", "-B", "-e", event, "-F", strconv.Itoa(profileRate), "-g", "-o", filepath.Join(dir, "probe.data"), "--", "true")
	if out, err := probe.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("perf record cannot sample here: %s", firstLineOr(string(out), err))
	}
	os.Remove(filepath.Join(dir, "probe.data"))
	return p, nil
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
	if p.event == "cpu-clock" {
		return "sampling cpu-clock (no hardware cycles counter here)"
	}
	return ""
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
		{Name: ProfileSelf + "*", Unit: "%", Desc: "share of the " + p.event + " samples of the child's tasks taken in the symbol itself (perf record, self)"},
		{Name: ProfileChildren + "*", Unit: "%", Desc: "share of the " + p.event + " samples of the child's tasks with the symbol on the stack (perf record, children)"},
	}
}

// Start attaches perf record to the stopped child pid. perf is started
// from a goroutine of its own, locked to its thread, never from the
// caller's thread (the one that forks the child, where the perf
// collector's inherited counters wait: they would count perf too); it
// gets SIGKILL when that thread ends (contend killed), and a process
// group of its own, out of the child's group kill.
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
	// perf ends the recording when its control descriptor closes: the
	// write end is held until Stop.
	defer ctlR.Close()
	defer ackW.Close()
	defer ackR.Close()
	keep := false
	defer func() {
		if !keep {
			ctlW.Close()
		}
	}()
	errf, err := os.Create(data + ".err")
	if err != nil {
		return err
	}
	defer errf.Close()
	cmd := exec.Command(p.perf, "record", "-q", "-N", "-B", "-e", p.event, "-F", strconv.Itoa(profileRate), "-g",
		"-D", "-1", "--control", "fd:3,4", "-p", strconv.Itoa(pid), "-o", data)
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
	rec := &recording{cmd: cmd, data: data, exited: exited, errf: errf.Name(), ctl: ctlW}
	// Enable sampling once perf has attached, and wait for its ack.
	if _, err := ctlW.Write([]byte("enable\n")); err != nil {
		rec.kill()
		return fmt.Errorf("perf record did not start: %s", rec.stderr(err))
	}
	ack := make(chan error, 1)
	go func() {
		line, err := bufio.NewReader(ackR).ReadString('\n')
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
	p.rec = rec
	keep = true
	return nil
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

func (r *recording) kill() {
	r.cmd.Process.Kill()
	<-r.exited
	r.cmd.Wait()
	r.ctl.Close()
}

// Stop waits for perf record to end (it ends when the child's last task
// does; it is told to after 10 s), reaps it, and folds the recording.
func (p *profile) Stop() (map[string]float64, []string, error) {
	rec := p.rec
	p.rec = nil
	if rec == nil {
		return nil, nil, nil
	}
	defer os.Remove(rec.data)
	defer os.Remove(rec.errf)
	select {
	case <-rec.exited:
	case <-time.After(10 * time.Second):
		rec.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-rec.exited:
		case <-time.After(10 * time.Second):
			rec.cmd.Process.Kill()
			<-rec.exited
		}
	}
	werr := rec.cmd.Wait()
	rec.ctl.Close()
	if werr != nil {
		return nil, nil, fmt.Errorf("perf record: %s", rec.stderr(werr))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	script := exec.CommandContext(ctx, p.perf, "script", "-i", rec.data, "-F", "comm,period,ip,sym,dso")
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
	prof, ferr := foldScript(out)
	if err := script.Wait(); err != nil {
		return nil, nil, fmt.Errorf("perf script: %s", firstLineOr(serr.String(), err))
	}
	if ferr != nil {
		return nil, nil, fmt.Errorf("perf script: %v", ferr)
	}
	m := map[string]float64{}
	var notes []string
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
	return m, notes, nil
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
	if p.rec != nil {
		p.rec.kill()
		p.rec = nil
	}
	return os.RemoveAll(p.dir)
}
