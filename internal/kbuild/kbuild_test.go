package kbuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"contend/internal/lock"
)

// fakeMakefile mimics the targets of a kernel tree that Build uses:
// tinyconfig and defconfig copy configs/TARGET to O/.config;
// olddefconfig keeps the last value of each option (as Kconfig does)
// and turns SCHED_MC off without SMP (a dependency); bzImage compiles
// each src/*.c into O/obj/*.o when the source is newer (a file holding
// FAIL does not compile; one holding SLEEP records its shell's and a
// sleep's pids in $PIDS and waits) and concatenates them into
// O/arch/x86/boot/bzImage; it writes the variables it was given (and
// ccache's base directory) into O/vars.
const fakeMakefile = `O ?= .
SRCS := $(sort $(wildcard src/*.c))
OBJS := $(patsubst src/%.c,$(O)/obj/%.o,$(SRCS))
tinyconfig defconfig:
	mkdir -p $(O) && cp configs/$@ $(O)/.config
olddefconfig:
	awk -f olddefconfig.awk $(O)/.config > $(O)/.config.new && mv $(O)/.config.new $(O)/.config
$(O)/obj/%.o: src/%.c
	@mkdir -p $(O)/obj
	@if grep -q FAIL $<; then echo "$<:1: error: does not compile" >&2; exit 1; fi
	@if grep -q SLEEP $<; then echo $$$$ >>"$$PIDS"; sleep 300 & echo $$! >>"$$PIDS"; wait; fi
	@cat $< > $@
bzImage: $(OBJS)
	@mkdir -p $(O)/arch/x86/boot
	@cat $(OBJS) > $(O)/arch/x86/boot/bzImage
	@echo "CC=$(CC) TS=$(KBUILD_BUILD_TIMESTAMP) USER=$(KBUILD_BUILD_USER) HOST=$(KBUILD_BUILD_HOST) BASE=$(CCACHE_BASEDIR)" > $(O)/vars
`

const fakeOlddefconfig = `/^CONFIG_[A-Za-z0-9_]+=/ { i = index($0, "="); n = substr($0, 1, i - 1); v = substr($0, i + 1); if (!(n in val)) order[++k] = n; val[n] = v; next }
/^# CONFIG_[A-Za-z0-9_]+ is not set/ { n = $2; if (!(n in val)) order[++k] = n; val[n] = "n"; next }
END { if (val["CONFIG_SMP"] != "y") val["CONFIG_SCHED_MC"] = "n"
	for (i = 1; i <= k; i++) { n = order[i]; if (val[n] == "n") print "# " n " is not set"; else print n "=" val[n] } }
`

// guestConfig is every option of Required set, and SMP with SCHED_MC.
func guestConfig(extra ...string) string {
	var b strings.Builder
	for _, r := range Required {
		fmt.Fprintf(&b, "CONFIG_%s=y\n", r)
	}
	for _, e := range extra {
		b.WriteString(e + "\n")
	}
	return b.String()
}

// fakeTree makes a git repository holding the fake kernel tree, its
// commits each a map of files to write, and returns it and the commits'
// hashes.
func fakeTree(t *testing.T, commits ...map[string]string) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
		return strings.TrimSpace(string(b))
	}
	git("init", "-q", "-b", "main")
	base := map[string]string{
		"Makefile":           fakeMakefile,
		"olddefconfig.awk":   fakeOlddefconfig,
		"configs/tinyconfig": guestConfig("CONFIG_SMP=y", "CONFIG_SCHED_MC=y", "CONFIG_NR_CPUS=8", "CONFIG_PREEMPT_VOLUNTARY=y"),
		"configs/defconfig":  guestConfig("CONFIG_SMP=y", "CONFIG_SCHED_MC=y", "CONFIG_NR_CPUS=64", "CONFIG_TRANSPARENT_HUGEPAGE=y"),
	}
	var hashes []string
	for i, c := range commits {
		if i == 0 {
			for k, v := range base {
				if _, ok := c[k]; !ok {
					c[k] = v
				}
			}
		}
		for name, body := range c {
			p := filepath.Join(dir, name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if body == "" {
				os.Remove(p)
				continue
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		git("add", "-A")
		git("commit", "-q", "-m", fmt.Sprintf("commit %d", i))
		hashes = append(hashes, git("rev-parse", "HEAD"))
	}
	return dir, hashes
}

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// noCCache hides an installed ccache from the builds.
func noCCache(t *testing.T) {
	bin := t.TempDir()
	for _, p := range []string{"git", "make", "awk", "sh", "cat", "cp", "mkdir", "mv", "grep", "sleep", "rm"} {
		if path, err := exec.LookPath(p); err == nil {
			os.Symlink(path, filepath.Join(bin, p))
		}
	}
	t.Setenv("PATH", bin)
}

// TestBuildIncremental: the first build of a revision compiles every
// object; the next revision, which changes one source, rebuilds that
// one; a revision that changes no source rebuilds none; going back
// rebuilds what differs. Each revision's image is its own, kept beside
// its .config, whose hash and contention options are recorded.
func TestBuildIncremental(t *testing.T) {
	noCCache(t)
	tree, revs := fakeTree(t,
		map[string]string{"src/a.c": "a0\n", "src/b.c": "b0\n", "src/c.c": "c0\n"},
		map[string]string{"src/b.c": "b1\n"},
		map[string]string{"README": "docs\n"},
		map[string]string{"src/d.c": "d3\n", "src/a.c": "a3\n"},
	)
	o := Options{Tree: tree, Dir: filepath.Join(t.TempDir(), "kb"), Base: BaseTinyconfig, Jobs: 2}
	warns, err := Prepare(o)
	if err != nil || len(warns) > 0 {
		t.Fatalf("Prepare: %v, %v", warns, err)
	}
	want := []struct {
		rebuilt int
		image   string
	}{{3, "a0\nb0\nc0\n"}, {1, "a0\nb1\nc0\n"}, {0, "a0\nb1\nc0\n"}, {2, "a3\nb1\nc0\nd3\n"}, {2, "a0\nb0\nc0\n"}}
	for i, rev := range append(revs, revs[0]) {
		if i == len(revs) {
			// Back to the first revision: its image is kept, not built
			// again; after its record is gone, built again.
			k, err := Build(context.Background(), o, rev)
			if err != nil || !k.Cached || k.Rebuilt != 0 || k.Revision != rev {
				t.Errorf("the first revision again: %+v, %v; want its kept image", k, err)
			}
			os.Remove(filepath.Join(o.Dir, ImagesDir, rev[:12]+".json"))
		}
		k, err := Build(context.Background(), o, rev)
		if err != nil {
			t.Fatalf("build %d: %v", i, err)
		}
		if k.Revision != rev || k.Rebuilt != want[i].rebuilt {
			t.Errorf("build %d: revision %s, %d objects rebuilt; want %s, %d", i, k.Revision, k.Rebuilt, rev, want[i].rebuilt)
		}
		if b, _ := os.ReadFile(k.Image); string(b) != want[i].image {
			t.Errorf("build %d: image %q, want %q", i, b, want[i].image)
		}
		if k.Image != filepath.Join(o.Dir, ImagesDir, rev[:12]+".bzImage") {
			t.Errorf("build %d: image at %s", i, k.Image)
		}
		cfg, _ := os.ReadFile(filepath.Join(o.Dir, ImagesDir, rev[:12]+".config"))
		sum := sha256.Sum256(cfg)
		if len(cfg) == 0 || k.ConfigSHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("build %d: config hash %s, not the kept .config's", i, k.ConfigSHA256)
		}
		if k.Options["SCHED_MC"] != "y" || k.Options["NR_CPUS"] != "8" || k.Options["PREEMPT_VOLUNTARY"] != "y" || k.Options["LOCKDEP"] != "n" || len(k.Options) != len(Contention) {
			t.Errorf("build %d: options %v", i, k.Options)
		}
		if k.CCache {
			t.Errorf("build %d: ccache said used where it is not installed", i)
		}
	}
	vars, _ := os.ReadFile(filepath.Join(o.Dir, OutDir, "vars"))
	if !strings.Contains(string(vars), "TS=0 USER=contend HOST=contend BASE=\n") || strings.Contains(string(vars), "ccache") {
		t.Errorf("make's variables: %s", vars)
	}
	// The source tree stays clean (make O=): nothing but the revision.
	st, _ := exec.Command("git", "-C", filepath.Join(o.Dir, SrcDir), "status", "--porcelain").Output()
	if len(st) > 0 {
		t.Errorf("the worktree is not clean: %s", st)
	}
}

// TestBuildCCache: with ccache installed, make's compiler is "ccache
// gcc", with the build directory as ccache's base directory (so that
// another build directory of the tree hits what this one compiled),
// and the kernel records it.
func TestBuildCCache(t *testing.T) {
	noCCache(t)
	bin := strings.Split(os.Getenv("PATH"), ":")[0]
	writeFile(t, bin, "ccache", "#!/bin/sh\nexec \"$@\"\n")
	os.Chmod(filepath.Join(bin, "ccache"), 0o755)
	tree, revs := fakeTree(t, map[string]string{"src/a.c": "a0\n"})
	o := Options{Tree: tree, Dir: t.TempDir(), Base: BaseDefconfig}
	if _, err := Prepare(o); err != nil {
		t.Fatal(err)
	}
	k, err := Build(context.Background(), o, revs[0])
	if err != nil {
		t.Fatal(err)
	}
	vars, _ := os.ReadFile(filepath.Join(o.Dir, OutDir, "vars"))
	if !k.CCache || !strings.Contains(string(vars), "CC="+filepath.Join(bin, "ccache")+" gcc ") {
		t.Errorf("ccache %v, make's variables: %s", k.CCache, vars)
	}
	if k.Options["NR_CPUS"] != "64" || k.Options["TRANSPARENT_HUGEPAGE"] != "y" {
		t.Errorf("defconfig's options: %v", k.Options)
	}
	if !strings.Contains(string(vars), "BASE="+o.Dir+"\n") {
		t.Errorf("ccache's base directory: %s; want the build directory %s", vars, o.Dir)
	}
}

// TestBuildConfig: a file base and fragments, re-applied with
// olddefconfig (the last value wins, a dependency drops an option); a
// fragment that turns off a contention option warns; an option the
// guest needs, missing after olddefconfig or turned off by a fragment,
// is refused naming it; a base or fragment that is not a config is
// refused naming its line.
func TestBuildConfig(t *testing.T) {
	noCCache(t)
	tree, revs := fakeTree(t, map[string]string{"src/a.c": "a0\n"})
	files := t.TempDir()
	base := writeFile(t, files, "base.config", guestConfig("CONFIG_SMP=y", "CONFIG_SCHED_MC=y", "CONFIG_HZ=250"))
	noSMP := writeFile(t, files, "nosmp.config", "# CONFIG_SMP is not set\nCONFIG_HZ=1000\n")
	o := Options{Tree: tree, Dir: filepath.Join(t.TempDir(), "kb"), Base: base, Fragments: []string{noSMP}}
	warns, err := Prepare(o)
	if err != nil || len(warns) != 1 || !strings.Contains(warns[0], "turns CONFIG_SMP off") {
		t.Fatalf("Prepare: warnings %q, %v; want one about SMP", warns, err)
	}
	// The base is kept: changing the file later changes nothing.
	os.WriteFile(base, []byte("garbage\n"), 0o644)
	k, err := Build(context.Background(), o, revs[0])
	if err != nil {
		t.Fatal(err)
	}
	if k.Options["SMP"] != "n" || k.Options["SCHED_MC"] != "n" || k.Options["HZ"] != "1000" {
		t.Errorf("options %v: want SMP, SCHED_MC off (the fragment, its dependency), HZ 1000", k.Options)
	}
	// A fragment changed: the revision's kept image is not the one its
	// config now makes.
	os.WriteFile(noSMP, []byte("# CONFIG_SMP is not set\nCONFIG_HZ=300\n"), 0o644)
	if k, err := Build(context.Background(), o, revs[0]); err != nil || k.Cached || k.Options["HZ"] != "300" {
		t.Errorf("after the fragment changed: %+v, %v; want a build with HZ 300", k, err)
	}
	if k, err := Build(context.Background(), o, revs[0]); err != nil || !k.Cached || k.Options["HZ"] != "300" {
		t.Errorf("the same again: %+v, %v; want the kept image", k, err)
	}
	// An option the guest needs, asked for and missing.
	o.Require = []string{"BPF_SYSCALL"}
	if _, err := Build(context.Background(), o, revs[0]); err == nil || !strings.Contains(err.Error(), "no CONFIG_BPF_SYSCALL=y after olddefconfig") {
		t.Errorf("a missing required option: %v", err)
	}
	// One of Required missing from a base.
	noDevtmpfs := writeFile(t, files, "nodev.config", strings.Replace(guestConfig(), "CONFIG_DEVTMPFS=y\n", "", 1))
	o2 := Options{Tree: tree, Dir: filepath.Join(t.TempDir(), "kb"), Base: noDevtmpfs}
	if _, err := Prepare(o2); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(context.Background(), o2, revs[0]); err == nil || !strings.Contains(err.Error(), "CONFIG_DEVTMPFS=y") {
		t.Errorf("no DEVTMPFS: %v", err)
	}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Tree: tree, Dir: t.TempDir(), Base: BaseTinyconfig, Fragments: []string{writeFile(t, files, "off.config", "# CONFIG_SERIAL_8250 is not set\n")}}, "turns CONFIG_SERIAL_8250 off, which contend's guest needs"},
		{Options{Tree: tree, Dir: t.TempDir(), Base: BaseTinyconfig, Fragments: []string{writeFile(t, files, "bad.config", "CONFIG_A=y\nA=y\n")}}, "bad.config line 2"},
		{Options{Tree: tree, Dir: t.TempDir(), Base: BaseTinyconfig, Fragments: []string{filepath.Join(files, "none")}}, "--kernel-config-fragment"},
		{Options{Tree: tree, Dir: t.TempDir(), Base: "allyesconfig"}, `--kernel-config: "allyesconfig" is not defconfig, tinyconfig, running, nor a readable config file`},
		{Options{Tree: tree, Dir: t.TempDir(), Base: ""}, "--kernel-config: give"},
		{Options{Tree: files, Dir: t.TempDir(), Base: BaseTinyconfig}, "is not a git repository"},
		{Options{Dir: t.TempDir(), Base: BaseTinyconfig}, "--kernel-tree: give"},
	} {
		if _, err := Prepare(c.o); err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v; want one line with %q", c.o, err, c.want)
		}
	}
	if _, err := Build(context.Background(), o, "nonsense"); err == nil || !strings.Contains(err.Error(), `"nonsense" is not a commit`) {
		t.Errorf("a revision that is not one: %v", err)
	}
}

// TestBuildLocked: a build directory in use by another build is
// refused naming its holder; a checkout killed with its build (the
// worktree's index left locked) does not stop the next build.
func TestBuildLocked(t *testing.T) {
	noCCache(t)
	tree, revs := fakeTree(t, map[string]string{"src/a.c": "a0\n"}, map[string]string{"src/a.c": "a1\n"})
	o := Options{Tree: tree, Dir: t.TempDir(), Base: BaseTinyconfig}
	if _, err := Prepare(o); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(context.Background(), o, revs[0]); err != nil {
		t.Fatal(err)
	}
	gd, err := gitOut(filepath.Join(o.Dir, SrcDir), "rev-parse", "--absolute-git-dir")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(gd, "index.lock"), nil, 0o644)
	f, err := lock.TryFile(filepath.Join(o.Dir, LockFile), "pid 4242")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(context.Background(), o, revs[1]); err == nil || !strings.Contains(err.Error(), "is in use by another contend (pid 4242)") {
		t.Errorf("a build directory in use: %v", err)
	}
	f.Close()
	if k, err := Build(context.Background(), o, revs[1]); err != nil || k.Rebuilt != 1 {
		t.Errorf("after the other build and a killed checkout: %+v, %v", k, err)
	}
}

// TestBuildFailure: a revision that does not compile is a *BuildError
// naming the step and make's last lines; the next revision builds.
func TestBuildFailure(t *testing.T) {
	noCCache(t)
	tree, revs := fakeTree(t, map[string]string{"src/a.c": "a0\n"}, map[string]string{"src/a.c": "FAIL\n"}, map[string]string{"src/a.c": "a2\n"})
	o := Options{Tree: tree, Dir: t.TempDir(), Base: BaseTinyconfig}
	if _, err := Prepare(o); err != nil {
		t.Fatal(err)
	}
	o.Log = &Tail{}
	_, err := Build(context.Background(), o, revs[1])
	var be *BuildError
	if !errors.As(err, &be) || be.Step != "make bzImage" || !strings.Contains(err.Error(), "src/a.c:1: error: does not compile") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("a failing build: %v", err)
	}
	if k, err := Build(context.Background(), o, revs[2]); err != nil || k.Rebuilt != 1 {
		t.Errorf("the next revision: %+v, %v", k, err)
	}
}

// TestBuildCancel: a cancelled context stops the build, every process
// of make's group killed (the recipe's shell and its sleep), and Build
// returns the context's error.
func TestBuildCancel(t *testing.T) {
	noCCache(t)
	tree, revs := fakeTree(t, map[string]string{"src/a.c": "SLEEP\n"})
	o := Options{Tree: tree, Dir: t.TempDir(), Base: BaseTinyconfig}
	if _, err := Prepare(o); err != nil {
		t.Fatal(err)
	}
	pids := filepath.Join(t.TempDir(), "pids")
	t.Setenv("PIDS", pids)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ps []int
	go func() {
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			b, _ := os.ReadFile(pids)
			if f := strings.Fields(string(b)); len(f) == 2 {
				for _, s := range f {
					n, _ := strconv.Atoi(s)
					ps = append(ps, n)
				}
				break
			}
		}
		cancel()
	}()
	start := time.Now()
	_, err := Build(ctx, o, revs[0])
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
	if len(ps) != 2 {
		t.Fatalf("the build's recipe did not start (pids %v)", ps)
	}
	if time.Since(start) > 2*time.Minute {
		t.Errorf("the build ended %s after it started: its sleep was not killed", time.Since(start))
	}
	// A killed process that is not contend's child is gone once the
	// kernel has run its exit, which a loaded machine can put off: wait
	// for that (up to 30 s) rather than look once.
	for _, p := range ps {
		for deadline := time.Now().Add(30 * time.Second); alive(p) && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(p) {
			syscall.Kill(p, syscall.SIGKILL)
			t.Errorf("process %d of the build outlived its cancel", p)
		}
	}
}

// alive tells whether process pid exists and is not a zombie.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil && !zombie(pid) }

func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// TestDiff: the contention options that differ between two kernels, in
// Contention's order, an absent one as n.
func TestDiff(t *testing.T) {
	a := map[string]string{"SCHED_MC": "y", "NR_CPUS": "64", "PREEMPT_VOLUNTARY": "y"}
	b := map[string]string{"SCHED_MC": "n", "NR_CPUS": "64", "PREEMPT": "y"}
	got := Diff(a, b)
	want := []string{"CONFIG_SCHED_MC y -> n", "CONFIG_PREEMPT_VOLUNTARY y -> n", "CONFIG_PREEMPT n -> y"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Diff: %q, want %q", got, want)
	}
	if d := Diff(a, a); len(d) != 0 {
		t.Errorf("Diff of a kernel with itself: %q", d)
	}
}

// TestBuildPatch: a revision with a patch (git format-patch's, or a
// plain unified diff) is built after the revision alone, rebuilding
// the sources the patch touches, and kept apart from it (its own image,
// the patch's name and hash recorded); the next revision built has the
// patch's changes and its new file gone; a patch that does not apply is
// refused by CheckPatch in one line naming it and the revision, the
// tree untouched.
func TestBuildPatch(t *testing.T) {
	noCCache(t)
	tree, revs := fakeTree(t,
		map[string]string{"src/a.c": "a0\n", "src/b.c": "b0\n", "src/c.c": "c0\n"},
		map[string]string{"src/c.c": "c1\n"},
	)
	files := t.TempDir()
	// A format-patch of a change to b.c and a new file, made in a clone.
	clone := filepath.Join(t.TempDir(), "clone")
	if b, err := exec.Command("git", "clone", "-q", tree, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, b)
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", clone}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return string(b)
	}
	git("checkout", "-q", revs[0])
	writeFile(t, filepath.Join(clone, "src"), "b.c", "b-patched\n")
	writeFile(t, filepath.Join(clone, "src"), "n.c", "new\n")
	git("add", "-A")
	git("commit", "-q", "-m", "mm: the fix")
	fp := writeFile(t, files, "0001-mm-the-fix.patch", git("format-patch", "--stdout", "-1"))
	plain := writeFile(t, files, "plain.diff", "--- a/src/a.c\n+++ b/src/a.c\n@@ -1 +1 @@\n-a0\n+a-plain\n")
	bad := writeFile(t, files, "bad.diff", "--- a/src/a.c\n+++ b/src/a.c\n@@ -1 +1 @@\n-zz\n+a-bad\n")

	o := Options{Tree: tree, Dir: filepath.Join(t.TempDir(), "kb"), Base: BaseTinyconfig}
	if _, err := Prepare(o); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fp, plain} {
		sum, err := CheckPatch(tree, revs[0], p)
		b, _ := os.ReadFile(p)
		want := sha256.Sum256(b)
		if err != nil || sum != hex.EncodeToString(want[:]) {
			t.Errorf("CheckPatch(%s): %q, %v", filepath.Base(p), sum, err)
		}
	}
	_, err := CheckPatch(tree, revs[0], bad)
	if err == nil || !strings.Contains(err.Error(), "bad.diff does not apply to "+revs[0]+" ("+revs[0][:12]+")") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a patch that does not apply: %v; want one line naming it and the revision", err)
	}
	if _, err := CheckPatch(tree, revs[0], filepath.Join(files, "none.patch")); err == nil || !strings.Contains(err.Error(), "cannot read the patch") {
		t.Errorf("a patch that is not there: %v", err)
	}
	if _, err := CheckPatch(tree, "nonsense", fp); err == nil || !strings.Contains(err.Error(), `"nonsense" is not a commit`) {
		t.Errorf("a revision that is not one: %v", err)
	}
	if st, _ := exec.Command("git", "-C", tree, "status", "--porcelain").Output(); len(st) > 0 {
		t.Errorf("CheckPatch wrote in the tree: %s", st)
	}

	a, err := Build(context.Background(), o, revs[0])
	if err != nil || a.Rebuilt != 3 || a.Patch != "" {
		t.Fatalf("the revision: %+v, %v", a, err)
	}
	op := o
	op.Patch = fp
	b, err := Build(context.Background(), op, revs[0])
	if err != nil {
		t.Fatal(err)
	}
	psum, _ := CheckPatch(tree, revs[0], fp)
	if b.Revision != revs[0] || b.Rebuilt != 2 || b.Patch != "0001-mm-the-fix.patch" || b.PatchSHA256 != psum ||
		b.Image != filepath.Join(o.Dir, ImagesDir, revs[0][:12]+"+"+psum[:12]+".bzImage") {
		t.Errorf("the revision with the patch: %+v; want b.c and n.c rebuilt, the patch recorded", b)
	}
	if img, _ := os.ReadFile(b.Image); string(img) != "a0\nb-patched\nc0\nnew\n" {
		t.Errorf("the patched image: %q", img)
	}
	if img, _ := os.ReadFile(a.Image); string(img) != "a0\nb0\nc0\n" {
		t.Errorf("the revision's image changed: %q", img)
	}
	env := b.Env()
	if env["kbuild.patch"] != "0001-mm-the-fix.patch" || env["kbuild.patch_sha256"] != psum || env["kbuild.revision"] != revs[0] {
		t.Errorf("the patched kernel's facts: %v", env)
	}
	if _, ok := a.Env()["kbuild.patch"]; ok {
		t.Errorf("the revision's facts name a patch: %v", a.Env())
	}
	// Both are kept, each its own.
	if k, err := Build(context.Background(), op, revs[0]); err != nil || !k.Cached || k.PatchSHA256 != psum || k.Image != b.Image {
		t.Errorf("the patched revision again: %+v, %v; want its kept image", k, err)
	}
	if k, err := Build(context.Background(), o, revs[0]); err != nil || !k.Cached || k.PatchSHA256 != "" || k.Image != a.Image {
		t.Errorf("the revision again: %+v, %v; want its kept image", k, err)
	}
	// The next revision: the patch's changes gone (b.c back, n.c
	// removed), c.c changed.
	n, err := Build(context.Background(), o, revs[1])
	if err != nil || n.Rebuilt != 2 {
		t.Errorf("the next revision: %+v, %v; want b.c and c.c rebuilt", n, err)
	}
	if img, _ := os.ReadFile(n.Image); string(img) != "a0\nb0\nc1\n" {
		t.Errorf("the next revision's image: %q", img)
	}
	// A plain diff, on the next revision.
	op.Patch = plain
	if k, err := Build(context.Background(), op, revs[1]); err != nil || k.Rebuilt != 1 || k.Patch != "plain.diff" {
		t.Errorf("a plain diff: %+v, %v", k, err)
	} else if img, _ := os.ReadFile(k.Image); string(img) != "a-plain\nb0\nc1\n" {
		t.Errorf("the image of a plain diff: %q", img)
	}
	// A patch that does not apply, given to Build: a build error naming
	// the step.
	op.Patch = bad
	var be *BuildError
	if _, err := Build(context.Background(), op, revs[1]); !errors.As(err, &be) || be.Step != "git apply bad.diff" {
		t.Errorf("Build with a patch that does not apply: %v", err)
	}
}
