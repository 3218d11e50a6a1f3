package value

import (
	"fmt"
	"slices"
	"strings"
)

// Enum is one word of a fixed set, the value of a flag such as --format
// or --order: the one definition of the words that the flag's parse, its
// error and shell completion all read. W is the value (preset: the
// default; "" for none, which help then shows as no default). Words are
// the accepted words in the order errors and completion list them.
// Aliases are other spellings accepted for a word (compare's --test takes
// u for mannwhitney), never offered by completion. Refused are words that
// are known but not accepted under this flag, with the reason, which the
// error gives (exec's --preset time: an import-only preset).
type Enum struct {
	W       string
	Words   []string
	Aliases map[string]string
	Refused map[string]string
}

// Set accepts s when it is one of Words or an alias of one (W becomes the
// word), else says which words are accepted.
func (v *Enum) Set(s string) error {
	if slices.Contains(v.Words, s) {
		v.W = s
		return nil
	}
	if w, ok := v.Aliases[s]; ok {
		v.W = w
		return nil
	}
	if why, ok := v.Refused[s]; ok {
		return fmt.Errorf("%q is not accepted: %s; accepted: %s", s, why, v.Accepted())
	}
	return fmt.Errorf("%q is not accepted; accepted: %s", s, v.Accepted())
}

// Accepted lists Words as errors say them: "text, json, original".
func (v *Enum) Accepted() string { return strings.Join(v.Words, ", ") }

// Choices returns the words a shell completes the flag's value with:
// Words, without the aliases.
func (v *Enum) Choices() []string { return slices.Clone(v.Words) }

func (v *Enum) String() string {
	if v == nil {
		return ""
	}
	return v.W
}

// Get returns W (flag.Getter).
func (v *Enum) Get() any { return v.W }
