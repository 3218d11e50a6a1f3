// Package kbuildtest makes fake kernel trees for the tests of what builds
// kernels (internal/bisect, cmd/contend's campaigns): git repositories
// whose Makefile has the targets internal/kbuild uses, so that a build
// takes milliseconds and rebuilds only the sources a commit changed.
package kbuildtest

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/kbuild"
)

// Makefile mimics the targets of a kernel tree that kbuild uses:
// tinyconfig copies tiny.config; olddefconfig keeps it; bzImage puts
// header.bin (a boot header naming the tree's release) before the objects
// of src/*.c, each compiled when its source is newer.
const Makefile = `O ?= .
OBJS := $(patsubst src/%.c,$(O)/obj/%.o,$(sort $(wildcard src/*.c)))
tinyconfig:
	mkdir -p $(O) && cp tiny.config $(O)/.config
olddefconfig:
	@true
$(O)/obj/%.o: src/%.c
	@mkdir -p $(O)/obj && cat $< > $@
bzImage: $(OBJS)
	@mkdir -p $(O)/arch/x86/boot && cat header.bin $(OBJS) > $(O)/arch/x86/boot/bzImage
`

// Tree is a fake kernel tree being made: Dir its repository.
type Tree struct {
	t   *testing.T
	Dir string
}

// New makes the tree's files (no commit yet) in a temporary directory: the
// Makefile, a boot header naming release (for example "6.1.0-test") and a
// tiny.config with the options kbuild requires, SMP and SCHED_MC.
func New(t *testing.T, release string) *Tree {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "linux")
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	img := make([]byte, 0x1000)
	copy(img[0x202:], "HdrS")
	binary.LittleEndian.PutUint16(img[0x20e:], 0x300)
	copy(img[0x500:], release+" (test) #1 SMP\x00")
	var cfg strings.Builder
	for _, r := range append(kbuild.Required, "SMP", "SCHED_MC") {
		fmt.Fprintf(&cfg, "CONFIG_%s=y\n", r)
	}
	tr := &Tree{t: t, Dir: dir}
	tr.Write("header.bin", string(img))
	tr.Write("Makefile", Makefile)
	tr.Write("tiny.config", cfg.String())
	tr.Git("init", "-q", "-b", "main")
	return tr
}

// Write writes a file of the tree (a path relative to it).
func (tr *Tree) Write(name, body string) {
	tr.t.Helper()
	if err := os.WriteFile(filepath.Join(tr.Dir, name), []byte(body), 0o644); err != nil {
		tr.t.Fatal(err)
	}
}

// Git runs git in the tree and returns its output, trimmed.
func (tr *Tree) Git(args ...string) string {
	tr.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", tr.Dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	b, err := cmd.CombinedOutput()
	if err != nil {
		tr.t.Fatalf("git %v: %v\n%s", args, err, b)
	}
	return strings.TrimSpace(string(b))
}

// Commit commits everything written, with message, and returns its hash.
func (tr *Tree) Commit(message string) string {
	tr.t.Helper()
	tr.Git("add", "-A")
	tr.Git("commit", "-q", "-m", message)
	return tr.Git("rev-parse", "HEAD")
}
