package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"
)

// bpfFDs reads the ids of the BPF programs and links that process pid
// holds, from its /proc/PID/fdinfo (prog_id: of a program or a link's).
func bpfFDs(pid int) (progs map[ebpf.ProgramID]bool, links int) {
	progs = map[ebpf.ProgramID]bool{}
	fds, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "fdinfo", "*"))
	for _, fd := range fds {
		f, err := os.Open(fd)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if !ok {
				continue
			}
			v = strings.TrimSpace(v)
			switch k {
			case "prog_id":
				n, _ := strconv.Atoi(v)
				progs[ebpf.ProgramID(n)] = true
			case "link_id":
				links++
			}
		}
		f.Close()
	}
	return progs, links
}

// TestBPFGoneAfterContendKilled: `contend exec --evidence lock,offcpu`
// killed with SIGKILL while its child runs (programs attached: links in
// its fdinfo) leaves none of its BPF programs loaded in the kernel.
func TestBPFGoneAfterContendKilled(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("BPF needs root")
	}
	// Beside the long parallel tests: its contend is a process of its
	// own, and it looks only at that process's programs.
	t.Parallel()
	dir := t.TempDir()
	cmd := contendCmd(t, "exec", "--evidence", "lock,offcpu", "-n", "3", "-q", "--out", filepath.Join(dir, "r.json"), "--", "/bin/sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var progs map[ebpf.ProgramID]bool
	links := 0
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && links < 9; time.Sleep(20 * time.Millisecond) {
		progs, links = bpfFDs(cmd.Process.Pid)
	}
	alive := 0
	for id := range progs {
		if loaded(id) {
			alive++
		}
	}
	children, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "task", strconv.Itoa(cmd.Process.Pid), "children"))
	cmd.Process.Kill()
	cmd.Wait()
	for _, c := range strings.Fields(string(children)) {
		if pid, err := strconv.Atoi(c); err == nil {
			syscall.Kill(-pid, syscall.SIGKILL)
			syscall.Kill(pid, syscall.SIGKILL)
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, 0, nil)
		}
	}
	if links < 9 {
		t.Skipf("contend held %d BPF links, not the 9 of lock and offcpu (BPF not available here?)", links)
	}
	if len(progs) < 9 || alive != len(progs) {
		t.Fatalf("contend held %d programs, %d of them loaded: want the 9 of lock and offcpu, all loaded", len(progs), alive)
	}
	deadline := time.Now().Add(10 * time.Second)
	for id := range progs {
		for loaded(id) {
			if time.Now().After(deadline) {
				t.Fatalf("program %d still loaded 10 s after contend's SIGKILL", id)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// loaded tells whether program id is in the kernel's enumeration.
func loaded(id ebpf.ProgramID) bool {
	for cur := ebpf.ProgramID(0); ; {
		next, err := ebpf.ProgramGetNextID(cur)
		if err != nil {
			return false
		}
		if next == id {
			return true
		}
		cur = next
	}
}
