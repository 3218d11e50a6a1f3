package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBisectVMUsage: the flags of a kernel search (--vm) refused with
// one line naming the flag and its range, exit 2, nothing written: the
// guest's vCPUs, memory, timeout and accelerator as a --vm campaign
// checks them, the boots of a probe, --runs in place of
// --boots-per-probe, a --vm flag without --vm, a search without a build
// or measuring an exec, a relative --contend.
func TestBisectVMUsage(t *testing.T) {
	// Beside the long parallel tests: refusals only, no repetition in
	// this process.
	t.Parallel()
	repo := bisectRepo(t, 4, 2, 40, 10)
	// A kernel tree to kbuild.Check: a git repository with a Makefile.
	os.WriteFile(filepath.Join(repo, "Makefile"), []byte("bzImage:\n"), 0o644)
	dir := filepath.Join(t.TempDir(), "bs")
	base := []string{"bisect", "--repo", repo, "--good", "HEAD~3", "--bad", "HEAD", "--dir", dir}
	m := []string{"--", "run", "faultme", "--mem", "64MiB"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--vm", "--build", "cat boot.txt", "--vm-cpus", "0"}, "--vm-cpus: "},
		{[]string{"--vm", "--build", "cat boot.txt", "--vm-cpus", "100000"}, "--vm-cpus: "},
		{[]string{"--vm", "--build", "cat boot.txt", "--vm-mem", "100MiB"}, "--vm-mem: 100 MiB is not accepted; accepted: 256 MiB to"},
		{[]string{"--vm", "--build", "cat boot.txt", "--vm-mem", "12x"}, "--vm-mem"},
		{[]string{"--vm", "--build", "cat boot.txt", "--vm-timeout", "1s"}, "--vm-timeout"},
		{[]string{"--vm", "--build", "cat boot.txt", "--vm-accel", "xen"}, "--vm-accel"},
		{[]string{"--vm", "--build", "cat boot.txt", "--boots-per-probe", "0"}, "--boots-per-probe: 0"},
		{[]string{"--vm", "--build", "cat boot.txt", "--runs-per-boot", "0"}, "--runs-per-boot: 0"},
		{[]string{"--vm", "--build", "cat boot.txt", "--runs", "3"}, "--runs: with --vm the repetitions are boots: give --boots-per-probe"},
		{[]string{"--vm-cpus", "1"}, "--vm-cpus goes with --vm"},
		{[]string{"--boots-per-probe", "2"}, "--boots-per-probe goes with --vm"},
		{[]string{"--vm"}, "--build: a --vm search needs a build command that prints the kernel"},
		{[]string{"--vm", "--build", "cat boot.txt", "--contend", "bin/contend"}, "--contend: \"bin/contend\": with --vm"},
		{[]string{"--kernel-tree", repo}, "--kernel-tree goes with --vm"},
		{[]string{"--vm", "--build", "cat boot.txt", "--kernel-config", "tinyconfig"}, "--kernel-config goes with --kernel-tree"},
		{[]string{"--vm", "--kernel-tree", repo, "--build", "cat boot.txt"}, "--build: --kernel-tree builds each commit itself"},
		{[]string{"--vm", "--kernel-tree", repo, "--kernel-config", "nonsense"}, `nonsense" is not defconfig, tinyconfig, running, nor a readable config file`},
		{[]string{"--vm", "--kernel-tree", repo, "--kernel-config-fragment", "/nonexistent.config"}, "--kernel-config-fragment: open /nonexistent.config"},
	} {
		args := append(append(append([]string{}, base...), c.args...), m...)
		r := runCLI(t, args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("contend %s: exit %d, stderr %q; want exit 2 and one line with %q", strings.Join(args, " "), r.code, r.stderr, c.want)
		}
	}
	args := append(append([]string{}, base...), "--vm", "--build", "cat boot.txt", "--", "exec", "--", "./prog")
	if r := runCLI(t, args...); r.code != exitUsage || !strings.Contains(r.stderr, "not exec") {
		t.Errorf("an exec in the guest: exit %d, %q", r.code, r.stderr)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("a refused bisect made %s", dir)
	}
}
