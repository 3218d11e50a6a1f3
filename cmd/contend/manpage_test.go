package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"contend/cmd/contend/internal/manpage"
	"contend/internal/workload"
)

// TestManPageNamesEverything: contend.1, written from the command
// definitions, has a subsection for every command that is not hidden
// (subcommands included) and names every visible flag of each, and every
// workload with every parameter.
func TestManPageNamesEverything(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	p := manpage.Page{Section: "1", Date: "2026-12-01", Version: "test"}
	for _, s := range manPageSections() {
		p.Extra = append(p.Extra, manpage.Section{Title: s[0], Text: s[1]})
	}
	var b strings.Builder
	if err := manpage.Write(&b, manApp(app), p); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	roff := func(s string) string { return strings.ReplaceAll(s, "-", `\-`) }
	var check func(c *cli.Command, parent string)
	commands := 0
	check = func(c *cli.Command, parent string) {
		if c.Hidden {
			return
		}
		commands++
		full := parent + " " + c.Name
		if !strings.Contains(page, ".SS \""+roff(full)) {
			t.Errorf("no subsection for %q", full)
		}
		for _, f := range c.Flags {
			if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() || f.Names()[0] == "help" {
				continue
			}
			for _, n := range f.Names() {
				want := `\-\-` + roff(n)
				if len(n) == 1 {
					want = `\-` + n
				}
				if !strings.Contains(page, `\fB`+want+`\fR`) {
					t.Errorf("%s: flag %s not named", full, want)
				}
			}
		}
		for _, s := range c.Subcommands {
			check(s, full)
		}
	}
	for _, c := range app.Commands {
		check(c, "contend")
	}
	if commands < len(app.Commands)-1 {
		t.Errorf("only %d commands checked", commands)
	}
	for _, w := range workload.All() {
		for _, prm := range w.Params {
			if !strings.Contains(page, `\-\-`+roff(prm.Name)+" (default") {
				t.Errorf("workload %s: parameter --%s not named", w.Name, prm.Name)
			}
		}
	}
	for _, sec := range []string{".SH NAME", ".SH SYNOPSIS", ".SH COMMANDS", `.SH "WORKLOADS"`, `.SH "ENVIRONMENT"`, `.SH "EXIT STATUS"`} {
		if !strings.Contains(page, sec) {
			t.Errorf("no %s", sec)
		}
	}
	// Every exit status of Main, the lock's 3 among them.
	for _, code := range []int{exitOK, exitFailure, exitUsage, exitBusy, exitInterrupted} {
		if !regexp.MustCompile(fmt.Sprintf(`\b%d (on|when|for)\b`, code)).MatchString(page) {
			t.Errorf("EXIT STATUS lacks %d", code)
		}
	}
	// Every CONTEND_ variable the sources read (the tests' own aside: in
	// _test.go files, the packages the tests share, CONTEND_TEST_*).
	vars := map[string]bool{}
	literal := regexp.MustCompile(`"(CONTEND_[A-Z_]+)"`)
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			strings.Contains(path, "internal/testsize/") || strings.Contains(path, "internal/testutil/") {
			return err
		}
		b, err := os.ReadFile(path)
		for _, m := range literal.FindAllSubmatch(b, -1) {
			if v := string(m[1]); !strings.HasPrefix(v, "CONTEND_TEST_") {
				vars[v] = true
			}
		}
		return err
	})
	if err != nil || len(vars) < 5 {
		t.Fatalf("the sources' variables: %v, %v", vars, err)
	}
	for v := range vars {
		if !strings.Contains(page, v) {
			t.Errorf("ENVIRONMENT does not name %s", v)
		}
	}
}
