package bisect

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"contend/internal/guest"
	"contend/internal/kbuild"
	"contend/internal/plural"
	"contend/internal/safefile"
	"contend/internal/textfmt"
	"contend/internal/vm"
)

// KernelRequest is the kernel build of a search that contend owns
// (--kernel-tree, instead of --build): the tree is the search's
// repository; Config and Fragments make each commit's config
// (internal/kbuild); BuildDir is the build directory kept across the
// search's commits and sessions ("": DIR/kbuild).
type KernelRequest struct {
	Tree      string // --kernel-tree: must be the search's repository
	Config    string
	Fragments []string
	BuildDir  string
}

// KernelPlan is what a plan keeps of a KernelRequest, its paths
// absolute, and the options the guest needs beyond kbuild.Required.
type KernelPlan struct {
	Config    string   `json:"config"`
	Fragments []string `json:"fragments,omitempty"`
	BuildDir  string   `json:"build_dir"`
	Require   []string `json:"require,omitempty"`
}

// KbuildDir is a search's build directory when none is given.
const KbuildDir = "kbuild"

// BuildsFile is the ledger of a search's kernel builds, in its
// directory (kbuild.BuildsFile: one kbuild.Record a line).
const BuildsFile = kbuild.BuildsFile

// kernelPlan checks the kernel build of r (a --vm search, without
// --build; kbuild.Check: the tree, the base and the fragments) and
// returns its plan and the warnings (a fragment turning off an option
// that changes contention). Its build directory is made by Prepare.
func (r *Request) kernelPlan() (*KernelPlan, []string, error) {
	k := r.Kernel
	switch {
	case k == nil && r.KernelStray != "":
		return nil, nil, refuse("--%s goes with --kernel-tree", r.KernelStray)
	case k == nil:
		return nil, nil, nil
	case r.VM == nil:
		return nil, nil, refuse("--kernel-tree goes with --vm")
	case r.Build != "":
		return nil, nil, refuse("--build: --kernel-tree builds each commit itself; give --build or --kernel-tree, not both")
	}
	if tree, err := filepath.Abs(k.Tree); err != nil || tree != r.Repo {
		return nil, nil, refuse("--kernel-tree: %s is not the search's --repo %s: the commits are the tree's; drop --repo", k.Tree, r.Repo)
	}
	kp := &KernelPlan{Config: k.Config, BuildDir: k.BuildDir}
	if kp.BuildDir == "" {
		kp.BuildDir = filepath.Join(r.Dir, KbuildDir)
	}
	var err error
	if kp.BuildDir, err = filepath.Abs(kp.BuildDir); err != nil {
		return nil, nil, err
	}
	if kp.Config != kbuild.BaseDefconfig && kp.Config != kbuild.BaseTinyconfig && kp.Config != kbuild.BaseRunning && kp.Config != "" {
		if kp.Config, err = filepath.Abs(kp.Config); err != nil {
			return nil, nil, err
		}
	}
	for _, f := range k.Fragments {
		a, err := filepath.Abs(f)
		if err != nil {
			return nil, nil, err
		}
		kp.Fragments = append(kp.Fragments, a)
	}
	if r.VM.CPUs != 1 {
		kp.Require = append(kp.Require, "SMP")
	}
	kp.Require = append(kp.Require, EvidenceNeeds(r.Measure)...)
	warns, err := kbuild.Check(kp.options(r.Repo))
	if err != nil {
		return nil, nil, refuse("%v", err)
	}
	return kp, warns, nil
}

// Prepare makes the build directory of the plan in repo and keeps its
// config base there (kbuild.Prepare), once, when the search is created.
func (kp *KernelPlan) Prepare(repo string) error {
	if kp == nil {
		return nil
	}
	_, err := kbuild.Prepare(kp.options(repo))
	return err
}

// options are the kbuild options of the plan in repo.
func (kp *KernelPlan) options(repo string) kbuild.Options {
	return kbuild.Options{Tree: repo, Dir: kp.BuildDir, Base: kp.Config, Fragments: kp.Fragments, Require: kp.Require}
}

// EvidenceNeeds returns the kernel options the measurement's --evidence
// needs beyond kbuild.Required: BPF_SYSCALL for lock and offcpu (BPF),
// PERF_EVENTS for profile.
func EvidenceNeeds(measure []string) []string {
	var need []string
	for i, a := range measure {
		v, ok := strings.CutPrefix(a, "--evidence=")
		if !ok && a == "--evidence" && i+1 < len(measure) {
			v, ok = measure[i+1], true
		}
		if !ok {
			continue
		}
		for _, w := range strings.Split(v, ",") {
			var o string
			switch strings.TrimSpace(w) {
			case "lock", "offcpu":
				o = "BPF_SYSCALL"
			case "profile":
				o = "PERF_EVENTS"
			}
			if o != "" && !slices.Contains(need, o) {
				need = append(need, o)
			}
		}
	}
	return need
}

// kernelBuild builds commit c with kbuild into the search's build
// directory (each commit rebuilding what changed since the one before),
// its output in Logs/HASH.build.log, and records the build in the
// builds ledger. A build that fails or makes no bootable image skips the
// commit; a config without an option the guest needs stops the search.
func (p *VM) kernelBuild(ctx context.Context, c Commit) (Built, error) {
	o := *p.Kernel
	logPath := filepath.Join(p.Logs, textfmt.Commit(c.Hash)+".build.log")
	log, err := safefile.CreateTemp(p.Logs, "."+textfmt.Commit(c.Hash)+".build.log.tmp-", "", 0o644)
	if err != nil {
		return nil, err
	}
	o.Log = &kbuild.Tail{W: log}
	k, err := kbuild.Build(ctx, o, c.Hash)
	log.Close()
	os.Rename(log.Name(), logPath)
	var be *kbuild.BuildError
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.As(err, &be):
		return nil, &SkipError{Reason: fmt.Sprintf("%v; its output: %s", err, logPath)}
	case err != nil:
		return nil, err
	}
	if _, err := vm.KernelRelease(k.Image); err != nil {
		return nil, &SkipError{Reason: fmt.Sprintf("the build made no bootable image: %v; its output: %s", err, logPath)}
	}
	if p.Builds != "" {
		if err := kbuild.Append(p.Builds, k, ""); err != nil {
			return nil, err
		}
	}
	if p.Progress != nil {
		cc := ""
		if k.CCache {
			cc = ", ccache"
		}
		if k.Cached {
			p.Progress(fmt.Sprintf("  build of %s: its image kept from an earlier build; config %s", textfmt.Commit(c.Hash), k.ConfigSHA256[:12]))
		} else {
			p.Progress(fmt.Sprintf("  build of %s: %.1f s, %s rebuilt%s; config %s", textfmt.Commit(c.Hash), k.BuildSeconds, plural.N(k.Rebuilt, "object", "objects"), cc, k.ConfigSHA256[:12]))
		}
	}
	return &vmBuilt{p: p, c: c, k: guest.Kernel{Kernel: k.Image, Build: k.Env()}}, nil
}

// ReadBuilds returns the kernel builds recorded in dir (none for a
// search that did not build its kernels).
func ReadBuilds(dir string) ([]kbuild.Record, error) {
	bs, _, err := kbuild.ReadLedger(filepath.Join(dir, BuildsFile))
	return bs, err
}
