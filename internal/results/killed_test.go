package results

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestKilledBeforeHeaderLeavesNoFile: a writer killed (SIGKILL) right
// before the first byte of a new result file is written leaves no file at
// its path (the temporary beside it is removed by the next writer), for
// a new file and for --append or --replace of a missing one. Before, the
// file was created at its path first and the header written into it: the
// kill left an empty file that show rejected.
func TestKilledBeforeHeaderLeavesNoFile(t *testing.T) {
	for _, mode := range []string{"new", "append", "replace"} {
		dir := t.TempDir()
		path := filepath.Join(dir, "r.json")
		cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterHelper$")
		cmd.Env = append(os.Environ(), "RESULTS_KILL_PATH="+path, "RESULTS_KILL_MODE="+mode)
		err := cmd.Run()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("%s: the helper was not killed: %v", mode, err)
		}
		if st, err := os.Lstat(path); err == nil {
			t.Errorf("%s: the killed writer left %s (%d bytes)", mode, path, st.Size())
		}
		w, err := Create(path, sampleFile())
		if err != nil {
			t.Fatalf("%s: the next writer: %v", mode, err)
		}
		w.Close()
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 {
			t.Errorf("%s: files left beside the result: %v", mode, ents)
		}
	}
}

// TestKilledWriterHelper kills itself at its first write of a result
// file (TestKilledBeforeHeaderLeavesNoFile).
func TestKilledWriterHelper(t *testing.T) {
	path := os.Getenv("RESULTS_KILL_PATH")
	if path == "" {
		t.Skip("helper of TestKilledBeforeHeaderLeavesNoFile")
	}
	writeAt = func(*os.File, []byte, int64) (int, error) {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	mode := map[string]Mode{"new": ModeNew, "append": ModeAppend, "replace": ModeReplace}[os.Getenv("RESULTS_KILL_MODE")]
	Open(path, sampleFile(), mode)
	t.Fatal("not killed")
}
