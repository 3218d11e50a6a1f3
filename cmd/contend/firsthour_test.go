package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"contend"
	"contend/internal/results"
	"contend/internal/workload"
)

// TestHelpListsTopics: 'contend help' and 'contend --help' end with the
// help topics, each with what it explains (they listed none).
func TestHelpListsTopics(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}} {
		r := runCLI(t, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "TOPICS (contend help TOPIC") {
			t.Fatalf("%v: exit %d, no TOPICS:\n%s", args, r.code, r.stdout)
		}
		for name := range helpTopics {
			if !regexp.MustCompile(`(?m)^   `+name+` +\S`).MatchString(r.stdout) || helpTopicUsage[name] == "" {
				t.Errorf("%v: topic %s not listed with its use", args, name)
			}
		}
	}
}

// TestHelpWisNamesItsMetricOnce: help wis says what per_thread_ops and
// per_process_ops are where it lists per_task_ops (the metrics named the
// one figure three ways: the text said per_thread_ops or per_process_ops,
// the list per_task_ops alone).
func TestHelpWisNamesItsMetricOnce(t *testing.T) {
	r := runCLI(t, "help", "wis")
	_, list, ok := strings.Cut(r.stdout, "\nmetrics:\n")
	if r.code != 0 || !ok {
		t.Fatalf("exit %d:\n%s", r.code, r.stdout)
	}
	desc := strings.Join(strings.Fields(regexp.MustCompile(`(?s)per_task_ops \[.*?\n  \S`).FindString(list)), " ")
	for _, m := range []string{"per_thread_ops", "per_process_ops"} {
		if !strings.Contains(desc, m) {
			t.Errorf("the metrics' list does not say what %s is: %q", m, desc)
		}
	}
}

// TestReproduceHelpFlags: reproduce --help gives --boots one default and
// names no flag reproduce does not have (--vm, --a-kexec: campaign
// init's words).
func TestReproduceHelpFlags(t *testing.T) {
	r := runCLI(t, "reproduce", "--help")
	_, opts, _ := strings.Cut(r.stdout, "OPTIONS:")
	if r.code != 0 || opts == "" {
		t.Fatalf("exit %d:\n%s", r.code, r.stdout)
	}
	boots := regexp.MustCompile(`(?s)--boots value.*?\n   --`).FindString(opts)
	if strings.Count(boots, "(default:") != 1 {
		t.Errorf("--boots: %q", boots)
	}
	for _, bad := range []string{"--vm:", "--vm ", "kexec"} {
		if strings.Contains(opts, bad) {
			t.Errorf("reproduce --help names %q:\n%s", bad, opts)
		}
	}
}

// TestHelpExamplesAreSmall: the examples of contend --help that run the
// mutex workload give it a size of at most 1/100 of its default (1,000
// threads x 300,000 locks: about 7 minutes on a 2-CPU machine).
func TestHelpExamplesAreSmall(t *testing.T) {
	w, _ := workload.Lookup("mutex")
	def := func(name string) int64 {
		p, _ := w.Param(name)
		n, _ := strconv.ParseInt(p.Default, 10, 64)
		return n
	}
	limit := def("threads") * def("locks") / 100
	n := 0
	for _, l := range strings.Split(helpText("contend"), "\n") {
		f := strings.Fields(l)
		if len(f) < 3 || f[0] != "contend" || !strings.Contains(l, " mutex") {
			continue
		}
		n++
		size := int64(1)
		for _, flag := range []string{"--threads", "--locks"} {
			v := def(strings.TrimPrefix(flag, "--"))
			for i := range f[:len(f)-1] {
				if f[i] == flag {
					v, _ = strconv.ParseInt(f[i+1], 10, 64)
				}
			}
			size *= v
		}
		if size > limit || size <= 0 {
			t.Errorf("%q: %d lock/unlock pairs, more than %d", l, size, limit)
		}
	}
	if n == 0 {
		t.Error("no mutex example in contend --help")
	}
}

// TestVersionNamesTheBuild: --version, the result header and the
// environment say contend.FullVersion (the release with the revision and
// local changes the build stamped), the same string.
func TestVersionNamesTheBuild(t *testing.T) {
	r := runCLI(t, "--version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "contend version "+contend.FullVersion()+" (native ") {
		t.Errorf("--version: %q", r.stdout)
	}
	dir := chdirTemp(t)
	out := filepath.Join(dir, "v.jsonl")
	if r := runCLI(t, "run", "faultme", "--threads", "1", "--mem", "256KiB", "-n", "1", "-q", "--out", out); r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Contend != contend.FullVersion() || f.Env["contend.version"] != contend.FullVersion() {
		t.Errorf("header %q, environment %q, want %q", f.Contend, f.Env["contend.version"], contend.FullVersion())
	}
}

// TestHelpCommandIsDashHelp: 'contend help COMMAND' prints what 'contend
// COMMAND --help' prints, for every command (help run lacked the
// workloads and the flags, help bisect its OPTIONS).
func TestHelpCommandIsDashHelp(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	n := 0
	for _, c := range commands() {
		if c.Hidden || c.Name == "help" {
			continue
		}
		n++
		help, dash := runCLI(t, "help", c.Name), runCLI(t, c.Name, "--help")
		if help.code != 0 || dash.code != 0 || help.stdout != dash.stdout || !strings.HasPrefix(help.stdout, "NAME:\n   contend "+c.Name+" ") {
			t.Errorf("help %s (exit %d) and %s --help (exit %d) differ:\n%s\n----\n%s", c.Name, help.code, c.Name, dash.code, help.stdout, dash.stdout)
		}
	}
	if n < 15 {
		t.Errorf("only %d commands", n)
	}
}

// TestRunHelpListsEveryCommonFlag: 'contend run --help' names every flag
// a workload's run takes besides its parameters (the text listed six of
// them by hand: not --all, --full, --evidence, --append, --replace,
// --no-lock, --no-wait).
func TestRunHelpListsEveryCommonFlag(t *testing.T) {
	r := runCLI(t, "run", "--help")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, w := range workload.All() {
		params := map[string]bool{}
		for _, f := range paramFlags(w) {
			params[f.Names()[0]] = true
		}
		for _, f := range runWorkloadCommand(w).Flags {
			name := f.Names()[0]
			if params[name] || name == "help" {
				continue
			}
			if !regexp.MustCompile(`(?m)^\s+(-\w, )?--` + regexp.QuoteMeta(name) + `\b`).MatchString(r.stdout) {
				t.Errorf("run --help does not list --%s (a flag of run %s)", name, w.Name)
			}
		}
	}
}
