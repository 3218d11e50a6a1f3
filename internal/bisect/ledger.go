package bisect

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"contend/internal/jsonl"
	"contend/internal/lock"
	"contend/internal/safefile"
)

// The files of a search's directory.
const (
	PlanFile   = "bisect.json"  // the plan: range, build, measurement, options
	LedgerFile = "ledger.jsonl" // the events, one a line, append-only
	WorkDir    = "work"         // the worktrees of the commits being measured
	RunsDir    = "runs"         // the measurements' result files
	LogsDir    = "logs"         // the builds' output
)

// Plan is what a search was started with: enough to resume it.
type Plan struct {
	Format  string   `json:"format"` // "contend-bisect"
	Repo    string   `json:"repo"`
	Good    string   `json:"good"` // as given
	Bad     string   `json:"bad"`
	Commits []Commit `json:"commits"`
	Build   string   `json:"build"`
	Measure []string `json:"measure"`
	Metric  string   `json:"metric,omitempty"`
	// Contend runs the measurement: a path relative to the worktree
	// (a contend the build made) or absolute; "" the contend that runs
	// the search.
	Contend string      `json:"contend,omitempty"`
	Options PlanOptions `json:"options"`
	Created time.Time   `json:"created"`
	// VM, when set, makes it a kernel search: each repetition is a boot
	// of the kernel the build names (VM, vmprober.go).
	VM *VMPlan `json:"vm,omitempty"`
	// Kernel, when set, builds each commit's kernel with internal/kbuild
	// from Repo (--kernel-tree) instead of Build.
	Kernel *KernelPlan `json:"kernel_build,omitempty"`
}

// PlanOptions are the Options a plan keeps.
type PlanOptions struct {
	Runs         int           `json:"runs"`
	CalibrateMin int           `json:"calibrate_min"`
	CalibrateMax int           `json:"calibrate_max"`
	Alpha        float64       `json:"alpha"`
	Confidence   float64       `json:"confidence"`
	BudgetRuns   int           `json:"budget_runs,omitempty"`
	BudgetTime   time.Duration `json:"budget_time,omitempty"`
	VerifyRuns   int           `json:"verify_runs"`
	Prior        []float64     `json:"prior,omitempty"`
}

// Options returns the search options of the plan.
func (o PlanOptions) Options() Options {
	return Options{Runs: o.Runs, CalibrateMin: o.CalibrateMin, CalibrateMax: o.CalibrateMax, Alpha: o.Alpha,
		Confidence: o.Confidence, BudgetRuns: o.BudgetRuns, BudgetTime: o.BudgetTime, VerifyRuns: o.VerifyRuns, Prior: o.Prior}
}

// PlanOptionsOf returns what a plan keeps of o (filled with defaults).
func PlanOptionsOf(o Options) PlanOptions {
	o.fill()
	return PlanOptions{Runs: o.Runs, CalibrateMin: o.CalibrateMin, CalibrateMax: o.CalibrateMax, Alpha: o.Alpha,
		Confidence: o.Confidence, BudgetRuns: o.BudgetRuns, BudgetTime: o.BudgetTime, VerifyRuns: o.VerifyRuns, Prior: o.Prior}
}

// PlanFormat names plan files.
const PlanFormat = "contend-bisect"

// Create makes the directory of a new search (refused when it holds a
// plan already: resume it) and writes its plan, whole or not at all.
func Create(dir string, p *Plan) error {
	if err := safefile.Dir(dir, 0o755, os.Getuid()); err != nil {
		return err
	}
	if _, err := os.Lstat(filepath.Join(dir, PlanFile)); err == nil {
		return fmt.Errorf("%s holds a search already: see 'contend bisect status %s', continue it with 'contend bisect resume %s', or choose another --dir", dir, dir, dir)
	}
	for _, d := range []string{WorkDir, RunsDir, LogsDir} {
		if err := safefile.Dir(filepath.Join(dir, d), 0o755, os.Getuid()); err != nil {
			return err
		}
	}
	p.Format = PlanFormat
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteFile(filepath.Join(dir, PlanFile), append(b, '\n'), 0o644)
}

// Open reads the plan and the ledger of the search in dir.
func Open(dir string) (*Plan, []Event, error) {
	if err := safefile.CheckDir(dir, os.Getuid()); err != nil {
		return nil, nil, err
	}
	b, err := safefile.ReadFile(filepath.Join(dir, PlanFile), safefile.Self)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("%s holds no search (no %s): start one with 'contend bisect --dir %s ...'", dir, PlanFile, dir)
	}
	if err != nil {
		return nil, nil, err
	}
	var p Plan
	if err := json.Unmarshal(b, &p); err != nil || p.Format != PlanFormat {
		return nil, nil, fmt.Errorf("%s is not a plan of contend bisect", filepath.Join(dir, PlanFile))
	}
	if err := p.check(); err != nil {
		return nil, nil, fmt.Errorf("the plan %s is damaged: %v", filepath.Join(dir, PlanFile), err)
	}
	evs, err := ReadLedger(dir)
	if err != nil {
		return nil, nil, err
	}
	return &p, evs, nil
}

// check refuses a plan that no search could have written.
func (p *Plan) check() error {
	if len(p.Commits) < 3 {
		return fmt.Errorf("it names %d commits; a search has the good end, a commit and the bad end at least", len(p.Commits))
	}
	for i, c := range p.Commits {
		if c.Hash == "" {
			return fmt.Errorf("commit %d has no hash", i)
		}
	}
	if err := p.Options.Options().Check(); err != nil {
		return err
	}
	return nil
}

// Ledger is the Store of a search's directory: DIR/ledger.jsonl, one
// event a line (internal/jsonl: appended with O_APPEND and fsynced
// before the search goes on, so that a kill or a power cut loses at most
// the line being written; a torn line is skipped, any other damage
// refused).
type Ledger struct{ Dir string }

// Append appends e.
func (l Ledger) Append(e Event) error {
	return jsonl.Append(filepath.Join(l.Dir, LedgerFile), e)
}

// ReadLedger reads the events of dir's ledger, skipping torn lines and
// refusing a line that is not an event.
func ReadLedger(dir string) ([]Event, error) {
	evs, _, err := jsonl.Read(filepath.Join(dir, LedgerFile), safefile.Self, func(e Event) error {
		if e.Event == "" {
			return errors.New("no event")
		}
		return nil
	})
	return evs, err
}

// LockFile is the file a running search holds locked (flock), so that
// two sessions never append to one ledger.
const LockFile = ".lock"

// Lock takes the lock of the search in dir; the returned function gives
// it back. A search running elsewhere is refused with its pid.
func Lock(dir string) (func(), error) {
	f, err := lock.TryFile(filepath.Join(dir, LockFile), fmt.Sprintf("pid %d", os.Getpid()))
	var held *lock.HeldError
	if errors.As(err, &held) {
		return nil, fmt.Errorf("the search in %s is running in another contend (%s): wait for it, or stop it", dir, held.Holder)
	}
	if err != nil {
		return nil, err
	}
	return func() { f.Close() }, nil
}
