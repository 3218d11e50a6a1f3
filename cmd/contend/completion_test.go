package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	} {
		cmd := exec.Command(bash, append([]string{script}, c.words...)...)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
		cmd.Stderr = io.Discard
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%q: %v", c.words, err)
		}
		got := strings.Fields(string(out))
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
