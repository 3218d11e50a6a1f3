package lkmlreport

import (
	"regexp"
	"strings"
	"testing"
)

// The grammar of regzbot's commands, as regzbot reads a mail: read off
// kernelci/regzbot at commit d0a9451e0020f25c2158fa57c2762febc9b33d0f
// (2026-05-26), regzbot/_rbcmd.py (process_activity's sections, _parse's
// commands, RbCmdStackNew._add_command's introduced), regzbot/__init__.py
// (__introduced_precheck, _gettree_n_branch) and docs/reference.md. This
// is a reading of it written for the test, not regzbot's code:
//
//  1. A section starts at a line that begins with "#regzbot" (any case)
//     right after an empty line (or at the start of the mail) and ends
//     before the first empty line after it (or at the end of the mail).
//  2. In a section, a command starts at "#regzbot" and white space, at the
//     section's start, after a newline, or after ';' and white space. It
//     ends at the next white space (after an optional ';') that is followed
//     by "#regzbot", or at the section's end; "-\n" is joined to "-" and
//     other line breaks become spaces.
//  3. A command is a word of letters, digits, '_', '-' and '^', an optional
//     ':', white space, and its parameters (the rest).
//  4. introduced: its first parameter word is the commit (at least 8 hex
//     digits) or the range A..B of tags or commit ids; regzbot reads each
//     further word as a pointer to the report (^, /, ~, a URL). It must be
//     the first command of the mail. title takes the rest of its line.

// regzbotCommand is one command as regzbot reads it.
type regzbotCommand struct{ cmd, params string }

var (
	reCmdStart = regexp.MustCompile(`(?i)(^|\n|;\s+)#regzbot\s+`)
	reCmdEnd   = regexp.MustCompile(`(?i);?\s+#regzbot`)
	reCmdSplit = regexp.MustCompile(`^([\^\w-]+)(:?\n?\s+)?(.*)$`)
)

// regzbotCommands returns the commands of a mail's body, section by
// section, as regzbot would read them.
func regzbotCommands(t *testing.T, body string) []regzbotCommand {
	t.Helper()
	lines := strings.Split(body, "\n")
	var out []regzbotCommand
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(strings.ToLower(lines[i]), "#regzbot") || (i > 0 && lines[i-1] != "") {
			continue
		}
		j := i
		for j < len(lines) && lines[j] != "" {
			j++
		}
		sec := strings.Join(lines[i:j], "\n")
		starts := reCmdStart.FindAllStringIndex(sec, -1)
		for k, st := range starts {
			rest := sec[st[1]:]
			end := len(rest)
			if e := reCmdEnd.FindStringIndex(rest); e != nil {
				end = e[0]
			}
			if k+1 < len(starts) && starts[k+1][0]-st[1] < end {
				end = starts[k+1][0] - st[1]
			}
			text := strings.ReplaceAll(rest[:end], "-\n", "-")
			text = regexp.MustCompile(`\s?\n`).ReplaceAllString(text, " ")
			m := reCmdSplit.FindStringSubmatch(strings.TrimRight(text, "; \t"))
			if m == nil {
				t.Errorf("regzbot cannot split %q into a command and its parameters", text)
				continue
			}
			out = append(out, regzbotCommand{strings.ToLower(m[1]), m[3]})
		}
		i = j
	}
	return out
}

// checkRegzbot checks a draft's commands: introduced first, with one
// word, introduced as wanted and valid as regzbot looks it up; then a
// title of one line; nothing else.
func checkRegzbot(t *testing.T, cmds []regzbotCommand, introduced string) {
	t.Helper()
	if len(cmds) != 2 || cmds[0].cmd != "introduced" || cmds[1].cmd != "title" {
		t.Fatalf("regzbot reads %+v: want introduced, then title", cmds)
	}
	words := strings.Fields(cmds[0].params)
	if len(words) != 1 || words[0] != introduced {
		t.Errorf("introduced %q: want the one word %q (a further word would point regzbot elsewhere)", cmds[0].params, introduced)
	}
	if err := CheckIntroduced(words[0]); err != nil {
		t.Errorf("introduced %q: %v", words[0], err)
	}
	if a, b, ok := strings.Cut(words[0], ".."); ok && (!ref(a) || !ref(b)) {
		t.Errorf("range %q: an end is neither a tag nor a commit id", words[0])
	}
	if strings.TrimSpace(cmds[1].params) == "" {
		t.Errorf("empty title")
	}
}

// TestRegzbotGrammarReader: the test's reader of regzbot's grammar reads
// regzbot's own examples (docs/reference.md, the comment of _parse) as
// regzbot does: one command a line or several on one line after "; ",
// a command that breaks over lines, sections after empty lines only.
func TestRegzbotGrammarReader(t *testing.T) {
	for _, c := range []struct {
		body string
		want []regzbotCommand
	}{
		{"Hi\n\n#regzbot introduced: v5.13..v5.14\n", []regzbotCommand{{"introduced", "v5.13..v5.14"}}},
		{"#regzbot introduced: 1f2e3d4c5d\n#regzbot title: foo bar\n\nthanks", []regzbotCommand{{"introduced", "1f2e3d4c5d"}, {"title", "foo bar"}}},
		{"#regzbot ignore-activity; #regzbot title: baz;", []regzbotCommand{{"ignore-activity", ""}, {"title", "baz"}}},
		{"#regzbot  introduced\nfoo bar \nand more", []regzbotCommand{{"introduced", "foo bar and more"}}},
		{"text\n#regzbot introduced: v5.13..v5.14\n", nil}, // no empty line before
	} {
		got := regzbotCommands(t, c.body)
		if len(got) != len(c.want) {
			t.Errorf("%q: %+v, want %+v", c.body, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q: command %d %+v, want %+v", c.body, i, got[i], c.want[i])
			}
		}
	}
}

// TestCheckIntroduced: what --introduced accepts is what regzbot looks
// up: a commit id of 8 or more hex digits, a range of tags or ids.
func TestCheckIntroduced(t *testing.T) {
	for _, ok := range []string{"1f2e3d4c", "1f2e3d4c5b6a", "v5.13..v5.14", "v5.14-rc1..v5.14-rc2", "v5.13..1f2e3d4c5d", "next-20211006..next-20211008", "v5.13.8..v5.13.10"} {
		if err := CheckIntroduced(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "1f2e3d4", "v5.13", "v5.13..", "v5.13..v5.14 ^", "HEAD~3..HEAD", "1f2e3d4c\n#regzbot resolve: x", "6.1.0..6.2.0"} {
		err := CheckIntroduced(bad)
		if err == nil || !strings.HasPrefix(err.Error(), "--introduced: ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want a one-line refusal naming --introduced", bad, err)
		}
	}
}
