package lkmlreport

import (
	"fmt"
	"regexp"
	"strings"

	"contend/internal/esc"
)

// The regzbot commands a draft carries, in regzbot's own syntax
// (kernelci/regzbot, docs/reference.md and regzbot/_rbcmd.py): a section
// of its own, after an empty line and before one (or the end), each line
// "#regzbot COMMAND: PARAMETERS", introduced first.
//
// introduced takes one word: a commit id (at least 8 hex digits) or a
// range A..B of tags or commit ids; regzbot reads every further word as
// a pointer to the report (^, a URL), so none is written. title takes the
// rest of its line.

// reCommit is a commit id regzbot looks up: 8 to 40 hex digits.
var reCommit = regexp.MustCompile(`^[0-9a-fA-F]{8,40}$`)

// reTag is a tag of mainline, stable or linux-next: v6.12, v6.12-rc1,
// v6.6.3, next-20261201.
var reTag = regexp.MustCompile(`^(v\d+\.\d+(\.\d+)?(-rc\d+)?|next-\d{8})$`)

// ref reports whether s names a commit for regzbot: a commit id or a tag.
func ref(s string) bool { return reCommit.MatchString(s) || reTag.MatchString(s) }

// CheckIntroduced checks s as the parameter of '#regzbot introduced:': a
// commit id of 8 to 40 hex digits, or a range A..B of commit ids or
// tags (v6.12-rc1, next-20261201). The error names --introduced.
func CheckIntroduced(s string) error {
	if err := esc.Check("--introduced", s); err != nil {
		return err
	}
	ok := reCommit.MatchString(s)
	if a, b, isRange := strings.Cut(s, ".."); isRange {
		ok = ref(a) && ref(b)
	}
	if !ok {
		return fmt.Errorf("--introduced: %q is not accepted; accepted: a commit id (8 to 40 hex digits) or a range GOOD..BAD of commit ids or tags (v6.12..v6.13-rc1, next-20261201..1f2e3d4c5b6a), as regzbot reads them", s)
	}
	return nil
}

// title makes s a regzbot title: one line, escaped, without a '#' (a
// "#regzbot" in it would start a command) or a ';' (regzbot's separator
// of commands on one line).
func title(s string) string {
	s = esc.Line(s)
	s = strings.NewReplacer("#", "", ";", ",").Replace(s)
	return strings.TrimSpace(s)
}

// regzbotLines returns the regzbot section: introduced, then title (when
// one is given).
func regzbotLines(introduced, ttl string) []string {
	out := []string{"#regzbot introduced: " + introduced}
	if t := title(ttl); t != "" {
		out = append(out, "#regzbot title: "+t)
	}
	return out
}

// reTagged finds a regzbot tag anywhere in a line.
var reTagged = regexp.MustCompile(`(?i)#(regzbot|forregzbot)`)

// untag removes the '#' of every regzbot tag in line: a string from
// the results (a label, a commit's subject) cannot become a command.
func untag(line string) string {
	return reTagged.ReplaceAllString(line, "$1")
}
