package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/workload"
)

// badCase is one invocation that must be refused as bad usage.
type badCase struct {
	name string
	args []string
	want string // in the one-line error: usually the flag's name
}

// baseArgs returns valid, small parameters of w (its quick
// configuration), so that only the value under test is wrong. A workload
// without one needs an outside file (a String parameter such as the
// plugin's --so): it gets a file that does not exist, which is refused
// only after every other parameter was parsed.
func baseArgs(w *workload.Workload) []string {
	if w.Quick != nil {
		return w.Quick
	}
	var args []string
	for _, p := range w.Params {
		if p.Kind == workload.String {
			args = append(args, "--"+p.Name, "/nonexistent/"+p.Name)
		}
	}
	return args
}

// badValues returns wrong values for a parameter of kind k: missing,
// empty, negative, zero, huge, non-numeric, wrong unit.
func badValues(p workload.Param) []string {
	switch p.Kind {
	case workload.Int:
		v := []string{"", "-1", "many", "1.5", "99999999999999999999", "-99999999999999999999", "12abc", "0x10", "1_0", "1e3"}
		if p.Min > 0 {
			v = append(v, "0")
		}
		if p.Max > 0 {
			v = append(v, fmt.Sprint(p.Max+1))
		}
		return v
	case workload.Size:
		return []string{"", "-1", "0", "ten", "10XB", "1.5.5G", "999999999TiB", "1EiB",
			"-18014398509481920K", "1.5", "0x1p12", "1_024", "NaN", "Inf"}
	case workload.Duration:
		return []string{"", "-1s", "0", "soon", "10 parsecs", "99999999999h", "1ns"}
	case workload.Enum:
		return []string{"", "nosuch", strings.ToUpper(p.Choices[0]) + "x"}
	case workload.Bool:
		return []string{"maybe"}
	}
	return []string{""}
}

func badInputCases() []badCase {
	var cs []badCase
	for _, w := range workload.All() {
		base := baseArgs(w)
		if base == nil {
			panic("workload " + w.Name + " has no Quick configuration (Workload.Quick)")
		}
		for _, p := range w.Params {
			if p.Kind == workload.String {
				continue // an outside file: a missing one is tested below
			}
			for _, val := range badValues(p) {
				flag := "--" + p.Name + "=" + val
				args := append(withoutFlag(base, p.Name), flag)
				for _, cmd := range []string{"run", "ab", "sweep", "verify"} {
					a := append([]string{cmd, w.Name}, args...)
					if cmd == "sweep" && !p.IsConcurrency() {
						a = append([]string{cmd, w.Name}, sweepable(w, args)...)
					}
					if cmd == "verify" {
						if w.Preset == "" {
							continue
						}
						a = append(a, "--", "/bin/true")
					}
					cs = append(cs, badCase{fmt.Sprintf("%s %s --%s=%q", cmd, w.Name, p.Name, val), a, "--" + p.Name})
				}
			}
		}
		// Repetition flags, on every command that runs repetitions (a
		// base without a quick configuration names no real file, which
		// is refused first).
		for _, cmd := range []string{"run", "ab", "sweep"} {
			if w.Quick == nil {
				break
			}
			for _, f := range []struct{ flag, val, want string }{
				{"-n", "0", "--runs"}, {"-n", "-1", "--runs"}, {"-n", "x", "--runs"}, {"-n", "1e9", "--runs"}, {"-n", "", "--runs"},
				{"--warmup", "-1", "--warmup"}, {"--warmup", "lots", "--warmup"},
				{"--timeout", "0", "--timeout"}, {"--timeout", "-1s", "--timeout"}, {"--timeout", "10", "--timeout"}, {"--timeout", "later", "--timeout"},
				{"--timeout", "1ns", "--timeout"}, {"--out", ".", "--out"}, {"--append", "", "--append"}, {"--replace", "", "--replace"},
				{"--format", "xml", "--format"}, {"--out", "", "--out"}, {"--out", "/proc/nonexistent/r.json", "--out"},
			} {
				fv := []string{f.flag, f.val}
				if f.val == "" && (f.flag == "--append" || f.flag == "--replace") {
					fv = fv[:1] // a boolean without --out
				}
				a := append(append([]string{cmd, w.Name}, base...), fv...)
				if cmd == "sweep" {
					a = append(append([]string{cmd, w.Name}, sweepable(w, base)...), fv...)
				}
				if cmd == "ab" {
					a = append(a, "--aa")
				}
				cs = append(cs, badCase{fmt.Sprintf("%s %s %s=%q", cmd, w.Name, f.flag, f.val), a, f.want})
			}
		}
	}
	cs = append(cs,
		badCase{"unknown command", []string{"frobnicate"}, "frobnicate"},
		badCase{"run unknown workload", []string{"run", "nosuch"}, `no workload "nosuch"`},
		badCase{"ab unknown workload", []string{"ab", "nosuch"}, `no workload "nosuch"`},
		badCase{"sweep unknown workload", []string{"sweep", "nosuch"}, "nosuch"},
		badCase{"verify unknown workload", []string{"verify", "nosuch"}, "nosuch"},
		badCase{"run no workload", []string{"run"}, "which workload"},
		badCase{"run unknown flag", []string{"run", "faultme", "--nosuch", "1"}, "--nosuch"},
		badCase{"run flag without value", []string{"run", "faultme", "--threads"}, "--threads"},
		badCase{"run quiet verbose", []string{"run", "faultme", "--quiet", "--verbose"}, "--quiet"},
		badCase{"osim positional count", []string{"run", "osim", "1", "2", "3"}, "positional"},
		badCase{"osim positional value", []string{"run", "osim", "0", "8", "100", "0", "0"}, "--sems"},
		badCase{"osim positional and flag", []string{"run", "osim", "2", "8", "100", "0", "0", "--sems", "2"}, "--sems"},
		badCase{"faultme positional", []string{"run", "faultme", "4"}, "positional"},
		badCase{"sweep bad list", []string{"sweep", "faultme", "--mem", "1MiB", "--threads", "1..x"}, "--threads"},
		badCase{"sweep dash range", []string{"sweep", "faultme", "--mem", "1MiB", "--threads", "1-4"}, `--threads: "1-4" is not an integer (did you mean the range 1..4?); accepted: a list such as 1,2,4,8; a range`},
		badCase{"faultme bare mem", []string{"run", "faultme", "--mem", "64"}, "--mem: 64 bytes is less than one --stride (4KiB); did you mean 64MiB?"},
		badCase{"sweep empty list", []string{"sweep", "faultme", "--mem", "1MiB", "--threads", ""}, "--threads"},
		badCase{"sweep unknown param", []string{"sweep", "faultme", "--param", "nosuch=1,2"}, "nosuch"},
		badCase{"ab same sides", []string{"ab", "faultme", "--mem", "1MiB"}, "same configuration"},
		badCase{"ab bad order", []string{"ab", "faultme", "--mem", "1MiB", "--aa", "--order", "zigzag"}, "--order"},
		badCase{"ab bad until", []string{"ab", "faultme", "--mem", "1MiB", "--aa", "--until", "-5%"}, "--until"},
		badCase{"ab bad alpha", []string{"ab", "faultme", "--mem", "1MiB", "--aa", "--alpha", "1"}, "--alpha"},
		badCase{"ab until with n", []string{"ab", "faultme", "--mem", "1MiB", "--aa", "--until", "5%", "-n", "3"}, "--until"},
		badCase{"compare one file", []string{"compare", "testdata/seeds/rostedt-with.json"}, "compare"},
		badCase{"compare missing file", []string{"compare", "nosuch.json", "testdata/seeds/rostedt-with.json"}, "nosuch.json"},
		badCase{"show csv of an import", []string{"show", "--format", "csv", "testdata/seeds/rostedt-with.json"}, "rostedt-with.json is an import file; csv is the per-point table of a sweep file"},
		badCase{"compare bad alpha", []string{"compare", "--alpha", "2", "testdata/seeds/rostedt-without.json", "testdata/seeds/rostedt-with.json"}, "--alpha"},
		badCase{"compare alpha at one half", []string{"compare", "--alpha", "0.6", "testdata/seeds/rostedt-without.json", "testdata/seeds/rostedt-with.json"}, "--alpha"},
		badCase{"ab until bare five", []string{"ab", "faultme", "--mem", "1MiB", "--aa", "--until", "5"}, "--until"},
		badCase{"compare bad threshold", []string{"compare", "--threshold", "x", "testdata/seeds/rostedt-without.json", "testdata/seeds/rostedt-with.json"}, "--threshold"},
		badCase{"compare bad test", []string{"compare", "--test", "ks", "testdata/seeds/rostedt-without.json", "testdata/seeds/rostedt-with.json"}, "--test"},
		badCase{"compare unknown metric", []string{"compare", "--metric", "nosuch", "testdata/seeds/rostedt-without.json", "testdata/seeds/rostedt-with.json"}, "nosuch"},
		badCase{"compare bad format", []string{"compare", "--format", "xml", "testdata/seeds/rostedt-without.json", "testdata/seeds/rostedt-with.json"}, "--format"},
		badCase{"compare different workloads", []string{"compare", "testdata/seeds/rostedt-without.json", "testdata/seeds/galbraith-osim-rt.json"}, "different workloads"},
		badCase{"show no file", []string{"show"}, "show"},
		badCase{"show missing file", []string{"show", "nosuch.json"}, "nosuch.json"},
		badCase{"show directory", []string{"show", "."}, "directory"},
		badCase{"show bad format", []string{"show", "--format", "xml", "testdata/seeds/rostedt-with.json"}, "--format"},
		badCase{"show --all of json", []string{"show", "--all", "--format", "json", "testdata/seeds/rostedt-with.json"}, "--all: goes with --format text"},
		badCase{"plot bad extension", []string{"plot", "testdata/seeds/rostedt-with.json", "--out", "x.bmp"}, "--out"},
		badCase{"plot missing file", []string{"plot", "nosuch.json", "--out", "x.svg"}, "nosuch.json"},
		badCase{"exec no program", []string{"exec", "-n", "1"}, "program"},
		badCase{"exec bad metric", []string{"exec", "--metric", "novalue", "--", "/bin/true"}, "--metric"},
		badCase{"exec bad regex", []string{"exec", "--metric", "x=(", "--", "/bin/true"}, "--metric"},
		badCase{"exec bad unit", []string{"exec", "--metric", `x=(\d+):parsecs`, "--", "/bin/true"}, "--metric"},
		badCase{"exec bad preset", []string{"exec", "--preset", "nosuch", "--", "/bin/true"}, "--preset"},
		badCase{"exec bad runs", []string{"exec", "-n", "0", "--", "/bin/true"}, "--runs"},
		badCase{"ab exec no program", []string{"ab", "exec", "-n", "1"}, "which programs"},
		badCase{"ab exec only a", []string{"ab", "exec", "--a", "/bin/true"}, "--b is missing"},
		badCase{"ab exec only b", []string{"ab", "exec", "--b", "/bin/true"}, "--a is missing"},
		badCase{"ab exec sides and program", []string{"ab", "exec", "--a", "/bin/true", "--b", "/bin/false", "--", "/bin/true"}, "not both"},
		badCase{"ab exec same sides", []string{"ab", "exec", "--", "/bin/true"}, "same configuration"},
		badCase{"ab exec same commands", []string{"ab", "exec", "--a", "/bin/true x", "--b", "/bin/true  'x'"}, "same configuration"},
		badCase{"ab exec missing program a", []string{"ab", "exec", "--a", "/nonexistent/x", "--b", "/bin/true"}, "--a: /nonexistent/x: no such file"},
		badCase{"ab exec missing program b", []string{"ab", "exec", "--a", "/bin/true", "--b", "no-such-program-here 1"}, "not found in PATH"},
		badCase{"ab exec not executable", []string{"ab", "exec", "--a", "/etc/passwd", "--b", "/bin/true"}, "not an executable"},
		badCase{"ab exec missing shared program", []string{"ab", "exec", "--aa", "--", "/nonexistent/x"}, "no such file"},
		badCase{"ab exec empty a", []string{"ab", "exec", "--a", " ", "--b", "/bin/true"}, "--a: empty"},
		badCase{"ab exec empty shell b", []string{"ab", "exec", "--shell", "--a", "true", "--b", ""}, "--b: empty"},
		badCase{"ab exec unterminated quote", []string{"ab", "exec", "--a", "/bin/echo 'x", "--b", "/bin/true"}, "--a"},
		badCase{"ab exec aa with b", []string{"ab", "exec", "--aa", "--a", "/bin/true", "--b", "/bin/false"}, "--aa"},
		badCase{"ab exec bad preset", []string{"ab", "exec", "--preset", "nosuch", "--aa", "--", "/bin/true"}, "--preset"},
		badCase{"ab exec import-only preset", []string{"ab", "exec", "--preset", "time", "--aa", "--", "/bin/true"}, "--preset"},
		badCase{"ab exec bad metric", []string{"ab", "exec", "--metric", "x=(", "--aa", "--", "/bin/true"}, "--metric"},
		badCase{"ab exec process metric", []string{"ab", "exec", "--metric", `real=(\d+)`, "--aa", "--", "/bin/true"}, "--metric"},
		badCase{"ab exec bad order", []string{"ab", "exec", "--order", "ba", "--aa", "--", "/bin/true"}, "--order"},
		badCase{"ab exec bad seed", []string{"ab", "exec", "--order", "random", "--seed", "-1", "--aa", "--", "/bin/true"}, "--seed"},
		badCase{"ab exec bad until", []string{"ab", "exec", "--until", "0%", "--aa", "--", "/bin/true"}, "--until"},
		badCase{"ab exec until with n", []string{"ab", "exec", "--until", "5%", "-n", "3", "--aa", "--", "/bin/true"}, "--until"},
		badCase{"ab exec max without until", []string{"ab", "exec", "--max-runs", "9", "--aa", "--", "/bin/true"}, "--max-runs"},
		badCase{"ab exec bad alpha", []string{"ab", "exec", "--alpha", "0.5", "--aa", "--", "/bin/true"}, "--alpha"},
		badCase{"ab exec bad prepare timeout", []string{"ab", "exec", "--prepare-timeout", "soon", "--aa", "--", "/bin/true"}, "--prepare-timeout"},
		badCase{"ab exec bad trace events", []string{"ab", "exec", "--trace-events", "no/such", "--", "/bin/true"}, "--trace-events"},
		badCase{"ab exec empty trace events", []string{"ab", "exec", "--trace-events", "", "--", "/bin/true"}, "--trace-events"},
		badCase{"ab exec bad runs", []string{"ab", "exec", "-n", "0", "--aa", "--", "/bin/true"}, "--runs"},
		badCase{"ab exec bad timeout", []string{"ab", "exec", "--timeout", "10", "--aa", "--", "/bin/true"}, "--timeout"},
		badCase{"ab exec format original", []string{"ab", "exec", "--format", "original", "--aa", "--", "/bin/true"}, "--format"},
		badCase{"ab exec bad out", []string{"ab", "exec", "--out", "/proc/nonexistent/r.json", "--aa", "--", "/bin/true"}, "--out"},
		badCase{"ab exec unknown flag", []string{"ab", "exec", "--threads", "2", "--aa", "--", "/bin/true"}, "--threads"},
		badCase{"import missing log", []string{"import", "--preset", "faultme", "nosuch.txt"}, "nosuch.txt"},
		badCase{"import bad preset", []string{"import", "--preset", "nosuch", "x.txt"}, "--preset"},
		badCase{"import bad select", []string{"import", "--preset", "faultme", "--select", "z..y", "x.txt"}, "--select"},
		badCase{"verify no program", []string{"verify", "faultme", "--mem", "1MiB"}, "program"},
		badCase{"verify bad margin", []string{"verify", "faultme", "--mem", "1MiB", "--margin", "lots", "--", "/bin/true"}, "--margin"},
		badCase{"port bad mode", []string{"port", "--template", "x", "--mode", "sometimes"}, "--mode"},
		badCase{"port nothing", []string{"port"}, "port"},
		badCase{"env bad format", []string{"env", "--format", "xml"}, "--format"},
		badCase{"completion bad shell", []string{"completion", "fish"}, "bash, zsh"},
		badCase{"help unknown", []string{"help", "nosuch"}, "nosuch"},
		badCase{"list extra", []string{"list", "x"}, "list"},
		badCase{"cleanup extra", []string{"cleanup", "x"}, "cleanup"},
		badCase{"plugin missing so", []string{"run", "plugin", "--so", "/nonexistent/x.so"}, "--so"},
		// Found by the bad-input sweep of round 3 (each was accepted, or
		// refused with exit 1, a wrong text or a stack trace, before).
		badCase{"verify one pair", []string{"verify", "faultme", "--mem", "1MiB", "-n", "1", "--", "/bin/true"}, "at least 3"},
		badCase{"verify two pairs", []string{"verify", "faultme", "--mem", "1MiB", "-n", "2", "--", "/bin/true"}, "--runs"},
		badCase{"verify out directory", []string{"verify", "faultme", "--mem", "1MiB", "--out", "testdata", "--", "/bin/true"}, "is a directory"},
		badCase{"ab seed with order ab", []string{"ab", "faultme", "--mem", "1MiB", "--aa", "--order", "ab", "--seed", "5"}, "--seed"},
		badCase{"ab exec seed with abba", []string{"ab", "exec", "--order", "abba", "--seed", "5", "--aa", "--", "/bin/true"}, "--seed"},
		badCase{"ab prepare timeout 1ns", []string{"ab", "faultme", "--mem", "1MiB", "--aa", "--prepare-timeout", "1ns"}, "--prepare-timeout"},
		badCase{"sweep seed with fixed order", []string{"sweep", "faultme", "--mem", "1MiB", "--threads", "1,2", "--order", "fixed", "--seed", "3"}, "--seed"},
		badCase{"run out directory", []string{"run", "faultme", "--mem", "1MiB", "--out", "/"}, "--out: / is a directory"},
		badCase{"run append no out", []string{"run", "faultme", "--mem", "1MiB", "--append"}, "--append needs --out"},
		badCase{"import replace no out", []string{"import", "--preset", "faultme", "--replace", "x.txt"}, "--replace needs --out"},
		badCase{"import out directory", []string{"import", "--preset", "faultme", "--out", "testdata", "x.txt"}, "is a directory"},
		badCase{"exec out directory", []string{"exec", "--out", ".", "--", "/bin/true"}, "is a directory"},
		badCase{"exec timeout 1ns", []string{"exec", "--timeout", "1ns", "--", "/bin/true"}, "--timeout"},
		badCase{"import unknown short flag", []string{"import", "--preset", "faultme", "-n", "3", "x.txt"}, "unknown flag -n;"},
		badCase{"compare empty metric", []string{"compare", "--metric", "", "testdata/seeds/rostedt-without.json", "testdata/seeds/rostedt-with.json"}, "--metric"},
		badCase{"compare empty file name", []string{"compare", "-a", "", "-b", "testdata/seeds/rostedt-with.json"}, "empty file name"},
		badCase{"compare hex alpha", []string{"compare", "--alpha", "0x1p-4", "testdata/seeds/rostedt-without.json", "testdata/seeds/rostedt-with.json"}, "--alpha"},
		badCase{"compare hex threshold", []string{"compare", "--threshold", "0x1p-4", "testdata/seeds/rostedt-without.json", "testdata/seeds/rostedt-with.json"}, "--threshold"},
		badCase{"env extra", []string{"env", "x"}, "env takes no arguments"},
		badCase{"completion two shells", []string{"completion", "bash", "zsh"}, "one shell"},
		badCase{"port template in missing directory", []string{"port", "--template", "/nonexistent/x"}, "--template"},
		badCase{"campaign init over a file", []string{"campaign", "init", "x.txt", "--a-boot-command", "true", "--a-release", "x", "--b-boot-command", "true", "--b-release", "y", "--", "run", "faultme", "--mem", "1MiB", "-n", "2"}, "x.txt"},
		badCase{"run parameter given twice", []string{"run", "faultme", "--mem", "1MiB", "--threads", "4", "--threads", "8"}, `--threads: given twice ("4", then "8")`},
		badCase{"run runs given twice", []string{"run", "faultme", "--mem", "1MiB", "-n", "3", "--runs=4"}, "--runs: given twice"},
		badCase{"exec runs given twice", []string{"exec", "-n", "3", "-n", "4", "--", "/bin/true"}, "-n: given twice"},
		badCase{"ab side flag given twice", []string{"ab", "faultme", "--mem", "1MiB", "-a", "--threads 2 --threads=3", "-b", "--threads 1"}, `--a: --threads given twice ("2", then "3")`},
		badCase{"ab side given twice", []string{"ab", "faultme", "--mem", "1MiB", "-a", "--threads 2", "-a", "--threads 3", "-b", "--threads 1"}, "-a: given twice"},
		badCase{"compare alpha given twice", []string{"compare", "--alpha", "0.05", "--alpha", "0.01", "testdata/seeds/rostedt-without.json", "testdata/seeds/rostedt-with.json"}, "--alpha: given twice"},
		badCase{"plot out missing directory", []string{"plot", "testdata/seeds/rostedt-with.json", "--out", "/nonexistent/x.svg"}, "--out"},
	)
	return cs
}

// sweepable makes args a sweep: the thread or task count in args becomes
// a list; without one, the first integer parameter not in args is swept
// with --param (a workload need not count threads).
func sweepable(w *workload.Workload, args []string) []string {
	out := append([]string{}, args...)
	for i := 0; i+1 < len(out); i++ {
		if p, ok := w.Param(strings.TrimPrefix(out[i], "--")); ok && p.IsConcurrency() {
			out[i+1] = "1," + out[i+1]
			return out
		}
	}
	for _, p := range w.Params {
		if p.Kind != workload.Int {
			continue
		}
		value, given := "2", false
		for i, a := range out {
			if a == "--"+p.Name && i+1 < len(out) {
				value = out[i+1]
			}
			given = given || strings.HasPrefix(a, "--"+p.Name+"=") // the value under test
		}
		if !given {
			return append(withoutFlag(out, p.Name), "--param", p.Name+"=1,"+value)
		}
	}
	return out
}

func withoutFlag(args []string, name string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--"+name {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// TestBadInput runs every command with every kind of bad value for every
// flag and checks: exit status 2, one line on stderr naming the flag,
// nothing on stdout, no file created or modified, no IPC object and no
// process left.
func TestBadInput(t *testing.T) {
	src, _ := os.Getwd()
	testdata := filepath.Join(src, "testdata")
	semsBefore := semSet(t)
	cases := badInputCases()
	// One directory for every case, its files listed before and after
	// each (a case that leaves one fails, and its file stays in the list
	// of the next): a fresh one per case, made, linked and removed 1,500
	// times, was a third of the test's time.
	dir := chdirTemp(t)
	if err := os.Symlink(testdata, filepath.Join(dir, "testdata")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x.txt"), []byte("time = 5 usecs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := listFiles(t, dir)
			assertUsageError(t, runCLI(t, c.args...), c.want, dir, before)
		})
	}
	assertNoNewSems(t, semsBefore)
	assertNoChildren(t, os.Getpid())
	t.Logf("%d bad-input cases", len(cases))
}

// TestStackLimitRefused: a stack size limit that no thread stack can be
// mapped with is refused in one line, exit status 1, before the Go runtime
// starts (which aborted in pthread_create with a stack trace of every
// goroutine). The limit is set as the soft limit of a shell that runs
// this test binary as contend.
func TestStackLimitRefused(t *testing.T) {
	const kib = 1 << 40 // 1 PiB: more than any RAM and swap
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", fmt.Sprintf("ulimit -S -s %d || exit 99; exec \"$0\" env", kib), exe)
	cmd.Env = append(os.Environ(), "CONTEND_TEST_AS_MAIN=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	code := cmd.ProcessState.ExitCode()
	if code == 99 {
		t.Skipf("the shell cannot raise the stack limit to %d KiB here", kib)
	}
	if code == 0 {
		t.Skipf("the kernel maps a %d KiB stack here (overcommit): nothing to refuse", kib)
	}
	if code != 1 || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 ||
		!strings.Contains(stderr.String(), "ulimit -s") || strings.Contains(stderr.String(), "goroutine") {
		t.Errorf("exit %d (%v), stdout %q, stderr %q; want exit 1 and one line naming ulimit -s", code, err, stdout.String(), stderr.String())
	}
}
