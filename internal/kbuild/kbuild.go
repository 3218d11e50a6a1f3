// Package kbuild builds Linux kernels from a developer's source tree for
// contend's guests (campaign init --vm, bisect --vm): one persistent
// output directory per campaign or search (make O=), fed from the
// revision asked for through one git worktree kept across revisions, so
// that each revision rebuilds only what changed (as ktest.pl's
// OUTPUT_DIR); ccache when installed; a config made from a base
// (defconfig, tinyconfig, the running kernel's, a file) plus fragments,
// re-applied with olddefconfig at each revision; the options contend's
// guest needs checked, and the options that change what contention looks
// like read from the .config and recorded.
package kbuild

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"contend/internal/esc"
	"contend/internal/external"
	"contend/internal/lock"
	"contend/internal/safefile"
	"contend/internal/textfmt"
)

// The bases a config is made from (Options.Base), beside a file's path.
const (
	BaseDefconfig  = "defconfig"
	BaseTinyconfig = "tinyconfig"
	BaseRunning    = "running" // /boot/config-$(uname -r), else /proc/config.gz
)

// The directories of a build directory (Options.Dir).
const (
	SrcDir    = "src"    // the git worktree of the revision being built
	OutDir    = "out"    // make O=, kept across revisions
	ImagesDir = "images" // HASH.bzImage and HASH.config of each revision built
	BaseFile  = "base.config"
	LockFile  = ".lock" // held (flock) by the build under way
)

// Image is the image make builds, in OutDir.
const Image = "arch/x86/boot/bzImage"

// Required are the options contend's guest needs (internal/vm: an
// initramfs with contend as init, the console and the results on the
// 8250 serial ports, proc, sysfs, devtmpfs and tmpfs mounted, the Go
// runtime's epoll and eventfd, the workloads' SysV IPC, futexes, flock
// and madvise). Each must be y after olddefconfig.
var Required = []string{
	"64BIT", "BLK_DEV_INITRD", "PRINTK", "TTY", "SERIAL_8250", "SERIAL_8250_CONSOLE",
	"BINFMT_ELF", "PROC_FS", "SYSFS", "DEVTMPFS", "SHMEM", "TMPFS", "SYSVIPC", "FUTEX",
	"EPOLL", "EVENTFD", "FILE_LOCKING", "ADVISE_SYSCALLS",
}

// Contention are the options that change what contention looks like
// (the scheduler's topology, preemption, huge pages, the mmap lock, lock
// debugging, the tick): read from each build's .config and recorded, so
// that two kernels that differ in one are seen to.
var Contention = []string{
	"SMP", "NR_CPUS", "SCHED_MC", "SCHED_SMT", "NUMA",
	"PREEMPT_NONE", "PREEMPT_VOLUNTARY", "PREEMPT", "PREEMPT_RT", "PREEMPT_DYNAMIC",
	"HZ", "NO_HZ_IDLE", "NO_HZ_FULL",
	"TRANSPARENT_HUGEPAGE", "TRANSPARENT_HUGEPAGE_ALWAYS", "TRANSPARENT_HUGEPAGE_MADVISE",
	"PER_VMA_LOCK", "QUEUED_SPINLOCKS", "PARAVIRT_SPINLOCKS", "RWSEM_SPIN_ON_OWNER", "MUTEX_SPIN_ON_OWNER",
	"LOCKDEP", "PROVE_LOCKING", "DEBUG_LOCK_ALLOC", "LOCK_STAT", "DEBUG_SPINLOCK", "DEBUG_MUTEXES",
	"KASAN", "KCSAN", "DEBUG_PAGEALLOC", "MEMCG", "CPU_FREQ",
}

// Options are a kernel build's: where the source is, where the build
// lives, the config.
type Options struct {
	Tree string // the kernel's git repository
	// Dir is the build directory, one per campaign or search, kept
	// across revisions: SrcDir, OutDir, ImagesDir, BaseFile.
	Dir string
	// Base is BaseDefconfig, BaseTinyconfig, BaseRunning or a config
	// file; Fragments are files of CONFIG_X=y lines (and "# CONFIG_X is
	// not set") applied over it at each revision, in order.
	Base      string
	Fragments []string
	// Require are options needed beyond Required (SMP for a guest of
	// more than one vCPU, BPF_SYSCALL for BPF evidence).
	Require []string
	// Jobs is make -j; 0: this machine's CPUs.
	Jobs int
	// Log receives make's and git's output (nil: discarded).
	Log io.Writer
	// Make is the make program (empty: make).
	Make string
	// Patch, when set, is a patch file (git format-patch's, or a plain
	// unified diff) applied with git apply on top of the revision built
	// (campaign init --b-patch): the kernel is the revision and the
	// patch, its image kept apart from the revision's own.
	Patch string
}

// Kernel is what one build made and what it was made from.
type Kernel struct {
	Revision     string            `json:"revision"` // the full hash
	Image        string            `json:"image"`    // ImagesDir/HASH.bzImage
	ConfigSHA256 string            `json:"config_sha256"`
	Options      map[string]string `json:"options"`       // each of Contention: its value, n when unset
	BuildSeconds float64           `json:"build_seconds"` // the checkout, the config and make

	// Patch is the base name of Options.Patch, PatchSHA256 its
	// contents' hash (both empty without a patch).
	Patch       string `json:"patch,omitempty"`
	PatchSHA256 string `json:"patch_sha256,omitempty"`

	Rebuilt int  `json:"objects_rebuilt"` // .o files written by this build
	CCache  bool `json:"ccache,omitempty"`
	// Cached: the image of this revision and config was in ImagesDir
	// already (nothing built: BuildSeconds and Rebuilt 0).
	Cached bool `json:"cached,omitempty"`
}

// built is what ImagesDir/HASH.json keeps of a build: the kernel and the
// hash of the config's inputs it was made from.
type built struct {
	Kernel
	Inputs string `json:"inputs"`
}

// inputs returns the hash of what makes a revision's config: the base
// (its name, or the kept file's contents) and the fragments' contents.
func inputs(o Options) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "base %s\n", o.Base)
	if o.Base != BaseDefconfig && o.Base != BaseTinyconfig {
		b, err := os.ReadFile(filepath.Join(o.Dir, BaseFile))
		if err != nil {
			return "", fmt.Errorf("the config base of this build directory is gone (%v): make it again", err)
		}
		h.Write(b)
	}
	for _, f := range o.Fragments {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("--kernel-config-fragment: %v", err)
		}
		fmt.Fprintf(h, "\nfragment %d\n", len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// BuildError is a build that failed (make's exit status): the revision
// does not build with this config, its log named.
type BuildError struct {
	Step string // the make target or git step
	Err  error
	Log  string // the last lines of the output
}

func (e *BuildError) Error() string {
	s := fmt.Sprintf("the kernel build failed at %s (%v)", e.Step, e.Err)
	if e.Log != "" {
		s += ": " + e.Log
	}
	return s
}

// Prepare checks o (Check), creates its build directory and copies a
// file base (or the running kernel's config) into it, so that every
// revision of the campaign or search starts from the same base. It
// returns Check's warnings.
func Prepare(o Options) ([]string, error) {
	warns, base, err := check(o)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(o.Dir, ImagesDir), 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the kernel build directory: %v", err)
	}
	if base != nil {
		if err := safefile.WriteFile(filepath.Join(o.Dir, BaseFile), base, 0o644); err != nil {
			return nil, fmt.Errorf("cannot keep the config base: %v", err)
		}
	}
	return warns, nil
}

// Check checks o without writing anything: the tree a git repository
// with a Makefile, the base one of the bases or a readable config file,
// each fragment a file of config lines that turns off no option the
// guest needs (each refusal one line naming its flag). It returns the
// warnings: a fragment that turns off an option of Contention.
func Check(o Options) ([]string, error) {
	warns, _, err := check(o)
	return warns, err
}

func check(o Options) ([]string, []byte, error) {
	if o.Tree == "" {
		return nil, nil, errors.New("--kernel-tree: give the kernel's source tree (a git repository)")
	}
	if err := esc.Check("--kernel-tree", o.Tree); err != nil {
		return nil, nil, err
	}
	if _, err := gitOut(o.Tree, "rev-parse", "--git-dir"); err != nil {
		return nil, nil, fmt.Errorf("--kernel-tree: %s is not a git repository: %v", o.Tree, err)
	}
	if _, err := os.Stat(filepath.Join(o.Tree, "Makefile")); err != nil {
		return nil, nil, fmt.Errorf("--kernel-tree: %s has no Makefile: not a kernel source tree", o.Tree)
	}
	base, err := readBase(o.Base)
	if err != nil {
		return nil, nil, err
	}
	var warns []string
	for _, f := range o.Fragments {
		ls, err := readFragment(f)
		if err != nil {
			return nil, nil, err
		}
		for _, l := range ls {
			if l.val == "n" && slices.Contains(Contention, l.name) {
				warns = append(warns, fmt.Sprintf("the fragment %s turns CONFIG_%s off: it changes what contention looks like (the kernels measured differ from a distribution's)", f, l.name))
			}
			if l.val == "n" && (slices.Contains(Required, l.name) || slices.Contains(o.Require, l.name)) {
				return nil, nil, fmt.Errorf("--kernel-config-fragment: %s turns CONFIG_%s off, which contend's guest needs", f, l.name)
			}
		}
	}
	return warns, base, nil
}

// readBase checks the base and returns its contents (nil for a make
// target).
func readBase(b string) ([]byte, error) {
	switch b {
	case BaseDefconfig, BaseTinyconfig:
		return nil, nil
	case "":
		return nil, fmt.Errorf("--kernel-config: give defconfig, tinyconfig, running or a config file")
	case BaseRunning:
		var u unix.Utsname
		unix.Uname(&u)
		rel := string(bytes.TrimRight(u.Release[:], "\x00"))
		if b, err := os.ReadFile("/boot/config-" + rel); err == nil {
			return b, nil
		}
		f, err := os.Open("/proc/config.gz")
		if err != nil {
			return nil, fmt.Errorf("--kernel-config running: neither /boot/config-%s nor /proc/config.gz can be read: give a config file", rel)
		}
		defer f.Close()
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("--kernel-config running: /proc/config.gz: %v", err)
		}
		return io.ReadAll(z)
	}
	if err := esc.Check("--kernel-config", b); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(b)
	if err != nil {
		return nil, fmt.Errorf("--kernel-config: %q is not defconfig, tinyconfig, running, nor a readable config file: %v", b, err)
	}
	if _, err := parseConfig(data, b); err != nil {
		return nil, fmt.Errorf("--kernel-config: %v", err)
	}
	return data, nil
}

type line struct{ name, val string }

// parseConfig reads config lines: CONFIG_X=V and "# CONFIG_X is not
// set" (val n); other comments and blank lines are skipped, anything
// else is an error naming its line.
func parseConfig(data []byte, file string) ([]line, error) {
	var ls []line
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		s := strings.TrimSpace(sc.Text())
		if k, ok := strings.CutPrefix(s, "# CONFIG_"); ok && strings.HasSuffix(k, " is not set") {
			ls = append(ls, line{strings.TrimSuffix(k, " is not set"), "n"})
			continue
		}
		if s == "" || s[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(s, "=")
		name, isCfg := strings.CutPrefix(k, "CONFIG_")
		if !ok || !isCfg || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("%s line %d: %q is not CONFIG_NAME=VALUE nor '# CONFIG_NAME is not set'", file, n, esc.Line(s))
		}
		ls = append(ls, line{name, v})
	}
	return ls, sc.Err()
}

func readFragment(f string) ([]line, error) {
	if err := esc.Check("--kernel-config-fragment", f); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(f)
	if err != nil {
		return nil, fmt.Errorf("--kernel-config-fragment: %v", err)
	}
	ls, err := parseConfig(data, f)
	if err != nil {
		return nil, fmt.Errorf("--kernel-config-fragment: %v", err)
	}
	return ls, nil
}

// Build builds revision rev of o.Tree (Prepare made o.Dir): checks it
// out in the worktree SrcDir (made on the first build, moved to rev on
// the next: only the files that differ change, so make rebuilds only
// what depends on them), makes the config in OutDir (the base, the
// fragments, olddefconfig), checks the options the guest needs, builds
// bzImage with -j, and keeps the image and its config in ImagesDir as
// HASH.bzImage and HASH.config (and HASH.json: a revision built before
// with the same config's inputs is not built again: its Kernel comes
// back Cached). Make runs under the launcher in its own
// process group (external.RunGroup): a cancelled ctx stops it (SIGTERM,
// then SIGKILL) and Build returns ctx's error. A build that fails is a
// *BuildError; a missing option an error naming it.
func Build(ctx context.Context, o Options, rev string) (*Kernel, error) {
	hash, err := gitOut(o.Tree, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("--kernel-tree %s: %q is not a commit", o.Tree, rev)
	}
	in, err := inputs(o)
	if err != nil {
		return nil, err
	}
	var patch []byte
	psum := ""
	if o.Patch != "" {
		if patch, psum, err = readPatch(o.Patch); err != nil {
			return nil, err
		}
	}
	name := imageName(hash, psum)
	meta := filepath.Join(o.Dir, ImagesDir, name+".json")
	if b, err := os.ReadFile(meta); err == nil {
		var prev built
		cfg, cerr := os.ReadFile(strings.TrimSuffix(meta, ".json") + ".config")
		if json.Unmarshal(b, &prev) == nil && prev.Inputs == in && prev.Revision == hash && prev.PatchSHA256 == psum && cerr == nil {
			if _, err := os.Stat(prev.Image); err == nil {
				if err := checkRequired(o, hash, configValues(cfg)); err != nil {
					return nil, err
				}
				k := prev.Kernel
				k.Cached, k.BuildSeconds, k.Rebuilt = true, 0, 0
				return &k, nil
			}
		}
	}
	// One build at a time in a build directory (--kernel-build-dir may
	// be shared between campaigns and searches).
	lk, err := lock.TryFile(filepath.Join(o.Dir, LockFile), fmt.Sprintf("pid %d", os.Getpid()))
	var held *lock.HeldError
	if errors.As(err, &held) {
		return nil, fmt.Errorf("the kernel build directory %s is in use by another contend (%s): wait for it, or give another --kernel-build-dir", o.Dir, held.Holder)
	}
	if err != nil {
		return nil, err
	}
	defer lk.Close()
	began := time.Now()
	src, out := filepath.Join(o.Dir, SrcDir), filepath.Join(o.Dir, OutDir)
	if err := checkout(ctx, o, src, hash); err != nil {
		return nil, err
	}
	if patch != nil {
		// The next checkout --force and clean take the patch away.
		if err := runIn(ctx, o, "", bytes.NewReader(patch), nil, "git", "-C", src, "apply", "--whitespace=nowarn", "-"); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &BuildError{Step: "git apply " + filepath.Base(o.Patch), Err: err, Log: tailOf(o.Log)}
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	if err := configure(ctx, o, src, out); err != nil {
		return nil, err
	}
	cfg, err := os.ReadFile(filepath.Join(out, ".config"))
	if err != nil {
		return nil, fmt.Errorf("the build made no .config: %v", err)
	}
	vals := configValues(cfg)
	if err := checkRequired(o, hash, vals); err != nil {
		return nil, err
	}
	k := &Kernel{Revision: hash, Options: map[string]string{}, PatchSHA256: psum}
	if psum != "" {
		k.Patch = filepath.Base(o.Patch)
	}
	for _, c := range Contention {
		k.Options[c] = "n"
		if v, ok := vals[c]; ok {
			k.Options[c] = v
		}
	}
	sum := sha256.Sum256(cfg)
	k.ConfigSHA256 = hex.EncodeToString(sum[:])
	_, k.CCache = ccache()
	start := time.Now()
	if err := runMake(ctx, o, src, out, "bzImage"); err != nil {
		return nil, err
	}
	k.BuildSeconds = time.Since(began).Seconds()
	k.Rebuilt = countNewer(out, start)
	k.Image = filepath.Join(o.Dir, ImagesDir, name+".bzImage")
	if err := copyFile(filepath.Join(out, Image), k.Image); err != nil {
		return nil, fmt.Errorf("the build of %s made no %s: %v", name, Image, err)
	}
	if err := safefile.WriteFile(strings.TrimSuffix(k.Image, ".bzImage")+".config", cfg, 0o644); err != nil {
		return nil, err
	}
	b, err := json.Marshal(built{Kernel: *k, Inputs: in})
	if err != nil {
		return nil, err
	}
	if err := safefile.WriteFile(meta, b, 0o644); err != nil {
		return nil, err
	}
	return k, nil
}

// imageName is the name of a revision's files in ImagesDir: its short
// hash, and with a patch "+" and the patch's short hash.
func imageName(hash, patchSHA string) string {
	if patchSHA == "" {
		return textfmt.Commit(hash)
	}
	return textfmt.Commit(hash) + "+" + textfmt.Commit(patchSHA)
}

// readPatch reads a patch file and returns its contents and their
// SHA-256.
func readPatch(path string) ([]byte, string, error) {
	if err := esc.Check("the patch", path); err != nil {
		return nil, "", err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("cannot read the patch: %v", err)
	}
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:]), nil
}

// CheckPatch checks that the patch file applies with git apply on top
// of revision rev of tree, without writing in the tree or its worktree
// (an index of its own), and returns the patch's SHA-256. The error is
// one line: git's last.
func CheckPatch(tree, rev, patch string) (string, error) {
	b, sum, err := readPatch(patch)
	if err != nil {
		return "", err
	}
	hash, err := gitOut(tree, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%q is not a commit of %s", rev, tree)
	}
	idx, err := os.CreateTemp("", "contend-kbuild-index-")
	if err != nil {
		return "", err
	}
	idx.Close()
	defer os.Remove(idx.Name())
	env := []string{"GIT_INDEX_FILE=" + idx.Name(), "LC_ALL=C"}
	if _, err := gitEnv(tree, env, nil, "read-tree", hash); err != nil {
		return "", fmt.Errorf("cannot read %s's tree: %v", textfmt.Commit(hash), err)
	}
	if _, err := gitEnv(tree, env, b, "apply", "--cached", "--check", "--whitespace=nowarn", "-"); err != nil {
		return "", fmt.Errorf("%s does not apply to %s (%s): %v", filepath.Base(patch), esc.Line(rev), textfmt.Commit(hash), err)
	}
	return sum, nil
}

// checkRequired refuses a config without an option of Required or
// o.Require, naming it.
func checkRequired(o Options, hash string, vals map[string]string) error {
	for _, r := range append(slices.Clone(Required), o.Require...) {
		if vals[r] != "y" {
			return fmt.Errorf("the kernel config of %s has no CONFIG_%s=y after olddefconfig, which contend's guest needs: add it to a --kernel-config-fragment (or what it depends on)", textfmt.Commit(hash), r)
		}
	}
	return nil
}

// checkout puts hash into the worktree src: made with git worktree add
// the first time (one a killed campaign left registered is pruned), else
// moved there with checkout --force, which rewrites only the files that
// differ.
func checkout(ctx context.Context, o Options, src, hash string) error {
	if _, err := os.Stat(filepath.Join(src, ".git")); err != nil {
		os.RemoveAll(src)
		run(ctx, o, "", "git", "-C", o.Tree, "worktree", "prune")
		if err := run(ctx, o, "", "git", "-C", o.Tree, "worktree", "add", "--detach", "--force", src, hash); err != nil {
			return &BuildError{Step: "git worktree add", Err: err}
		}
		return nil
	}
	// A checkout killed with its build leaves the worktree's index
	// locked; no other git works there (the directory's lock).
	if gd, err := gitOut(src, "rev-parse", "--absolute-git-dir"); err == nil {
		os.Remove(filepath.Join(gd, "index.lock"))
	}
	if err := run(ctx, o, "", "git", "-C", src, "checkout", "--quiet", "--detach", "--force", hash); err != nil {
		return &BuildError{Step: "git checkout " + textfmt.Commit(hash), Err: err}
	}
	// make O= wants a clean source tree; nothing else writes there.
	if err := run(ctx, o, "", "git", "-C", src, "clean", "-fdxq"); err != nil {
		return &BuildError{Step: "git clean", Err: err}
	}
	return nil
}

// configure writes out/.config from the base and the fragments and runs
// olddefconfig.
func configure(ctx context.Context, o Options, src, out string) error {
	dot := filepath.Join(out, ".config")
	var cfg []byte
	switch o.Base {
	case BaseDefconfig, BaseTinyconfig:
		if err := runMake(ctx, o, src, out, o.Base); err != nil {
			return err
		}
		b, err := os.ReadFile(dot)
		if err != nil {
			return fmt.Errorf("make %s made no .config: %v", o.Base, err)
		}
		cfg = b
	default:
		b, err := os.ReadFile(filepath.Join(o.Dir, BaseFile))
		if err != nil {
			return fmt.Errorf("the config base of this build directory is gone (%v): make it again", err)
		}
		cfg = b
	}
	for _, f := range o.Fragments {
		b, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("--kernel-config-fragment: %v", err)
		}
		cfg = append(append(cfg, '\n'), b...)
	}
	if err := safefile.WriteFile(dot, cfg, 0o644); err != nil {
		return err
	}
	return runMake(ctx, o, src, out, "olddefconfig")
}

// ccache returns ccache's path when it is installed.
func ccache() (string, bool) {
	p, err := exec.LookPath("ccache")
	return p, err == nil
}

// runMake runs make -C src O=out target with -j and the variables that
// make builds reproducible (and ccache's hits possible): a fixed
// timestamp, user, host and build number.
func runMake(ctx context.Context, o Options, src, out, target string) error {
	jobs := o.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	mk := o.Make
	if mk == "" {
		mk = "make"
	}
	args := []string{"-C", src, "O=" + out, "-j" + strconv.Itoa(jobs),
		"KBUILD_BUILD_TIMESTAMP=0", "KBUILD_BUILD_USER=contend", "KBUILD_BUILD_HOST=contend", "KBUILD_BUILD_VERSION=1"}
	var env []string
	if cc, ok := ccache(); ok {
		args = append(args, "CC="+cc+" gcc")
		// kbuild gives gcc the source's absolute paths: relative to
		// the build directory they are the same in every build
		// directory of the tree, so that a new one (each campaign's
		// DIR/kbuild) finds what another compiled in ccache.
		if _, set := os.LookupEnv("CCACHE_BASEDIR"); !set {
			if abs, err := filepath.Abs(o.Dir); err == nil {
				env = append(env, "CCACHE_BASEDIR="+abs)
			}
		}
	}
	args = append(args, target)
	if err := runIn(ctx, o, src, nil, env, mk, args...); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &BuildError{Step: "make " + target, Err: err, Log: tailOf(o.Log)}
	}
	return nil
}

// run runs a command under the launcher, its output to o.Log.
func run(ctx context.Context, o Options, dir, prog string, args ...string) error {
	return runIn(ctx, o, dir, nil, nil, prog, args...)
}

// runIn runs a command in dir under the launcher with stdin (nil:
// none) and env added to the environment, its output to o.Log.
func runIn(ctx context.Context, o Options, dir string, stdin io.Reader, env []string, prog string, args ...string) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	path, err := exec.LookPath(prog)
	if err != nil {
		return fmt.Errorf("%s is not installed: %v", prog, err)
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	w := o.Log
	if w == nil {
		w = io.Discard
	}
	cmd.Stdout, cmd.Stderr, cmd.Stdin = w, w, stdin
	cmd.Env = append(append(os.Environ(), "LC_ALL=C"), env...)
	err = external.RunGroup(ctx, cmd, 10*time.Second)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// tailOf is the last lines of the build's log when it keeps them
// (a *Tail), else "".
func tailOf(w io.Writer) string {
	if t, ok := w.(*Tail); ok {
		return t.String()
	}
	return ""
}

// Tail is a log writer that keeps the last lines written through it
// (a build's error, for BuildError) and passes everything on to W.
type Tail struct {
	W     io.Writer
	lines []string
	part  string
}

func (t *Tail) Write(p []byte) (int, error) {
	s := t.part + string(p)
	ls := strings.Split(s, "\n")
	t.part = ls[len(ls)-1]
	for _, l := range ls[:len(ls)-1] {
		if strings.TrimSpace(l) != "" {
			t.lines = append(t.lines, l)
		}
	}
	if len(t.lines) > 3 {
		t.lines = t.lines[len(t.lines)-3:]
	}
	if t.W != nil {
		return t.W.Write(p)
	}
	return len(p), nil
}

// String is the last lines, escaped, joined by " | ".
func (t *Tail) String() string {
	out := make([]string, len(t.lines))
	for i, l := range t.lines {
		out[i] = esc.Line(strings.TrimSpace(l))
	}
	return strings.Join(out, " | ")
}

// configValues reads a .config: each set option's value (without
// quotes' removal), n for "is not set".
func configValues(cfg []byte) map[string]string {
	m := map[string]string{}
	ls, _ := parseConfig(cfg, ".config")
	for _, l := range ls {
		m[l.name] = l.val
	}
	return m
}

// countNewer counts the .o files under dir written at or after t.
func countNewer(dir string, t time.Time) int {
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".o") {
			return nil
		}
		if info, err := d.Info(); err == nil && !info.ModTime().Before(t) {
			n++
		}
		return nil
	})
	return n
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return safefile.WriteFile(to, b, 0o644)
}

func gitOut(dir string, args ...string) (string, error) {
	return gitEnv(dir, nil, nil, args...)
}

// gitEnv runs git in dir with env added to the environment and stdin
// (nil: none), and returns its output; its error ends with git's last
// line of errors.
func gitEnv(dir string, env []string, stdin []byte, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var e bytes.Buffer
	cmd.Stderr = &e
	b, err := cmd.Output()
	if err != nil {
		if s := strings.TrimSpace(e.String()); s != "" {
			return "", fmt.Errorf("%v: %s", err, esc.Line(textfmt.LastLine(s)))
		}
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// Diff returns the options of Contention whose values differ between a
// and b, "NAME a -> b" each, in Contention's order.
func Diff(a, b map[string]string) []string {
	var d []string
	for _, c := range Contention {
		va, vb := a[c], b[c]
		if va == "" {
			va = "n"
		}
		if vb == "" {
			vb = "n"
		}
		if va != vb {
			d = append(d, fmt.Sprintf("CONFIG_%s %s -> %s", c, va, vb))
		}
	}
	return d
}

// Env returns the environment entries of k, as a result file of a
// guest records them (vm.Command.Facts): kbuild.revision,
// kbuild.config_sha256, kbuild.build_seconds, kbuild.objects_rebuilt
// and kbuild.config.NAME for each option of Contention; with a patch,
// kbuild.patch (its file's base name) and kbuild.patch_sha256.
func (k *Kernel) Env() map[string]string {
	m := map[string]string{
		"kbuild.revision":        k.Revision,
		"kbuild.config_sha256":   k.ConfigSHA256,
		"kbuild.build_seconds":   strconv.FormatFloat(k.BuildSeconds, 'f', 1, 64),
		"kbuild.objects_rebuilt": strconv.Itoa(k.Rebuilt),
	}
	for n, v := range k.Options {
		m["kbuild.config."+n] = v
	}
	if k.PatchSHA256 != "" {
		m["kbuild.patch"], m["kbuild.patch_sha256"] = k.Patch, k.PatchSHA256
	}
	return m
}
