package textfmt

import "strings"

// Cut returns s cut to its first n bytes (a commit's short id), s itself
// when it is no longer.
func Cut(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Commit returns a commit's id as contend prints it: its first 12 hex
// digits (git's --abbrev=12, as the kernel's Fixes: tags name commits).
func Commit(id string) string { return Cut(id, 12) }

// LastLine returns the last line of s once the white space around s is
// trimmed (the line of a command's error output that says what failed).
func LastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
