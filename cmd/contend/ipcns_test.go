package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"contend/internal/harness"
	"contend/internal/ipcown"
)

// TestCleanupLeavesOtherNamespace SIGKILLs a contend that runs an osim
// repetition in its own IPC namespace (unshare -i). A cleanup in this
// namespace cannot see the set the run left, so it must leave the run's
// journal entry alone and say so; a cleanup inside the run's namespace
// (nsenter) then removes the set and the entry.
func TestCleanupLeavesOtherNamespace(t *testing.T) {
	ipcsSem(t)
	if out, err := exec.Command("unshare", "-i", "true").CombinedOutput(); err != nil {
		t.Skipf("unshare -i is refused here: %v %s", err, out)
	}
	if _, err := exec.LookPath("nsenter"); err != nil {
		t.Skip("no nsenter")
	}
	dir := chdirTemp(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.json")
	// A sleep keeps the namespace alive after contend and its repetition
	// child (killed by its death signal) are gone; sh execs contend in
	// place, so contend's pid is the command's.
	holder := filepath.Join(dir, "holder.pid")
	cmd := exec.Command("unshare", "-i", "sh", "-c", `sleep 120 </dev/null >/dev/null 2>&1 & echo $! >"$0"; exec "$@"`, holder,
		exe, "run", "osim", "2", "8", "2000000000", "0", "0", "-n", "1", "--out", out, "--quiet")
	cmd.Env = append(os.Environ(), "CONTEND_TEST_AS_MAIN=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	root := cmd.Process.Pid // unshare and sh exec in place
	killed := false
	t.Cleanup(func() {
		if !killed {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		}
		if b, err := os.ReadFile(holder); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				syscall.Kill(pid, syscall.SIGKILL)
				var ws syscall.WaitStatus
				syscall.Wait4(pid, &ws, 0, nil) // reparented to this test process, if it is a subreaper
			}
		}
	})
	w := watchRun(root)
	jdir, err := ipcown.Dir()
	if err != nil {
		t.Fatal(err)
	}

	// Wait for the journal entry and for the set under its key, in the
	// run's namespace.
	var entry ipcown.Entry
	var journal string
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no journal entry and set of contend %d in its namespace; stderr %s", root, stderr.String())
		}
		files, _ := filepath.Glob(filepath.Join(jdir, strconv.Itoa(root)+"-*.json"))
		if len(files) != 1 {
			continue
		}
		b, err := os.ReadFile(files[0])
		if err != nil || json.Unmarshal(b, &entry) != nil {
			continue
		}
		sem, err := exec.Command("nsenter", "--ipc=/proc/"+strconv.Itoa(root)+"/ns/ipc", "cat", "/proc/sysvipc/sem").Output()
		if err != nil {
			t.Fatalf("nsenter: %v", err)
		}
		if hasKey(string(sem), entry.Key) {
			journal = files[0]
			break
		}
	}
	if entry.IPCNS == 0 || entry.IPCNS == ipcown.IPCNS() {
		t.Fatalf("the entry of the run in its own namespace names namespace %d (this one: %d)", entry.IPCNS, ipcown.IPCNS())
	}
	if err := syscall.Kill(root, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed = true
	cmd.Wait()

	// A cleanup here: the entry stays, and cleanup says why and how.
	r := runCLI(t, "cleanup")
	// (Other entries may name the same inode: a dead namespace's inode is
	// reused.)
	want := regexp.MustCompile(fmt.Sprintf(`left [0-9]+ journal entr(y|ies) of runs killed in another IPC namespace \(ipc:\[%d\]\) alone`, entry.IPCNS))
	if r.code != 0 || !want.MatchString(r.stdout) || !strings.Contains(r.stdout, "nsenter --ipc=/proc/") {
		t.Errorf("cleanup in another namespace: exit %d\nstdout %q\nstderr %q\nwant %q and the nsenter command", r.code, r.stdout, r.stderr, want)
	}
	if _, err := os.Stat(journal); err != nil {
		t.Fatalf("the journal entry of the other namespace was removed by a cleanup here: %v", err)
	}

	// A cleanup in the run's namespace (kept alive by the sleep)
	// removes its set and entry.
	member := ipcown.NSProcess(entry.IPCNS)
	if member == 0 {
		t.Fatalf("no process is left in the run's namespace ipc:[%d]", entry.IPCNS)
	}
	in := exec.Command("nsenter", "--ipc=/proc/"+strconv.Itoa(member)+"/ns/ipc", exe, "cleanup")
	in.Env = append(os.Environ(), "CONTEND_TEST_AS_MAIN=1")
	got, err := in.CombinedOutput()
	if err != nil || !strings.Contains(string(got), "removed semaphore set") || strings.Contains(string(got), "another IPC namespace") {
		t.Errorf("cleanup in the run's namespace: %v\n%s", err, got)
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Errorf("journal entry %s left after the cleanup in its namespace: %v", journal, err)
	}

	// The repetition child and its workers are gone with contend (their
	// death signal), or are killed here.
	w.mu.Lock()
	for pg := range w.pgrps {
		harness.KillGroup(pg)
	}
	w.mu.Unlock()
	close(w.stop)
	<-w.done
}

// hasKey tells whether the /proc/sysvipc/sem text lists a set with key.
func hasKey(sem string, key int32) bool {
	for _, line := range strings.Split(sem, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == strconv.Itoa(int(key)) {
			return true
		}
	}
	return false
}
