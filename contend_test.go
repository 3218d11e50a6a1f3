package contend

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// TestNativeEditRebuilds checks the fix for golang/go#24355: after an edit
// to a file in native/, the next `go build` compiles the new C code. It
// copies the module, builds, edits native/common.c, builds again and runs
// the binary's child mode, which reports the compiler string from C.
func TestNativeEditRebuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the module twice")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	src, _ := os.Getwd()
	dst := t.TempDir()
	err = filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			switch rel {
			case ".git", "bin", "results", "docs", "scripts":
				return filepath.SkipDir
			}
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	build := func() string {
		t.Helper()
		cmd := exec.Command(gobin, "build", "-o", "contend", "./cmd/contend")
		cmd.Dir = dst
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		out, err := exec.Command(filepath.Join(dst, "contend"), "env", "--format", "json").Output()
		if err != nil {
			t.Fatalf("contend env: %v", err)
		}
		return string(out)
	}
	before := build()
	common := filepath.Join(dst, "native", "common.c")
	b, _ := os.ReadFile(common)
	edited := strings.Replace(string(b), `return "gcc " __VERSION__;`, `return "edited-" __VERSION__;`, 1)
	if edited == string(b) {
		t.Fatal("native/common.c no longer has the line this test edits")
	}
	os.WriteFile(common, []byte(edited), 0o644)
	after := build()
	if strings.Contains(before, "edited-") || !strings.Contains(after, "edited-") {
		t.Errorf("the edit to native/common.c was not compiled in:\nbefore: %.200s\nafter: %.200s", before, after)
	}
}

func TestNativeHashStable(t *testing.T) {
	h := NativeHash()
	if len(h) != 16 || h != NativeHash() {
		t.Errorf("NativeHash %q", h)
	}
}

// TestFullVersion: the version names the revision and the local changes
// the build stamped, so that results of two builds of one release from
// different sources say different versions (it said "0.1.0" for every
// build); without a stamp it is the release alone.
func TestFullVersion(t *testing.T) {
	rev := "fb1c8a9c1d2e3f405162738495a6b7c8d9e0f1a2"
	for _, c := range []struct {
		s    []debug.BuildSetting
		want string
	}{
		{nil, Version},
		{[]debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.modified", Value: "true"}}, Version},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "false"}}, Version + "+fb1c8a9c1d2e"},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "true"}}, Version + "+fb1c8a9c1d2e-dirty"},
	} {
		if got := versionOf(c.s); got != c.want {
			t.Errorf("versionOf(%v) = %q, want %q", c.s, got, c.want)
		}
	}
	if v := FullVersion(); !strings.HasPrefix(v, Version) {
		t.Errorf("FullVersion() = %q, not of release %s", v, Version)
	}
}
