package run

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"regexp"
	"strings"

	"contend/internal/evidence"
	"contend/internal/results"
	"contend/internal/safefile"
)

// foldedStacks sums the folded call stacks of the profile collector per
// configuration over a run's successful repetitions (warm-ups left out,
// as the statistics leave them out): what a flame graph of each side is
// drawn from.
type foldedStacks map[int]map[string]float64

// take takes the stacks the collectors of s kept for the repetition
// that just ended (always, so that none is left for the next), and adds
// them to configuration c's when rep counts.
func (all foldedStacks) take(s *evidence.Set, c int, rep results.Rep) {
	st := s.TakeFolded()
	if len(st) == 0 || rep.Warmup || rep.Status != results.StatusOK {
		return
	}
	to := all[c]
	if to == nil {
		to = map[string]float64{}
		all[c] = to
	}
	for k, v := range st {
		to[k] += v
	}
}

// A sideWord is a configuration name that can stand in a file name as
// it is (ab's a and b, verify's sides).
var sideWord = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// FoldedPath is the folded-stack file of configuration c of f, whose
// result file is out: NAME.SIDE.folded beside it (NAME is out without
// its .jsonl or .json), SIDE the configuration's name (ab's a, b), or
// configN (from 1) where the name cannot stand in a file name; a file
// of one unnamed configuration has NAME.folded.
func FoldedPath(out string, f *results.File, c int) string {
	base := out
	for _, ext := range []string{".jsonl", ".json"} {
		if b, ok := strings.CutSuffix(base, ext); ok {
			base = b
			break
		}
	}
	name := ""
	if c >= 0 && c < len(f.Configs) {
		name = f.Configs[c].Name
	}
	switch {
	case len(f.Configs) <= 1 && name == "":
		return base + ".folded"
	case sideWord.MatchString(name):
		return base + "." + name + ".folded"
	}
	return fmt.Sprintf("%s.config%d.folded", base, c+1)
}

// write writes each configuration's stacks to its FoldedPath beside the
// result file out (through safefile.WriteFile: whole or not at all, a
// link there replaced, never followed). In append mode the stacks of
// the file's earlier runs, read from an existing folded file, are added.
// It returns the paths written, in the order of the configurations.
func (all foldedStacks) write(out string, f *results.File, mode results.Mode) ([]string, error) {
	var paths []string
	var errs []error
	for c := range f.Configs {
		if len(all[c]) == 0 {
			continue
		}
		st := maps.Clone(all[c])
		path := FoldedPath(out, f, c)
		if mode == results.ModeAppend {
			old, err := safefile.ReadFile(path, safefile.Self)
			switch {
			case errors.Is(err, fs.ErrNotExist):
			case err != nil:
				errs = append(errs, fmt.Errorf("cannot add to the folded stacks in %s: %v", path, err))
				continue
			default:
				prev, err := evidence.ReadFolded(bytes.NewReader(old))
				if err != nil {
					errs = append(errs, fmt.Errorf("cannot add to the folded stacks in %s: %v (move it away to start a new one)", path, err))
					continue
				}
				for k, v := range prev {
					st[k] += v
				}
			}
		}
		var b bytes.Buffer
		evidence.WriteFolded(&b, st)
		if err := safefile.WriteFile(path, b.Bytes(), 0o644); err != nil {
			errs = append(errs, err)
			continue
		}
		paths = append(paths, filepath.Clean(path))
	}
	return paths, errors.Join(errs...)
}
