package results

import "strings"

// AKind is a result file's kind with its article: "a run", "an import",
// "an exec".
func AKind(kind string) string {
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}
