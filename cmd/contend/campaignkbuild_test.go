package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/campaign"
	"contend/internal/kbuild"
)

// fakeKernelTree makes a git repository that mimics a kernel tree's
// targets (tinyconfig, olddefconfig, bzImage: a boot header naming
// release 6.1.0-tree before the objects of src/*.c), with two commits
// that differ in one source.
func fakeKernelTree(t *testing.T) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "linux")
	os.MkdirAll(filepath.Join(repo, "src"), 0o755)
	img := make([]byte, 0x1000)
	copy(img[0x202:], "HdrS")
	binary.LittleEndian.PutUint16(img[0x20e:], 0x300)
	copy(img[0x500:], "6.1.0-tree (test) #1 SMP\x00")
	os.WriteFile(filepath.Join(repo, "header.bin"), img, 0o644)
	os.WriteFile(filepath.Join(repo, "Makefile"), []byte(`O ?= .
OBJS := $(patsubst src/%.c,$(O)/obj/%.o,$(sort $(wildcard src/*.c)))
tinyconfig:
	mkdir -p $(O) && cp tiny.config $(O)/.config
olddefconfig:
	@true
$(O)/obj/%.o: src/%.c
	@mkdir -p $(O)/obj && cat $< > $@
bzImage: $(OBJS)
	@mkdir -p $(O)/arch/x86/boot && cat header.bin $(OBJS) > $(O)/arch/x86/boot/bzImage
`), 0o644)
	var cfg strings.Builder
	for _, r := range append(kbuild.Required, "SMP", "SCHED_MC") {
		fmt.Fprintf(&cfg, "CONFIG_%s=y\n", r)
	}
	os.WriteFile(filepath.Join(repo, "tiny.config"), []byte(cfg.String()), 0o644)
	for i, body := range []string{"a0\n", "a1\n"} {
		os.WriteFile(filepath.Join(repo, "src", "a.c"), []byte(body), 0o644)
		os.WriteFile(filepath.Join(repo, "src", "b.c"), []byte("b\n"), 0o644)
		for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", fmt.Sprint("commit ", i)}} {
			if i > 0 && args[0] == "init" {
				continue
			}
			cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
			cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, b)
			}
		}
	}
	return repo
}

// TestCampaignVMInitKernelTree: 'campaign init --vm --kernel-tree' builds
// the two revisions into the campaign's build directory (B rebuilding
// the one source that differs), makes their images the sides' kernels
// and keeps each build's facts in the plan for the boots' result files;
// its flags are refused in one line (exit 2) when they do not go
// together, nothing written.
func TestCampaignVMInitKernelTree(t *testing.T) {
	dir := chdirTemp(t)
	allowVolatileTemp(t, dir)
	tree := fakeKernelTree(t)
	before := listFiles(t, dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--vm", "--a-rev", "HEAD"}, "--a-rev goes with --kernel-tree"},
		{[]string{"--vm", "--kernel-config", "tinyconfig"}, "--kernel-config goes with --kernel-tree"},
		{[]string{"--kernel-tree", tree, "--a-rev", "HEAD", "--b-rev", "HEAD", "--a-boot-command", "true", "--b-boot-command", "true"}, "--kernel-tree goes with --vm"},
		{[]string{"--vm", "--kernel-tree", tree, "--a-rev", "HEAD"}, "--b-rev: give side B's revision of --kernel-tree"},
		{[]string{"--vm", "--kernel-tree", tree, "--a-rev", "HEAD", "--b-rev", "HEAD", "--a-kernel", tree}, "--a-kernel: --kernel-tree builds side A's kernel"},
		{[]string{"--vm", "--kernel-tree", tree, "--a-rev", "HEAD", "--b-rev", "HEAD", "--kernel-config", "nonsense"}, `nonsense" is not defconfig, tinyconfig, running, nor a readable config file`},
	} {
		args := append(append([]string{"campaign", "init", "kc"}, c.args...), "--", "run", "faultme", "-n", "2")
		assertUsageError(t, runCLI(t, args...), c.want, dir, before)
	}
	r := runCLI(t, "campaign", "init", "kc", "--vm", "--kernel-tree", tree, "--kernel-config", "tinyconfig", "--a-rev", "HEAD~1", "--b-rev", "HEAD",
		"--vm-cpus", "1", "--vm-accel", "tcg", "--boots", "2", "--", "run", "faultme", "-n", "2")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "kernel A: HEAD~1 (") || !strings.Contains(r.stderr, "2 objects rebuilt") || !strings.Contains(r.stderr, "1 object rebuilt") {
		t.Errorf("stderr %q: want both builds, A all its objects, B the one that differs", r.stderr)
	}
	p, err := campaign.ReadPlan(filepath.Join(dir, "kc"))
	if err != nil {
		t.Fatal(err)
	}
	for i, rev := range []string{"HEAD~1", "HEAD"} {
		out, _ := exec.Command("git", "-C", tree, "rev-parse", rev).Output()
		h := strings.TrimSpace(string(out))
		k := p.Sides[i].Boot.VM
		if k == nil || k.Kernel != filepath.Join(dir, "kc", "kbuild", kbuild.ImagesDir, h[:12]+".bzImage") || k.Build["kbuild.revision"] != h ||
			k.Build["kbuild.config.SCHED_MC"] != "y" || p.Sides[i].Expect.Release != "6.1.0-tree" {
			t.Errorf("side %d: %+v, release %q", i, k, p.Sides[i].Expect.Release)
		}
	}
}
