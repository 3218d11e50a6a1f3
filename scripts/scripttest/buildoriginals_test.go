// Package scripttest holds the tests of the shell scripts in scripts/ (a
// package of its own: scripts/ holds a C file).
package scripttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildOriginals runs build-originals.sh with args from dir and returns its
// exit code and standard error.
func buildOriginals(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	script, err := filepath.Abs("../build-originals.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", append([]string{script}, args...)...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stderr.String()
}

// entries lists dir's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestBuildOriginalsWrongSeeds: "build-originals.sh . ." (the repository
// taken for the seeds folder) exits 2 naming SEEDS-DIR and what it must
// hold, and writes nothing (it used to say "faultme.c not found" after
// leaving empty .c files in OUT-DIR).
func TestBuildOriginalsWrongSeeds(t *testing.T) {
	dir := t.TempDir()
	code, stderr := buildOriginals(t, dir, ".", ".")
	if code != 2 || !strings.Contains(stderr, "no seed mail with faultme.c in SEEDS-DIR .") || !strings.Contains(stderr, "usage:") {
		t.Errorf("exit %d, stderr %q; want 2 and a message naming SEEDS-DIR", code, stderr)
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("left behind %v", names)
	}
	if code, stderr := buildOriginals(t, dir, ".", "out", "extra"); code != 2 || !strings.Contains(stderr, "3 arguments, at most 2") {
		t.Errorf("three arguments: exit %d, stderr %q", code, stderr)
	}
}

// TestBuildOriginalsCleansUp: mails holding faultme.c and mainc.c that are
// not the expected programs fail the script, and neither the .c files it
// wrote nor the OUT-DIR it created remain.
func TestBuildOriginalsCleansUp(t *testing.T) {
	seeds := t.TempDir()
	mail := "Subject: x\n--b\nContent-Disposition: attachment; filename=\"faultme.c\"\n\n#include <stdio.h>\n#define THREADS 12\nint main(void) { return 0; }\n--b\n" +
		"--b\nContent-Disposition: attachment; filename=\"mainc.c\"\n\n#include <stdio.h>\nint main(void) { return 0; }\n--b--\n"
	if err := os.WriteFile(filepath.Join(seeds, "000.txt"), []byte(mail), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	code, stderr := buildOriginals(t, dir, seeds, "out")
	if code != 1 || !strings.Contains(stderr, "faultme.c not as expected") {
		t.Errorf("exit %d, stderr %q; want 1, faultme.c not as expected", code, stderr)
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("left behind %v", names)
	}
	// An OUT-DIR that existed stays, emptied of what the run wrote only.
	out := filepath.Join(dir, "kept")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "mine"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _ := buildOriginals(t, dir, seeds, out); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if names := entries(t, out); len(names) != 1 || names[0] != "mine" {
		t.Errorf("OUT-DIR holds %v, want [mine]", names)
	}
}
