// Package esc keeps user strings from acting on a terminal or a file
// format: Line and Text print control characters escaped, Check refuses
// them in a string that must go somewhere verbatim (a systemd unit).
//
// A control character is a C0 control (U+0000-U+001F), DEL, a C1
// control (U+0080-U+009F: U+009B is a one-byte CSI on some terminals),
// a Unicode line or paragraph separator, a bidirectional override or
// isolate (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C: text
// that reads in another order than it is), or a byte that is not UTF-8.
package esc

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// IsControl says whether r is a control character as this package
// defines it.
func IsControl(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x2028, r == 0x2029, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// clean says whether s needs no escaping (keep: the controls kept as
// they are).
func clean(s string, keep func(rune) bool) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			goto slow
		}
	}
	return true
slow:
	for _, r := range s {
		if r == utf8.RuneError || IsControl(r) && !keep(r) {
			return false
		}
	}
	return utf8.ValidString(s)
}

// Line returns s for one line of a terminal or a table: every control
// character escaped as in Go source (\n, \t, \r, \x1b, \u009b), a
// backslash before one doubled only when something was escaped (a
// Windows path prints as it is), a byte that is not UTF-8 as \xNN.
func Line(s string) string { return escape(s, func(rune) bool { return false }) }

// Text returns s for a terminal, many lines: newlines and tabs kept,
// every other control character escaped as Line does (a carriage return
// too: it would overwrite the line it ends).
func Text(s string) string {
	return escape(s, func(r rune) bool { return r == '\n' || r == '\t' })
}

func escape(s string, keep func(rune) bool) string {
	if clean(s, keep) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case !IsControl(r) || keep(r):
			b.WriteString(s[i : i+n])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += n
	}
	return b.String()
}

// Find returns the first control character of s (a byte that is not
// UTF-8 as utf8.RuneError) and whether there is one.
func Find(s string) (rune, bool) {
	if clean(s, func(rune) bool { return false }) {
		return 0, false
	}
	for _, r := range s {
		if r == utf8.RuneError || IsControl(r) {
			return r, true
		}
	}
	return utf8.RuneError, true
}

// Check refuses s when it holds a control character: the error names
// what (a flag, an argument), the character and the string, escaped.
func Check(what, s string) error {
	r, bad := Find(s)
	if !bad {
		return nil
	}
	c := fmt.Sprintf("U+%04X", r)
	if r == utf8.RuneError {
		c = "a byte that is not UTF-8"
	}
	return fmt.Errorf("%s: \"%s\" is not accepted: it holds a control character (%s); accepted: printable text", what, Line(s), c)
}

// ShellQuote returns s as one word for sh: as it is when it holds only
// letters, digits and -_./=:,+@%, else in single quotes (a quote in it
// closed, escaped with a backslash and reopened). The commands contend
// runs through sh (a campaign's reboot) and the ones it records for a
// person to run again use it.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
