package tune

import (
	"fmt"
	"io"
)

// Run is 'contend tune': with dryRun it writes on w what would change;
// else it applies opt under root (the previous values saved in
// statePath), writes each setting's result and then where the previous
// values are, or that nothing changed.
func Run(w io.Writer, root, statePath string, opt Options, dryRun bool) error {
	if dryRun {
		for _, r := range Plan(root, opt) {
			fmt.Fprintln(w, r)
		}
		return nil
	}
	rs, err := Apply(root, statePath, opt)
	if err != nil {
		return err
	}
	set := false
	for _, r := range rs {
		fmt.Fprintln(w, r)
		set = set || r.Status == StatusSet
	}
	if st, _ := LoadState(statePath); st != nil {
		fmt.Fprintf(w, "previous values saved in %s: 'contend tune --reset' puts them back\n", statePath)
	} else if !set {
		fmt.Fprintln(w, "nothing changed")
	}
	return nil
}

// RunReset is 'contend tune --reset': the values saved in statePath put
// back under root, each result written on w.
func RunReset(w io.Writer, root, statePath string) error {
	rs, err := Reset(root, statePath)
	for _, r := range rs {
		fmt.Fprintln(w, r)
	}
	return err
}
