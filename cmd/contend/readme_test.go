package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
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

// readmeFirst are the pages whose examples TestREADMEExamples runs
// first, in this order, in one directory: the README's, then the pages
// of docs/ that use its result files (docs/commands.md: the README's
// first.jsonl; docs/compare.md: its import of Rostedt's mail and
// commands.md's before.jsonl); readmePages adds every other docs/*.md.
var readmeFirst = []string{"README.md", "docs/commands.md", "docs/compare.md"}

// readmePages returns README.md and every page of docs/ under root, in the
// order TestREADMEExamples runs their examples: readmeFirst, then the
// rest of docs/*.md by name.
func readmePages(root string) ([]string, error) {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	pages := append([]string(nil), readmeFirst...)
	for _, d := range docs {
		rel := filepath.ToSlash(strings.TrimPrefix(d, root+string(filepath.Separator)))
		if !slices.Contains(pages, rel) {
			pages = append(pages, rel)
		}
	}
	return pages, nil
}

// readmeExamples returns the commands of file's code blocks: lines of an
// indented block starting with "contend ", "make " or "$ ", and lines of a fenced
// block (other than a C one) starting with "contend ", each continued by
// a trailing backslash, without its trailing "  # comment". Synopses
// (with "[", "..." or a FILE.json placeholder) are not commands. c is the
// text of the ```c blocks (the plugin's source: docs/commands.md's).
func readmeExamples(file, text string) (ex []readmeExample, c string) {
	lines := strings.Split(text, "\n")
	fence := ""
	comment := regexp.MustCompile(`\s{2,}#\s.*$`)
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "```") {
			if fence == "" {
				fence = "text"
				if strings.TrimPrefix(l, "```") == "c" {
					fence = "c"
				}
			} else {
				fence = ""
			}
			continue
		}
		var t string
		switch {
		case fence == "c":
			c += l + "\n"
			continue
		case fence != "":
			if !strings.HasPrefix(l, "contend ") {
				continue
			}
			t = l
		default:
			var ok, dollar bool
			if t, ok = strings.CutPrefix(l, "    "); !ok {
				continue
			}
			if t, dollar = strings.CutPrefix(t, "$ "); !dollar && !strings.HasPrefix(t, "contend ") && !strings.HasPrefix(t, "make ") {
				continue
			}
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
// runs the README as written). The example programs (examples/src) take
// their sizes on the command line and are shrunk with the workloads.
var readmeSmall = []struct{ re, to string }{
	{`^make run\b`, "make run RUN_FLAGS='--threads 4 --mem 1MiB -n 3'"},
	{`'--threads 40'`, "'--threads 3'"},
	{`--mem \S+`, "--mem 1MiB"},
	{`--threads (1000|400|100|40)\b`, "--threads 4"},
	{`--locks \d+`, "--locks 1000"},
	{`\b(osim|semloop) 64 256 1000000 0 0`, "$1 4 8 4000 0 0"},
	{`\b(pagefault(-O0)?) 40 1024\b`, "$1 4 1"},
	{`\bmutexloop 100 30000\b`, "mutexloop 4 1000"},
	{`--tasks 1\.\.64x2`, "--tasks 1..8x2"},
	{`--loops 100000`, "--loops 4000"},
	{`locks=1000,10000,100000`, "locks=100,1000"},
	{`--duration 2s`, "--duration 200ms"},
	{`--max-runs 30`, "--max-runs 10"},
	{`-n \d+`, "-n 3"},
	{`--threads 1,2,4,8`, "--threads 1,2"},
}

// readmeSkips are the examples TestREADMEExamples does not run, each with
// why: what they need is root, a VM, KVM or the network, or a history
// that is the reader's own. Everything else runs from a copy of the
// clone, without ../shared.
var readmeSkips = []struct {
	re, why string
}{
	{`^make install\b`, "builds and installs contend into the reader's PREFIX; scripts/install-check.sh runs the README's install blocks on a fresh clone of each distribution, as root with the network (.ci/run)"},
	{`^make test\b`, "the whole test suite, this test included: what CI runs (.ci/run) on a clone"},
	{`^make e2e\b`, "root, QEMU guests and Debian's kernels fetched over the network"},
	{`^contend campaign (init|run|report|status) (~/)?(kc|kp|doc)\b`, "a campaign in QEMU guests: root, KVM (or minutes of TCG) and Debian's kernels fetched over the network; scripts/readme-outputs.sh runs docs/vm.md's block, make e2e the same campaign (TestVMCampaigns)"},
	{`^contend bisect .*--vm\b`, "a bisect of kernels in QEMU guests: a kernel tree, root and KVM; make e2e runs one (TestVMBisect, TestKernelTreeBisect)"},
	{`^contend bisect\b`, "a search over the reader's own project (its tag v1.0, its ./bench, its search directory bs); the bisect tests build a repository for it (cmd/contend/bisect_test.go)"},
	{`^contend report --for-lkml\b`, "results of two kernels (a campaign's boots, a bisect of a kernel tree, or files from two boots): reboots or QEMU guests; the report's tests build each kind (internal/lkmlreport, TestReportForLKML)"},
	{`^contend reproduce report\.mail\b`, "a robot's report mail and will-it-scale's tests (the network); the reproduce tests read real robot mails (internal/robotmail/testdata/real)"},
	{`will-it-scale/tests|wis --test tests/`, "will-it-scale's tests, a clone of github.com/antonblanchard/will-it-scale (the network; its GPL sources are never copied here); the wis tests compile tests of their own in its shape"},
}

// TestREADMEExamples runs every command of README.md and of every page of
// docs/ (readmePages), in order, in one directory that is a copy of the
// clone (the files git tracks; nothing beside it: no ../shared, and
// CONTEND_SEEDS and SEEDS name a directory that does not exist). The
// example programs are the clone's own (examples/src, built by the
// manual's "make examples"); the plugin's source is the manual's C block.
// Each must exit 0. Skipped, and said with the reason: readmeSkips.
// The placeholder knob kernel.x is set by a no-op (true kernel.x=1), and
// a result-file recipe's FILE is the README's first.jsonl.
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
	for _, tool := range []string{"gcc", "make", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	pages, err := readmePages(root)
	if err != nil {
		t.Fatal(err)
	}
	var examples []readmeExample
	var csrc string
	for _, f := range pages {
		text, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		ex, c := readmeExamples(f, string(text))
		examples, csrc = append(examples, ex...), csrc+c
	}
	if len(examples) < 60 {
		t.Fatalf("found only %d examples in %s", len(examples), strings.Join(pages, ", "))
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
	dir := filepath.Join(work, "contend")
	copyClone(t, root, dir)
	if _, err := os.Stat(filepath.Join(work, "shared")); err == nil {
		t.Fatal("the clone's copy has a ../shared beside it")
	}
	// The plugin's source goes into the copy when an example first needs
	// it: a C file at the module's root would break make run's Go build.
	cWritten := false
	machineTrace := os.Getenv("CONTEND_README_TRACEFS") == "machine"
	_, tracing := os.Stat("/sys/kernel/tracing/events/lock/enable")
	trace, traceState := readmeTracefs(t)
	traceBefore := traceState()
	knob := regexp.MustCompile(`sysctl -w (kernel\.x=\d)`)
	file := regexp.MustCompile(`\bFILE\b`)
	ran, skipped := 0, 0
	skips := make([]int, len(readmeSkips))
examples:
	for _, e := range examples {
		for i, s := range readmeSkips {
			if regexp.MustCompile(s.re).MatchString(e.cmd) {
				t.Logf("%s:%d skipped (%s): %s", e.file, e.line, s.why, e.cmd)
				skips[i]++
				skipped++
				continue examples
			}
		}
		cmd := knob.ReplaceAllString(e.cmd, "true $1")
		cmd = file.ReplaceAllString(cmd, "first.jsonl")
		if sizes == "small" {
			for _, r := range readmeSmall {
				cmd = regexp.MustCompile(r.re).ReplaceAllString(cmd, r.to)
			}
		}
		usesTrace := strings.Contains(cmd, "--trace-events") || regexp.MustCompile(`--(\w-)?evidence\s+\S*lock`).MatchString(cmd)
		if usesTrace && machineTrace && (tracing != nil || os.Geteuid() != 0) {
			t.Logf("%s:%d skipped (no tracefs lock events, or not root): %s", e.file, e.line, e.cmd)
			skipped++
			continue
		}
		if !cWritten && strings.Contains(cmd, "pthread_mutex1.c") {
			write(filepath.Join(dir, "pthread_mutex1.c"), csrc, 0o644)
			cWritten = true
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		c := exec.CommandContext(ctx, "bash", "-c", cmd)
		c.Dir = dir
		c.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "CONTEND_PLOT_HELPER="+filepath.Join(bin, "contend-plot"),
			"CONTEND_SEEDS="+filepath.Join(work, "no-seeds"), "SEEDS="+filepath.Join(work, "no-seeds"))
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
		t.Logf("%s:%d ran: %s", e.file, e.line, cmd)
		ran++
	}
	t.Logf("%d of %d examples of README.md and docs/ ran (sizes %s), %d skipped", ran, len(examples), sizes, skipped)
	for i, n := range skips {
		if n == 0 {
			t.Errorf("readmeSkips[%d] (%s) matches no example: remove it", i, readmeSkips[i].re)
		}
	}
}

// copyClone copies the files git tracks in root (a clone, its changes not
// yet committed included) to dir: what a fresh clone has, and nothing
// built or left beside it.
func copyClone(t *testing.T, root, dir string) {
	t.Helper()
	ls := exec.Command("git", "-C", root, "ls-files", "-z", "--cached")
	out, err := ls.Output()
	if err != nil {
		t.Fatalf("git ls-files in %s: %v (TestREADMEExamples runs from a clone)", root, err)
	}
	for _, f := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		src, dst := filepath.Join(root, f), filepath.Join(dir, f)
		fi, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // removed in the work tree, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, dst); err != nil {
				t.Fatal(err)
			}
			continue
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
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

// TestMakefileWritesJSONL: every result file the Makefile's targets name
// (--out) is .jsonl, the extension of a result file ('make run' wrote
// results/make-run-faultme.json).
func TestMakefileWritesJSONL(t *testing.T) {
	text, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	outs := regexp.MustCompile(`--out[ =](\S+)`).FindAllStringSubmatch(string(text), -1)
	if len(outs) == 0 {
		t.Fatal("no --out in the Makefile")
	}
	for _, o := range outs {
		if !strings.HasSuffix(o[1], ".jsonl") {
			t.Errorf("the Makefile writes %s, not a .jsonl", o[1])
		}
	}
}
