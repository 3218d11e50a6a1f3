package main

import (
	"flag"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"contend/cmd/contend/internal/cliflag"
	"contend/internal/evidence"
	"contend/internal/value"
	"contend/internal/workload"
)

// TestCompletionScripted sources the bash completion in a real bash, sets
// COMP_WORDS and COMP_CWORD as bash does when Tab is pressed, and checks
// COMPREPLY.
func TestCompletionScripted(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	wrapper := "#!/bin/sh\nCONTEND_TEST_AS_MAIN=1 exec " + exe + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "contend"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	work := chdirTemp(t)
	os.Mkdir(filepath.Join(work, "somedir"), 0o755)
	os.WriteFile(filepath.Join(work, "before.json"), nil, 0o644)
	script := filepath.Join(bin, "comp.sh")
	os.WriteFile(script, []byte(`source <(contend completion bash)
COMP_WORDS=(contend "$@")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
_contend_complete
printf '%s\n' "${COMPREPLY[@]}"
`), 0o644)
	for _, c := range []struct {
		words      []string
		want, dont []string
	}{
		{[]string{""}, []string{"run", "compare", "help"}, []string{"h", "somedir", "__complete"}},
		{[]string{"so"}, nil, []string{"somedir"}},
		{[]string{"run", "faultme", "--"}, []string{"--threads", "--mem", "--runs", "--out", "--timeout", "--format"}, []string{"-n"}},
		{[]string{"run", "faultme", "-"}, []string{"-n", "--threads"}, nil},
		{[]string{"help", ""}, []string{"faultme", "mutex", "run", "compare"}, []string{"h"}},
		{[]string{"compare", ""}, []string{"before.json"}, []string{"h", "help"}},
		{[]string{"show", "b"}, []string{"before.json"}, []string{"h"}},
		{[]string{"run", ""}, []string{"faultme", "osim"}, []string{"h", "help"}},
		{[]string{"run", "--threads", "4", ""}, []string{"faultme"}, nil},
		{[]string{"run", "faultme", "--format", ""}, []string{"text", "json", "original"}, nil},
		{[]string{"run", "mutex", "--variant", ""}, []string{"trylock", "lock"}, nil},
		{[]string{"run", "faultme", "--thp", "n"}, []string{"never"}, []string{"leave"}},
		{[]string{"compare", "--format", ""}, []string{"markdown", "bench"}, nil},
		{[]string{"sweep", "faultme", "--order", ""}, []string{"shuffled", "fixed"}, nil},
		{[]string{"completion", ""}, []string{"bash", "zsh"}, nil},
		// Issue 25: words completion offered that the command refuses.
		{[]string{"ab", "faultme", "--format", ""}, []string{"text", "json"}, []string{"original"}},
		{[]string{"ab", "exec", "--format", ""}, []string{"text", "json"}, []string{"original"}},
		{[]string{"exec", "--preset", ""}, []string{"faultme", "osim"}, []string{"time"}},
		{[]string{"import", "--preset", ""}, []string{"faultme", "time"}, nil},
		{[]string{"campaign", "report", "--format", ""}, []string{"markdown", "bench"}, nil},
		{[]string{"port", "--mode", ""}, []string{"duration", "fixed"}, nil},
		// Issue 30: what completion did not offer.
		{[]string{"ab", "faultme", "--"}, []string{"--a", "--b", "--threads"}, nil},
		{[]string{"ab", "mutex", "--a", "'--threads 4 --v"}, []string{"--threads 4 --variant"}, []string{"--threads 4 --threads"}},
		{[]string{"ab", "mutex", "--a", "'--thr"}, []string{"--threads"}, nil},
		{[]string{"help", ""}, []string{"evidence", "maxrss"}, nil},
		{[]string{"run", "faultme", "--evidence", ""}, []string{"default", "none", "lock", "perf"}, nil},
		{[]string{"run", "faultme", "--evidence", "lock,"}, []string{"lock,perf", "lock,sched"}, []string{"lock,lock"}},
		// Flags that take a file.
		{[]string{"cleanup", "--binary", ""}, []string{"before.json"}, nil},
		{[]string{"compare", "--by", "host", "--plot", ""}, []string{"before.json"}, nil},
		{[]string{"campaign", "init", "--a-kexec", ""}, []string{"before.json"}, nil},
	} {
		cmd := exec.Command(bash, append([]string{script}, c.words...)...)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
		cmd.Stderr = io.Discard
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%q: %v", c.words, err)
		}
		got := strings.Split(strings.TrimRight(string(out), "\n"), "\n") // a reply may hold spaces (ab --a)
		has := map[string]bool{}
		for _, g := range got {
			has[g] = true
		}
		for _, w := range c.want {
			if !has[w] {
				t.Errorf("contend %s<Tab>: %q lacks %q", strings.Join(c.words, " "), got, w)
			}
		}
		for _, w := range c.dont {
			if has[w] {
				t.Errorf("contend %s<Tab>: %q offers %q", strings.Join(c.words, " "), got, w)
			}
		}
	}
}

func TestCompleteAfterDashDashIsAProgram(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	if got := complete(app, []string{"exec", "-n", "3", "--", ""}); len(got) != 1 || got[0] != filesMarker {
		t.Errorf("exec -- <Tab>: %q, want file names", got)
	}
	if got := complete(app, []string{"run", "faultme", "--label", ""}); len(got) != 0 {
		t.Errorf("--label <Tab> (free text): %q, want nothing", got)
	}
}

// enumSite is one flag of the command tree whose value is one word of a
// fixed set (enumFlag), with the words that reach it on a command line.
type enumSite struct {
	path []string // command words after contend: run faultme
	flag string
	e    *value.Enum
	f    *valueFlag
}

// enumSites walks the whole command tree of app.
func enumSites(cs []*cli.Command, path []string) []enumSite {
	var out []enumSite
	for _, c := range cs {
		if c.Hidden || c.Name == "help" {
			continue
		}
		p := append(slices.Clone(path), c.Name)
		for _, f := range c.Flags {
			if e := cliflag.EnumOf(f); e != nil {
				out = append(out, enumSite{p, f.Names()[0], e, f.(*valueFlag)})
			}
		}
		out = append(out, enumSites(c.Subcommands, p)...)
	}
	return out
}

// TestEnumFlagsCompleteTheirWords: for every enum flag of every command
// (the whole urfave/cli tree), completion offers exactly the words the
// flag's parser accepts; each word is accepted and becomes the value;
// help lists each word and no word that another flag of that name takes
// and this one refuses (ab --format original, offered and listed before,
// was refused by ab); a wrong word is refused before the command runs,
// with one line naming the flag and its words, exit 2.
func TestEnumFlagsCompleteTheirWords(t *testing.T) {
	// Beside the long parallel tests: completion and refusals in this
	// process, no repetition, no file.
	t.Parallel()
	app := newApp(io.Discard, io.Discard)
	sites := enumSites(app.Commands, nil)
	union := map[string][]string{} // every word some flag of the name takes
	commands := map[string]bool{}
	for _, s := range sites {
		union[s.flag] = append(union[s.flag], s.e.Words...)
		commands[s.path[0]+" --"+s.flag] = true
	}
	// The enum flags this test must find: the ones that were typed twice.
	for _, want := range []string{"run --format", "exec --format", "ab --format", "sweep --format", "show --format",
		"compare --format", "env --format", "import --format", "campaign --format", "compare --test",
		"ab --order", "sweep --order", "tune --thp", "port --mode", "exec --preset", "import --preset",
		"ab --preset", "verify --preset"} {
		if !commands[want] {
			t.Errorf("%s: not an enum flag", want)
		}
	}
	for _, s := range sites {
		name := strings.Join(s.path, " ") + " --" + s.flag
		got := complete(app, append(slices.Clone(s.path), "--"+s.flag, ""))
		if !slices.Equal(got, s.e.Words) || len(got) == 0 {
			t.Errorf("%s <Tab>: %q, the parser accepts %q", name, got, s.e.Words)
		}
		usage := regexp.MustCompile(`[a-z-]+`).FindAllString(s.f.Usage, -1)
		for _, w := range s.e.Words {
			if !slices.Contains(usage, w) {
				t.Errorf("%s: help %q does not list %s", name, s.f.Usage, w)
			}
		}
		for _, w := range union[s.flag] {
			if !slices.Contains(s.e.Words, w) && slices.Contains(usage, w) {
				t.Errorf("%s: help %q lists %s, which it refuses", name, s.f.Usage, w)
			}
		}
		for _, w := range append(slices.Clone(s.e.Words), slices.Collect(maps.Keys(s.e.Aliases))...) {
			// The flag as the command declares it (a fresh app: Set
			// keeps the value), read by the flag package.
			f := findFlag(commandAt(t, newApp(io.Discard, io.Discard), s.path), s.flag)
			set := flag.NewFlagSet(name, flag.ContinueOnError)
			set.SetOutput(io.Discard)
			if err := f.Apply(set); err != nil {
				t.Fatal(err)
			}
			if err := set.Parse([]string{"--" + s.flag, w}); err != nil {
				t.Errorf("%s %s: refused: %v", name, w, err)
			} else if v := set.Lookup(s.flag).Value.String(); v != w && v != s.e.Aliases[w] {
				t.Errorf("%s %s: value %q", name, w, v)
			}
		}
		r := runCLI(t, append(slices.Clone(s.path), "--"+s.flag, "nosuch")...)
		want := `contend: --` + s.flag + `: "nosuch" is not accepted; accepted: ` + strings.Join(s.e.Words, ", ") + "\n"
		if r.code != exitUsage || r.stderr != want || r.stdout != "" {
			t.Errorf("%s nosuch: exit %d, stderr %q, stdout %q; want exit 2 and %q", name, r.code, r.stderr, r.stdout, want)
		}
	}
}

// commandAt returns the command of app at path (run faultme).
func commandAt(t *testing.T, app *cli.App, path []string) *cli.Command {
	t.Helper()
	cs := app.Commands
	var c *cli.Command
	for _, n := range path {
		c = nil
		for _, x := range cs {
			if x.Name == n {
				c = x
			}
		}
		if c == nil {
			t.Fatalf("no command %q", path)
		}
		cs = c.Subcommands
	}
	return c
}

// TestCompleteWorkloadChoices: a workload parameter of a few words
// (faultme --thp, mutex --variant) completes, under every command that
// takes it, with the choices of that workload's parameter, which
// Workload.Resolve accepts; a wrong word is refused naming the flag.
func TestCompleteWorkloadChoices(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	n := 0
	for _, w := range workload.All() {
		for _, p := range w.Params {
			if len(p.Choices) == 0 {
				continue
			}
			n++
			for _, top := range []string{"run", "ab", "sweep", "verify"} {
				if got := complete(app, []string{top, w.Name, "--" + p.Name, ""}); !slices.Equal(got, p.Choices) {
					t.Errorf("%s %s --%s <Tab>: %q, want %q", top, w.Name, p.Name, got, p.Choices)
				}
			}
			// Resolve may refuse for another parameter (plugin needs
			// --so), never for this one.
			for _, c := range p.Choices {
				if _, err := w.Resolve(map[string]string{p.Name: c}); err != nil && strings.Contains(err.Error(), "--"+p.Name) {
					t.Errorf("%s --%s %s: %v", w.Name, p.Name, c, err)
				}
			}
			if _, err := w.Resolve(map[string]string{p.Name: "nosuch"}); err == nil || !strings.Contains(err.Error(), "--"+p.Name) {
				t.Errorf("%s --%s nosuch: %v, want refused naming the flag", w.Name, p.Name, err)
			}
			r := runCLI(t, "run", w.Name, "--"+p.Name, "nosuch")
			if r.code != exitUsage || !strings.HasPrefix(r.stderr, "contend: --"+p.Name+": ") || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("run %s --%s nosuch: exit %d, %q", w.Name, p.Name, r.code, r.stderr)
			}
		}
	}
	if n < 2 {
		t.Errorf("%d workload parameters with choices, want faultme --thp and mutex --variant at least", n)
	}
}

// TestCompleteWordsAreAccepted: the words completion offers for help,
// completion, --evidence and ab's --a/--b are what those take (issue 30:
// the help topics, --evidence values and ab --a/--b were not offered).
func TestCompleteWordsAreAccepted(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	help := complete(app, []string{"help", ""})
	for _, want := range []string{"evidence", "maxrss", "run", "faultme"} {
		if !slices.Contains(help, want) {
			t.Errorf("help <Tab>: %q lacks %s", help, want)
		}
	}
	for _, w := range help {
		if r := runCLI(t, "help", w); r.code != 0 || r.stdout == "" {
			t.Errorf("help %s: exit %d, %q", w, r.code, r.stderr)
		}
	}
	for _, sh := range complete(app, []string{"completion", ""}) {
		if r := runCLI(t, "completion", sh); r.code != 0 || !strings.Contains(r.stdout, "contend") {
			t.Errorf("completion %s: exit %d, %q", sh, r.code, r.stderr)
		}
	}
	if r := runCLI(t, "completion", "fish"); r.code != exitUsage || r.stderr != "contend: completion: which shell? accepted: bash, zsh\n" {
		t.Errorf("completion fish: exit %d, %q", r.code, r.stderr)
	}
	for _, words := range [][]string{
		{"run", "faultme", "--evidence", ""},
		{"run", "faultme", "--evidence", "lock,"},
		{"ab", "mutex", "--a-evidence", ""},
		{"ab", "exec", "--b-evidence", "perf,s"},
		{"exec", "--evidence", "default,"},
	} {
		got := complete(app, words)
		if len(got) < 2 {
			t.Errorf("%q: %q, want the collectors", words, got)
		}
		for _, w := range got {
			if _, err := evidence.ParseFlag("--evidence", w); err != nil {
				t.Errorf("%q offers %q: %v", words, w, err)
			}
		}
	}
	if got := complete(app, []string{"run", "faultme", "--evidence", "lock,"}); slices.Contains(got, "lock,lock") || !slices.Contains(got, "lock,perf") {
		t.Errorf("--evidence lock,<Tab>: %q, want the others after lock,", got)
	}
	for _, top := range []string{"ab faultme", "ab mutex"} {
		path := strings.Fields(top)
		flags := complete(app, append(slices.Clone(path), "--"))
		for _, want := range []string{"--a", "--b"} {
			if !slices.Contains(flags, want) {
				t.Errorf("%s --<Tab>: %q lacks %s", top, flags, want)
			}
		}
		w, _ := workload.Lookup(path[1])
		for _, cur := range []string{"", "--threads 4 --"} {
			got := complete(app, append(slices.Clone(path), "--a", cur))
			if len(got) != len(w.Params) {
				t.Errorf("%s --a %q<Tab>: %q, want the %d flags of %s", top, cur, got, len(w.Params), w.Name)
			}
			for _, g := range got {
				rest, ok := strings.CutPrefix(g, cur)
				if !ok || findFlag(commandAt(t, app, path), strings.TrimPrefix(rest, "--")) == nil {
					t.Errorf("%s --a %q<Tab> offers %q: not %q and a flag of %s", top, cur, g, cur, w.Name)
				}
			}
		}
	}
	if got := complete(app, []string{"compare", "--"}); !slices.Contains(got, "--a") || !slices.Contains(got, "--b") {
		t.Errorf("compare --<Tab>: %q lacks --a, --b", got)
	}
}
