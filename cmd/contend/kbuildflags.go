package main

import (
	"github.com/urfave/cli/v2"
)

// kernelFlags are the flags of a kernel build contend owns (--vm with
// --kernel-tree: 'bisect --vm', 'campaign init --vm'; internal/kbuild).
type kernelFlags struct {
	tree, config, buildDir string
	fragments              cli.StringSlice
}

// kernelOnly are the flags that go with --kernel-tree.
var kernelOnly = []string{"kernel-config", "kernel-config-fragment", "kernel-build-dir"}

// newKernelFlags returns the flags; what says what the tree's revisions
// are (the search's commits, the campaign's sides).
func newKernelFlags(f *kernelFlags, what, dir string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "kernel-tree", Destination: &f.tree, Usage: "with --vm: build " + what + " from this kernel source tree (a git repository): one output directory kept across revisions (make O=), each revision rebuilding what changed; ccache when installed (docs/vm.md)"},
		&cli.StringFlag{Name: "kernel-config", Value: "defconfig", Destination: &f.config, Usage: "with --kernel-tree: the config's base: defconfig, tinyconfig, running (/boot/config-$(uname -r) or /proc/config.gz) or a config file; re-applied with olddefconfig at each revision"},
		&cli.StringSliceFlag{Name: "kernel-config-fragment", Destination: &f.fragments, Usage: "with --kernel-tree: a file of CONFIG_X=y lines applied over the base (repeatable; scripts/kernel/contend-guest.config has what contend's guest needs)"},
		&cli.StringFlag{Name: "kernel-build-dir", Destination: &f.buildDir, Usage: "with --kernel-tree: the build directory, kept across revisions and sessions (default: " + dir + ")"},
	}
}

// stray returns the first flag of kernelOnly given without --kernel-tree.
func (f *kernelFlags) stray(c *cli.Context) string {
	if f.tree != "" {
		return ""
	}
	for _, n := range kernelOnly {
		if c.IsSet(n) {
			return n
		}
	}
	return ""
}
