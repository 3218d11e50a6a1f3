package vm

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestHelperBoot is the contend of TestNoQEMUOutlivesSIGKILL: it boots a
// guest that hangs after its banner, and is SIGKILLed meanwhile.
func TestHelperBoot(t *testing.T) {
	if os.Getenv("VM_TEST_HELPER") != "1" {
		t.Skip("the helper of TestNoQEMUOutlivesSIGKILL")
	}
	r, err := NewRunner(context.Background(), Config{QEMU: os.Getenv("VM_TEST_QEMU"), Contend: "/bin/true", Accel: AccelTCG})
	if err != nil {
		t.Fatal(err)
	}
	// Other goroutines on other threads, so that the thread that
	// forks QEMU is not the only one (the death signal follows the
	// forking thread, not the process).
	for i := 0; i < 8; i++ {
		go func() {
			for {
				time.Sleep(time.Millisecond)
			}
		}()
	}
	r.Boot(context.Background(), Guest{Kernel: os.Getenv("VM_TEST_KERNEL"), Timeout: time.Hour}, Command{Args: []string{"run"}})
}

// TestNoQEMUOutlivesSIGKILL SIGKILLs a process that runs a guest and
// checks that its QEMU dies too (by SIGKILL, from PR_SET_PDEATHSIG):
// this test is made the orphan's reaper (PR_SET_CHILD_SUBREAPER) and
// waits for it.
func TestNoQEMUOutlivesSIGKILL(t *testing.T) {
	if os.Getenv("VM_TEST_HELPER") == "1" {
		t.Skip("in the helper")
	}
	qemu, pids, kernel := fake(t, "bannerhang", "", nil)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Skipf("PR_SET_CHILD_SUBREAPER: %v", err)
	}
	defer unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperBoot$", "-test.count=1")
	// The killed helper cannot remove its scratch directory: in ours.
	cmd.Env = append(os.Environ(), "VM_TEST_HELPER=1", "VM_TEST_QEMU="+qemu, "VM_TEST_KERNEL="+kernel, "TMPDIR="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	for deadline := time.Now().Add(30 * time.Second); pid == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ps := pidsOf(t, pids); len(ps) == 1 {
			pid, _ = strconv.Atoi(ps[0][0])
		}
	}
	if pid == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the helper started no guest within 30 s")
	}
	// The guest runs: it must be the fake's sleep, in its own group.
	time.Sleep(200 * time.Millisecond)
	if pgid, _ := syscall.Getpgid(pid); pgid != pid {
		t.Errorf("QEMU %d is in process group %d, not its own", pid, pgid)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	var ws syscall.WaitStatus
	got := make(chan error, 1)
	go func() {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			wpid, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			if wpid == pid || err != nil {
				got <- err
				return
			}
		}
		got <- syscall.ETIMEDOUT
	}()
	if err := <-got; err != nil {
		syscall.Kill(-pid, syscall.SIGKILL)
		syscall.Wait4(pid, &ws, 0, nil)
		t.Fatalf("QEMU %d outlived the SIGKILLed contend by 10 s (%v): killed now", pid, err)
	}
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("QEMU %d ended %v, want killed by SIGKILL (its death signal)", pid, ws)
	}
	if b, _ := os.ReadFile(pids); strings.Count(string(b), "\n") != 1 {
		t.Errorf("guests: %q", b)
	}
}
