package vm

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"contend/internal/env"
)

// Job is what a guest's init runs: the contend arguments (without the
// program name) and the result file they write, handed back; Env (the
// facts about the virtual machine, as EnvVar) and Vars (NAME=VALUE words,
// Command.Env) are added to the command's environment.
type Job struct {
	Args []string          `json:"args"`
	Out  string            `json:"out"`
	Env  map[string]string `json:"env,omitempty"`
	Vars []string          `json:"vars,omitempty"`
	More []Step            `json:"more,omitempty"`
}

// Report is what the guest's init sends back about its boot and the run,
// in the frame "report".
type Report struct {
	Release string `json:"release"`
	Version string `json:"version"`
	Cmdline string `json:"cmdline"`
	BootID  string `json:"boot_id"`
	// Exit is the command's exit status (-1: it did not run or was
	// killed; Error says why).
	Exit  int    `json:"exit"`
	Error string `json:"error,omitempty"`
	// More are the exit statuses of the job's further commands
	// (Command.More), in order: -1 when one could not be run.
	More []int `json:"more,omitempty"`
}

// The frames of a guest: "started" just before the command starts (its
// time on the host is when the workload started), "report" after it,
// "result" the result file.
const (
	frameStarted = "started"
	frameReport  = "report"
	frameResult  = "result"
)

// moreFrame names the frame of the result file of the job's further
// command i (Command.More).
func moreFrame(i int) string { return fmt.Sprintf("%s.%d", frameResult, i+1) }

// EnvVar carries the facts about the virtual machine (the accelerator,
// vCPUs, memory, QEMU, the host's CPU: keys "vm.*") from the guest's init
// into the environment of the command it runs, which records them
// (env.Capture) in its result file.
const EnvVar = env.VMEnvVar

// guestPort is the serial port the guest hands its frames back over.
const guestPort = "/dev/ttyS1"

// IsGuestInit reports whether this process is contend started as a
// guest's init: process 1, run as /init, with a job in its root.
func IsGuestInit() bool {
	if os.Getpid() != 1 || len(os.Args) == 0 || os.Args[0] != "/init" {
		return false
	}
	_, err := os.Stat("/" + jobFile)
	return err == nil
}

// GuestMain is contend as the init of a guest that Boot started: it
// mounts proc, sys, devtmpfs, tracefs (and tmpfs on /tmp, /run,
// /dev/shm), says on the port that the command starts, runs the job's
// contend command, sends its report and result file over the port, and
// powers the guest off (a reset QEMU ends on). It never returns: init
// must not exit.
func GuestMain() int {
	say := func(format string, a ...any) { fmt.Fprintf(os.Stderr, "contend-init: "+format+"\n", a...) }
	for _, m := range []struct{ fs, dir string }{
		{"proc", "/proc"}, {"sysfs", "/sys"}, {"devtmpfs", "/dev"}, {"tmpfs", "/tmp"}, {"tmpfs", "/run"},
		{"tracefs", "/sys/kernel/tracing"}, {"debugfs", "/sys/kernel/debug"}, {"tmpfs", "/dev/shm"},
	} {
		os.MkdirAll(m.dir, 0o755)
		if err := unix.Mount(m.fs, m.dir, m.fs, 0, ""); err != nil && !errors.Is(err, unix.EBUSY) {
			say("mount %s on %s: %v", m.fs, m.dir, err)
		}
	}
	port, err := openPort(guestPort)
	if err != nil {
		say("cannot open %s (the second 8250 serial port, through which the result goes back): %v", guestPort, err)
		powerOff()
	}
	rep := guestRun(port, say)
	b, _ := json.Marshal(rep)
	if err := WriteFrame(port, frameReport, b); err != nil {
		say("writing the report to %s: %v", guestPort, err)
	}
	drain(port)
	port.Close()
	powerOff()
	return 0
}

// guestRun runs the job and returns the report; the result file goes
// over port.
func guestRun(port *os.File, say func(string, ...any)) Report {
	rep := Report{Exit: -1}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		rep.Release, rep.Version = cstring(u.Release[:]), cstring(u.Version[:])
	}
	b, _ := os.ReadFile("/proc/cmdline")
	rep.Cmdline = strings.TrimSpace(string(b))
	b, _ = os.ReadFile("/proc/sys/kernel/random/boot_id")
	rep.BootID = strings.TrimSpace(string(b))
	var job Job
	b, err := os.ReadFile("/" + jobFile)
	if err == nil {
		err = json.Unmarshal(b, &job)
	}
	if err != nil || len(job.Args) == 0 {
		rep.Error = fmt.Sprintf("no job in /%s: %v", jobFile, err)
		return rep
	}
	WriteFrame(port, frameStarted, []byte(rep.BootID))
	rep.Exit, rep.Error = guestCommand(port, job, Step{Args: job.Args, Out: job.Out}, frameResult, say)
	for i, st := range job.More {
		exit, _ := guestCommand(port, job, st, moreFrame(i), say)
		rep.More = append(rep.More, exit)
	}
	return rep
}

// guestCommand runs one contend command of the job and sends its result
// file over port in the frame named frame; it returns the exit status
// (-1: not run, or killed) and what went wrong.
func guestCommand(port *os.File, job Job, st Step, frame string, say func(string, ...any)) (int, string) {
	cmd := exec.Command(GuestBinary, st.Args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Env = []string{"PATH=/bin", "HOME=/root", "TMPDIR=/tmp", "LD_LIBRARY_PATH=" + strings.Join(libDirs, ":")}
	if len(job.Env) > 0 {
		e, _ := json.Marshal(job.Env)
		cmd.Env = append(cmd.Env, EnvVar+"="+string(e))
	}
	cmd.Env = append(cmd.Env, job.Vars...)
	t := time.Now()
	err := cmd.Run()
	say("'contend %s' ended after %s: %v", strings.Join(st.Args, " "), time.Since(t).Round(time.Millisecond), err)
	exit, why := -1, ""
	switch {
	case err == nil:
		exit = 0
	case cmd.ProcessState != nil && cmd.ProcessState.Exited():
		exit = cmd.ProcessState.ExitCode()
		why = err.Error()
	default:
		why = err.Error()
	}
	if st.Out != "" {
		data, err := os.ReadFile(st.Out)
		if err != nil {
			if why == "" {
				why = fmt.Sprintf("no result file: %v", err)
			}
		} else if err := WriteFrame(port, frame, data); err != nil {
			why = fmt.Sprintf("writing the result file to %s: %v", guestPort, err)
		}
	}
	return exit, why
}

// openPort opens a serial port for writing, raw (no newline turned into
// CR LF, no flow control).
func openPort(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_WRONLY|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	if t, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS); err == nil {
		t.Oflag &^= unix.OPOST
		t.Cflag |= unix.CLOCAL
		t.Cflag &^= unix.CRTSCTS
		t.Iflag &^= unix.IXON | unix.IXOFF
		unix.IoctlSetTermios(int(f.Fd()), unix.TCSETS, t)
	} else {
		// A port without a UART behind it (ttyS1 registered, nothing
		// there) fails here: nothing would reach the host.
		f.Close()
		return nil, fmt.Errorf("not a working serial port: %v", err)
	}
	return f, nil
}

// drain waits until what was written to port has left it (tcdrain).
func drain(port *os.File) {
	unix.IoctlSetInt(int(port.Fd()), unix.TCSBRK, 1)
}

// powerOff syncs and resets the guest (QEMU runs with -no-reboot: a
// reset ends it); init never exits.
func powerOff() {
	unix.Sync()
	unix.Reboot(unix.LINUX_REBOOT_CMD_RESTART)
	for {
		time.Sleep(time.Hour)
	}
}

func cstring(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
