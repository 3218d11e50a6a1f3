package run

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"contend"
	"contend/internal/esc"
	"contend/internal/external"
	"contend/internal/results"
	"contend/internal/workload"
)

// NewFile starts the result file of configs of w (their names), of a
// command of kind; Do adds the environment and the start time.
func NewFile(kind string, w *workload.Workload, configs []workload.Values, names []string, label string) *results.File {
	f := &results.File{
		Format:   results.FormatName,
		Version:  results.FormatVersion,
		Contend:  contend.FullVersion(),
		Native:   contend.NativeHash(),
		Kind:     kind,
		Command:  os.Args,
		Workload: w.Name,
		Label:    label,
		Start:    time.Now(),
		Primary:  w.Primary,
	}
	ms := append(append([]workload.Metric{}, w.Metrics...), workload.ProcessMetrics...)
	if w.ForValues != nil && len(configs) > 0 {
		// Checked by resolve; the first configuration decides.
		if extra, primary, err := w.ForValues(configs[0]); err == nil {
			ms = append(ms, extra...)
			if primary != "" {
				f.Primary = primary
			}
		}
	}
	for _, m := range ms {
		f.Metrics = append(f.Metrics, m.Result())
	}
	for i, v := range configs {
		f.Configs = append(f.Configs, results.Config{Name: names[i], Params: paramList(w, v)})
	}
	return f
}

func paramList(w *workload.Workload, v workload.Values) []results.Param {
	var ps []results.Param
	for _, p := range w.Params {
		ps = append(ps, results.Param{Name: p.Name, Value: v[p.Name], Display: p.Display(v[p.Name]), Unit: p.Unit})
	}
	return ps
}

// ExternalFile starts a result file of external programs (workload
// name) whose metrics are the extracted ones (specs) and, unless kind is
// import, the process metrics.
func ExternalFile(kind, name string, specs []external.Spec, primary, label string) *results.File {
	f := &results.File{
		Format:   results.FormatName,
		Version:  results.FormatVersion,
		Contend:  contend.FullVersion(),
		Native:   contend.NativeHash(),
		Kind:     kind,
		Command:  os.Args,
		Workload: name,
		Label:    label,
		Start:    time.Now(),
		Primary:  primary,
	}
	for _, s := range specs {
		f.Metrics = append(f.Metrics, s.Metric())
	}
	if kind != "import" {
		for _, m := range workload.ProcessMetrics {
			f.Metrics = append(f.Metrics, m.Result())
		}
	}
	return f
}

// ProgramConfig describes an external program (its arguments, or
// with shell its script) run as configuration name.
func ProgramConfig(name string, args []string, shell bool) results.Config {
	cfg := results.Config{Name: name, Params: []results.Param{{Name: "program", Value: args[0]}}}
	if shell {
		cfg.Params = []results.Param{{Name: "shell", Value: strings.Join(args, " ")}}
	} else if len(args) > 1 {
		cfg.Params = append(cfg.Params, results.Param{Name: "args", Value: shellJoin(args[1:])})
	}
	if wd, err := os.Getwd(); err == nil {
		cfg.Env = map[string]string{"cwd": wd}
	}
	return cfg
}

// shellJoin is args as one sh command line (esc.ShellQuote each).
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = esc.ShellQuote(a)
	}
	return strings.Join(q, " ")
}

// VerifyFile is the result file of verify: the workload's configuration
// "contend" (values v) and the program's, "original" (args), with the
// metrics read from its output.
func VerifyFile(w *workload.Workload, v workload.Values, warns []string, specs []external.Spec, args []string, label string) *results.File {
	f := NewFile("verify", w, []workload.Values{v}, []string{"contend"}, label)
	f.Warnings = warns
	for _, s := range specs {
		if _, ok := f.Metric(s.Name); !ok {
			f.Metrics = append(f.Metrics, s.Metric())
		}
	}
	f.Configs = append(f.Configs, ProgramConfig("original", args, false))
	return f
}

// OutMode returns what --append (app) and --replace (repl) say to do
// with an existing --out file out; its errors are usage errors. An out
// that is a directory is refused here, for every mode: it is neither a
// new file nor a result file.
func OutMode(out string, app, repl bool) (results.Mode, error) {
	if out != "" {
		if st, err := os.Stat(out); err == nil && st.IsDir() {
			return results.ModeNew, workload.Usagef("--out: %s is a directory; accepted: a file path such as %s", out, filepath.Join(out, "results.jsonl"))
		}
	}
	switch {
	case app && repl:
		return results.ModeNew, workload.Usagef("--append and --replace exclude each other")
	case app && out == "":
		return results.ModeNew, workload.Usagef("--append needs --out FILE: the file to add to")
	case repl && out == "":
		return results.ModeNew, workload.Usagef("--replace needs --out FILE: the file to overwrite")
	case app:
		return results.ModeAppend, nil
	case repl:
		return results.ModeReplace, nil
	}
	return results.ModeNew, nil
}
