// Package plothelper checks what 'contend plot' is asked to draw and runs
// the contend-plot helper, which draws it: cmd/contend never links
// internal/plot or gonum/plot (their package init would cost every
// repetition child about 1 ms).
package plothelper

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"contend/internal/fleet"
	"contend/internal/results"
	"contend/internal/workload"
)

// Name is the program that draws; see Path.
const Name = "contend-plot"

// CheckImageName refuses an image file name (of flag) that does not end
// in .svg or .png.
func CheckImageName(flag, name string) error {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".svg", ".png":
		return nil
	}
	return workload.Usagef("%s: %q has an unknown image format %q; accepted: .svg, .png", flag, name, filepath.Ext(name))
}

// CheckOut refuses a plot's --out that is missing, not an .svg or
// .png, a directory, or in no directory.
func CheckOut(out string) error {
	if strings.TrimSpace(out) == "" {
		return workload.Usagef("plot: --out is required: an image file ending in .svg or .png")
	}
	if err := CheckImageName("--out", out); err != nil {
		return err
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return workload.Usagef("--out: %s is a directory; accepted: an image file ending in .svg or .png", out)
	}
	if st, err := os.Stat(filepath.Dir(out)); err != nil || !st.IsDir() {
		return workload.Usagef("--out: %s: no directory %s to write it in; accepted: an image file in an existing directory", out, filepath.Dir(out))
	}
	return nil
}

// CheckFiles refuses result files that cannot be read, that lack
// metric (when given), or that mix sweeps and plain result files.
func CheckFiles(paths []string, metric string) error {
	sweeps := 0
	for _, p := range paths {
		f, err := results.Read(p, results.WithoutOutputs)
		if err != nil {
			return &workload.UsageError{Msg: err.Error()}
		}
		if f.Kind == "sweep" {
			sweeps++
		}
		if _, ok := f.Metric(metric); metric != "" && !ok {
			var names []string
			for _, m := range f.Metrics {
				names = append(names, m.Name)
			}
			return workload.Usagef("--metric: %s has no metric %q; it has: %s", p, metric, strings.Join(names, ", "))
		}
	}
	if sweeps != 0 && sweeps != len(paths) {
		return workload.Usagef("plot: cannot mix sweep files and plain result files in one plot")
	}
	return nil
}

// Failed is the exit status of a helper that failed after saying why.
type Failed struct{ Code int }

func (f *Failed) Error() string { return fmt.Sprintf("%s exited with status %d", Name, f.Code) }

// Run runs contend-plot with args, its output on stdout and stderr; a
// helper that fails with a status has said why (a *Failed). what names
// the command in the error of a helper that cannot run.
func Run(stdout, stderr io.Writer, what string, args []string) error {
	helper, err := Path()
	if err != nil {
		return err
	}
	cmd := exec.Command(helper, args...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 {
			return &Failed{ee.ExitCode()}
		}
		return fmt.Errorf("%s: running %s: %v", what, helper, err)
	}
	return nil
}

// Path finds contend-plot: $CONTEND_PLOT_HELPER, else next to this
// executable, else on PATH.
func Path() (string, error) {
	if p := os.Getenv("CONTEND_PLOT_HELPER"); p != "" {
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), Name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(Name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("plot: the %s helper is not installed next to contend or on PATH; build it with 'make build' or 'go build -o bin/ ./cmd/contend-plot'", Name)
}

// Fleet writes the fleet report fr as JSON to a temporary file and has
// the helper draw it to out (contend-plot --fleet).
func Fleet(stdout, stderr io.Writer, fr *fleet.Report, out string) error {
	tmp, err := os.CreateTemp("", "contend-fleet-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	err = fr.Write(tmp, "json")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return Run(stdout, stderr, "plot", []string{"--out", out, "--fleet", tmp.Name()})
}
