package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplaceOnFullDiskKeepsOldFile: 'import --replace' that cannot write
// its new file (the file size limit, RLIMIT_FSIZE, as a full disk) fails
// and leaves the old result file as it was, with nothing beside it; the
// old file was truncated before the new one was written, and lost.
func TestReplaceOnFullDiskKeepsOldFile(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit(1)")
	}
	dir := chdirTemp(t)
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "run %d: took %d ns\n", i+1, 100+i%7)
	}
	log := filepath.Join(dir, "l.txt")
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.json")
	metric := `time=took (\d+) ns:ns:lower`
	if r := runCLI(t, "import", "-q", "--metric", metric, "--select", "1..5", "--out", out, log); r.code != 0 {
		t.Fatalf("import: %d %s", r.code, r.stderr)
	}
	old, _ := os.ReadFile(out)
	cmd := contendCmd(t, "import", "-q", "--metric", metric, "--replace", "--out", out, log)
	cmd.Args = append([]string{prlimit, fmt.Sprintf("--fsize=%d", len(old)+4096), "--"}, cmd.Args...)
	cmd.Path = prlimit
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code == 0 || !strings.Contains(stderr.String(), "file too large") {
		t.Errorf("import --replace past the size limit: exit %d, stderr %q; want a failure naming it", code, stderr.String())
	}
	if now, err := os.ReadFile(out); err != nil || string(now) != string(old) {
		t.Errorf("the old file after the failed --replace: %v, %d bytes; want its %d bytes as they were", err, len(now), len(old))
	}
	if fs := listFiles(t, dir); len(fs) != 2 {
		t.Errorf("files: %v, want the log and the old result only", fs)
	}
	// Without the limit, the replacement takes its place.
	if r := runCLI(t, "import", "-q", "--metric", metric, "--replace", "--out", out, log); r.code != 0 || !strings.Contains(r.stdout, "repetitions: 2000 (2000 ok)") {
		t.Errorf("import --replace: %d %s%s", r.code, r.stdout, r.stderr)
	}
	if fs := listFiles(t, dir); len(fs) != 2 {
		t.Errorf("files after --replace: %v", fs)
	}
}
