package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// readmeExample is one command of README.md or of a page of
// readmePages, in the order it appears.
type readmeExample struct {
	file string
	line int
	cmd  string
}

// readmePages are the files whose examples TestREADMEExamples runs, in
// this order, in one directory: the README's first, then the pages of
// docs/ the README's longer examples moved to (docs/commands.md uses the
// README's result files, docs/compare.md its import of Rostedt's mail).
var readmePages = []string{"README.md", "docs/commands.md", "docs/compare.md"}

// readmeExamples returns the commands of file's indented code
// blocks: lines starting with "contend " or "$ " (continued by a trailing
// backslash), without their trailing "  # comment". Synopses (with "[",
// "..." or a FILE placeholder) are not commands. c is the text of the
// fenced block (the plugin's source: docs/commands.md's C block).
func readmeExamples(file, text string) (ex []readmeExample, c string) {
	lines := strings.Split(text, "\n")
	fenced := false
	comment := regexp.MustCompile(`\s{2,}#\s.*$`)
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			c += l + "\n"
			continue
		}
		t, ok := strings.CutPrefix(l, "    ")
		if !ok {
			continue
		}
		t, dollar := strings.CutPrefix(t, "$ ")
		if !dollar && !strings.HasPrefix(t, "contend ") {
			continue
		}
		start := i + 1
		for strings.HasSuffix(t, "\\") && i+1 < len(lines) {
			i++
			t = strings.TrimSuffix(t, "\\") + " " + strings.TrimSpace(lines[i])
		}
		t = strings.TrimSpace(comment.ReplaceAllString(t, ""))
		if strings.Contains(t, " [") || strings.Contains(t, "...") || strings.Contains(t, "FILE.json") {
			continue
		}
		ex = append(ex, readmeExample{file, start, t})
	}
	return ex, c
}

// readmeSmall shrinks the sizes of an example so that it runs in seconds
// (CONTEND_README_SIZES=small, the default of TestREADMEExamples; "full"
// runs the README as written).
var readmeSmall = []struct{ re, to string }{
	{`'--threads 40'`, "'--threads 3'"},
	{`--mem \S+`, "--mem 1MiB"},
	{`--threads (1000|400|100|40)\b`, "--threads 4"},
	{`--locks \d+`, "--locks 1000"},
	{`osim 64 256 1000000 0 0`, "osim 4 8 4000 0 0"},
	{`--tasks 1\.\.64x2`, "--tasks 1..8x2"},
	{`--loops 100000`, "--loops 4000"},
	{`locks=1000,10000,100000`, "locks=100,1000"},
	{`--duration 2s`, "--duration 200ms"},
	{`--max-runs 30`, "--max-runs 10"},
	{`-n \d+`, "-n 3"},
	{`--threads 1,2,4,8`, "--threads 1,2"},
}

// vmCampaign matches the commands of the README's campaign in VMs (its
// directory kc).
var vmCampaign = regexp.MustCompile(`^contend campaign (init|run|report) kc\b`)

// TestREADMEExamples runs every command of README.md and of the pages of
// readmePages in order, in a fresh
// directory, with the programs built by scripts/readme-programs.sh and the
// seed mails where the README says (../shared/seeds beside the repository,
// or $CONTEND_SEEDS). Each must exit 0. Skipped, and said: examples that
// need ./osim (its source is not in the repository: set OSIM_SRC to a copy
// of ipcscale's sem-lockunlock.c).
// The README's placeholder knob kernel.x is set by a no-op (true kernel.x=1).
//
// Examples that use tracefs (--trace-events, --evidence lock) run against
// a private tracefs tree (CONTEND_TRACEFS, the files contend touches,
// which must be as they were afterwards), not the machine's: tracefs is
// one per machine, and another contend (another test suite: they run
// without the machine lock) switching events there made the example fail.
// What the kernel does with the events is not tested here.
// CONTEND_README_TRACEFS=machine runs them against the machine's tracefs
// (root, with the lock events; skipped otherwise), for a machine nothing
// else uses.
func TestREADMEExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	// Beside the other parallel tests: every example is a process of
	// its own, in its own directories, with its own tracefs.
	t.Parallel()
	root, _ := filepath.Abs("../..")
	seedsDir := os.Getenv("CONTEND_SEEDS")
	if seedsDir == "" {
		seedsDir = filepath.Join(root, "..", "shared", "seeds")
	}
	if _, err := os.Stat(filepath.Join(seedsDir, "000_d7e92e058cbd48a1.txt")); err != nil {
		t.Skipf("no seed mails at %s (set CONTEND_SEEDS)", seedsDir)
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc")
	}
	var examples []readmeExample
	var csrc string
	for _, f := range readmePages {
		text, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		ex, c := readmeExamples(f, string(text))
		examples, csrc = append(examples, ex...), csrc+c
	}
	if len(examples) < 30 {
		t.Fatalf("found only %d examples in %s", len(examples), strings.Join(readmePages, ", "))
	}
	sizes := os.Getenv("CONTEND_README_SIZES")
	if sizes == "" {
		sizes = "small"
	}

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, work := t.TempDir(), t.TempDir()
	write := func(path, s string, mode os.FileMode) {
		if err := os.WriteFile(path, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(bin, "contend"), "#!/bin/sh\nCONTEND_TEST_AS_MAIN=1 exec "+exe+" \"$@\"\n", 0o755)
	write(filepath.Join(bin, "contend-plot"), "#!/bin/sh\nCONTEND_TEST_AS_PLOT=1 exec "+exe+" \"$@\"\n", 0o755)
	// The README's relative paths: ../shared/seeds from the repository.
	dir := filepath.Join(work, "repo")
	os.MkdirAll(dir, 0o755)
	os.Symlink(filepath.Dir(seedsDir), filepath.Join(work, "shared"))
	os.Symlink(filepath.Join(root, "examples"), filepath.Join(dir, "examples")) // the examples' inputs
	write(filepath.Join(dir, "pthread_mutex1.c"), csrc, 0o644)
	build := exec.Command(filepath.Join(root, "scripts", "readme-programs.sh"), dir)
	build.Env = append(os.Environ(), "CONTEND_README_SIZES="+sizes, "SEEDS="+seedsDir)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("scripts/readme-programs.sh: %v\n%s", err, out)
	}
	machineTrace := os.Getenv("CONTEND_README_TRACEFS") == "machine"
	_, tracing := os.Stat("/sys/kernel/tracing/events/lock/enable")
	trace, traceState := readmeTracefs(t)
	traceBefore := traceState()
	knob := regexp.MustCompile(`sysctl -w (kernel\.x=\d)`)
	ran := 0
	for _, e := range examples {
		cmd := knob.ReplaceAllString(e.cmd, "true $1")
		if sizes == "small" {
			for _, r := range readmeSmall {
				cmd = regexp.MustCompile(r.re).ReplaceAllString(cmd, r.to)
			}
		}
		if strings.Contains(cmd, "./osim") {
			if _, err := os.Stat(filepath.Join(dir, "osim")); err != nil {
				t.Logf("%s:%d skipped (no ./osim; set OSIM_SRC): %s", e.file, e.line, e.cmd)
				continue
			}
		}
		if vmCampaign.MatchString(cmd) {
			// QEMU guests of Debian's kernels: scripts/readme-outputs.sh
			// runs this block, make e2e the same campaign (TestVMCampaigns).
			t.Logf("%s:%d skipped (a campaign in VMs): %s", e.file, e.line, e.cmd)
			continue
		}
		usesTrace := strings.Contains(cmd, "--trace-events") || regexp.MustCompile(`--(\w-)?evidence\s+\S*lock`).MatchString(cmd)
		if usesTrace && machineTrace && (tracing != nil || os.Geteuid() != 0) {
			t.Logf("%s:%d skipped (no tracefs lock events, or not root): %s", e.file, e.line, e.cmd)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		c := exec.CommandContext(ctx, "bash", "-c", cmd)
		c.Dir = dir
		c.Env = append(os.Environ(), "PATH="+bin+":"+dir+":"+os.Getenv("PATH"), "CONTEND_PLOT_HELPER="+filepath.Join(bin, "contend-plot"))
		if !machineTrace {
			// Also for the examples not known to use it: none may touch
			// the machine's tracefs.
			c.Env = append(c.Env, "CONTEND_TRACEFS="+trace)
		}
		out, err := c.CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("%s:%d: %s\n(ran: %s)\n%v\n%s", e.file, e.line, e.cmd, cmd, err, out)
			continue
		}
		if after := traceState(); !reflect.DeepEqual(after, traceBefore) {
			t.Errorf("%s:%d: %s\nleft the private tracefs changed:\nbefore %q\nafter  %q", e.file, e.line, e.cmd, traceBefore, after)
			traceBefore = after
		}
		if usesTrace && !machineTrace {
			t.Logf("%s:%d ran against a private tracefs tree (CONTEND_README_TRACEFS=machine: the machine's): %s", e.file, e.line, e.cmd)
		}
		ran++
	}
	t.Logf("%d of %d README examples ran (sizes %s)", ran, len(examples), sizes)
}

// readmeTracefs makes a private tracefs-like tree with the files that ab
// --trace-events lock and the lock collector touch, and returns its root
// and a function reading them (the trace itself left out).
func readmeTracefs(t *testing.T) (string, func() map[string]string) {
	root := t.TempDir()
	files := map[string]string{
		"events/lock/contention_begin/enable": "0\n", "events/lock/contention_end/enable": "0\n",
		"set_event_pid": "", "options/event-fork": "0\n", "tracing_on": "1\n", "trace": "# tracer: nop\n", "set_event": "",
	}
	for f, v := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, func() map[string]string {
		out := map[string]string{}
		for f := range files {
			if f != "trace" {
				b, _ := os.ReadFile(filepath.Join(root, f))
				out[f] = string(b)
			}
		}
		return out
	}
}

// TestREADMESaysRealCarriesStartUp: where the manual (docs/commands.md,
// once the README's) explains `real` and `verify`, it says that `real`
// carries the child's start-up (about 2 ms), so that verify on `real` of
// short runs shows it.
func TestREADMESaysRealCarriesStartUp(t *testing.T) {
	text, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(string(text)), " ")
	for _, want := range []struct{ where, says string }{
		{"the way `time(1)` does (`real`)", "`real` includes the child's start-up, about 2 ms"},
		{"`verify` alternates a built-in workload", "The ratio of `real` carries the repetition child's start-up"},
	} {
		i := strings.Index(flat, want.where)
		if i < 0 {
			t.Fatalf("docs/commands.md has no %q", want.where)
		}
		para := flat[i:min(len(flat), i+1500)]
		if !strings.Contains(para, want.says) || !strings.Contains(para, "0.49 ms") || !strings.Contains(para, "2.3–2.6 ms") {
			t.Errorf("docs/commands.md after %q does not say %q with the figures", want.where, want.says)
		}
	}
}
