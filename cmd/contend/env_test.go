package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/results"
)

// TestEnvRecordsBuild builds contend with CGO_CFLAGS="-O0 -fno-inline"
// and checks that `contend env` and a result file show it, both as the
// variable and as what the C compiler did: cgo puts CGO_CFLAGS before
// bind's #cgo CFLAGS, so bind's -O2 wins over -O0 and only -fno-inline
// takes effect; cc.flags must say exactly that. Then compare must warn
// against a file of the ordinary build.
func TestEnvRecordsBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds contend")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	// Beside the other parallel tests: most of it is the build; its
	// runs are processes of their own.
	t.Parallel()
	src, _ := os.Getwd()
	dir := t.TempDir()
	if _, err := os.Stat(filepath.Join(src, "main.go")); err != nil {
		t.Skipf("cannot find cmd/contend from %s", src)
	}
	bin := noinlinePath(t, src)
	build := exec.Command(gobin, "build", "-tags", "urfave_cli_no_docs", "-o", bin, ".")
	build.Dir = src
	build.Env = append(os.Environ(), "CGO_CFLAGS=-O0 -fno-inline")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "env", "--format", "json").Output()
	if err != nil {
		t.Fatalf("contend env: %v", err)
	}
	var fp map[string]string
	if err := json.Unmarshal(out, &fp); err != nil {
		t.Fatal(err)
	}
	check := func(what string, fp map[string]string) {
		t.Helper()
		if fp["build.CGO_CFLAGS"] != "-O0 -fno-inline" || !strings.HasPrefix(fp["cc.flags"], "-O1 or higher, no inlining;") ||
			fp["build.tags"] != "urfave_cli_no_docs" || fp["build.GOARCH"] == "" || fp["build.compiler"] != "gc" || fp["build.vcs"] == "" {
			t.Errorf("%s does not record the build with CGO_CFLAGS: %v", what, fp)
		}
	}
	check("contend env", fp)

	o0 := filepath.Join(dir, "o0.json")
	if out, err := exec.Command(bin, "exec", "-n", "3", "--quiet", "--out", o0, "--", "/bin/true").CombinedOutput(); err != nil {
		t.Fatalf("contend exec: %v\n%s", err, out)
	}
	f, err := results.Read(o0)
	if err != nil {
		t.Fatal(err)
	}
	check("the result file", f.Env)

	// The ordinary build's run, as a process: a run in this process
	// would kill, as leftovers of its repetitions, the processes the
	// other parallel tests start meanwhile (harness: contend is a child
	// subreaper).
	o2 := filepath.Join(dir, "o2.json")
	if out, err := contendCmd(t, "exec", "-n", "3", "--quiet", "--out", o2, "--", "/bin/true").CombinedOutput(); err != nil {
		t.Fatalf("exec: %v\n%s", err, out)
	}
	r := runCLI(t, "compare", o2, o0)
	if !strings.Contains(r.stdout, "warning: contend was built differently for the sides: cc.flags") ||
		!strings.Contains(r.stdout, "build.CGO_CFLAGS") {
		t.Errorf("compare does not warn about the builds:\n%s%s", r.stdout, r.stderr)
	}
}

// noinlinePath is where TestEnvRecordsBuild builds contend from the
// sources in src: a file of its own in the user's cache directory
// (private, one per source tree), so that go build, which leaves an
// up-to-date binary alone, links it again only when a source or a flag
// changed (5 s of a quiet run of this package went to that link); a
// temporary directory when there is no cache directory.
func noinlinePath(t *testing.T, src string) string {
	cache, err := os.UserCacheDir()
	if err != nil {
		return filepath.Join(t.TempDir(), "contend-noinline")
	}
	dir := filepath.Join(cache, "contend-test")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return filepath.Join(t.TempDir(), "contend-noinline")
	}
	sum := sha256.Sum256([]byte(src))
	return filepath.Join(dir, fmt.Sprintf("contend-noinline-%x", sum[:8]))
}
