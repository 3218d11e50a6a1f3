package workload

import "strings"

// WithPositional adds to given, the parameter texts given as flags, the
// positional arguments args, one per name of w.Positional; a count that
// does not match, positional arguments w takes none of, and a parameter
// given both ways are usage errors.
func (w *Workload) WithPositional(given map[string]string, args []string) (map[string]string, error) {
	if len(args) == 0 {
		return given, nil
	}
	if len(w.Positional) == 0 {
		return nil, Usagef("%s takes no positional arguments (got %q); give parameters as flags, see 'contend help %s'", w.Name, strings.Join(args, " "), w.Name)
	}
	if len(args) != len(w.Positional) {
		return nil, Usagef("%s takes %d positional arguments <%s>, got %d; see 'contend help %s'", w.Name, len(w.Positional), strings.Join(w.Positional, "> <"), len(args), w.Name)
	}
	for i, name := range w.Positional {
		if _, dup := given[name]; dup {
			return nil, Usagef("--%s given both as a flag and as positional argument %d", name, i+1)
		}
		given[name] = args[i]
	}
	return given, nil
}
