package run

import (
	"context"
	"fmt"
	"strings"
	"time"

	"contend/internal/ab"
	"contend/internal/external"
	"contend/internal/harness"
	"contend/internal/results"
	"contend/internal/workload"
)

// ABHooks are the hooks of an A/B run of plan p: the tracefs switch
// (its errors made by wrap), the prepare commands, the cleanup command
// (which runs before the events are put back).
func ABHooks(p ab.Plan, wrap func(error) error) []Hook {
	var hooks []Hook
	if p.Trace != "" {
		hooks = append(hooks, Trace(p.Trace, wrap))
	}
	hooks = append(hooks, Prepare(p.Prepare[:], p.PrepareTimeout))
	if p.Cleanup != "" {
		hooks = append(hooks, Cleanup(p.Cleanup, p.PrepareTimeout))
	}
	return hooks
}

// Prepare is the hook that runs the shell command of the slot's
// configuration (commands[config], "" for none) before each of its
// repetitions, each within timeout, named as "side A prepare".
func Prepare(commands []string, timeout time.Duration) Hook {
	return Hook{Before: func(ctx context.Context, s harness.Slot) (string, error) {
		return ab.Prepare(ctx, "side "+string(rune('A'+s.Config))+" prepare", commands[s.Config], timeout)
	}}
}

// Cleanup is the hook that runs the shell command once at the end,
// however the run ends, within timeout: its failure is a problem, its
// output a notice.
func Cleanup(command string, timeout time.Duration) Hook {
	return Hook{Close: func(ui UI) error {
		out, err := ab.Prepare(context.Background(), "cleanup", command, timeout)
		if err != nil {
			ui.Problem(fmt.Sprintf("warning: %v", err))
		} else if out != "" {
			ui.Notice(strings.TrimSuffix(out, "\n"))
		}
		return nil
	}}
}

// Trace is the hook of the tracefs switch of events (GROUP or
// GROUP:EVENT): off for configuration 0, on for configuration 1, put
// back as they were at the end. Its Open records each configuration's
// state and what it restored of a killed run; its errors are those of
// ab.NewTraceSwitch, made by wrap (a usage error).
func Trace(events string, wrap func(error) error) Hook {
	var t *ab.TraceSwitch
	return Hook{
		Open: func(f *results.File) error {
			var err error
			if t, err = ab.NewTraceSwitch(events); err != nil {
				return wrap(err)
			}
			if t.Recovered != "" {
				f.Warnings = append(f.Warnings, t.Recovered)
			}
			for i := range f.Configs {
				SetEnv(&f.Configs[i], "trace-events", t.State(i == 1))
				SetEnv(&f.Configs[i], "tracefs", t.Root)
			}
			return nil
		},
		Before: func(_ context.Context, s harness.Slot) (string, error) {
			return "", t.Set(s.Config == 1)
		},
		Close: func(UI) error { return t.Restore() },
	}
}

// SetEnv records a setting of configuration c (its Env).
func SetEnv(c *results.Config, key, value string) {
	if c.Env == nil {
		c.Env = map[string]string{}
	}
	c.Env[key] = value
}

// Workload is the runner of a built-in workload: configuration i runs w
// with configs[i] in a child process (harness.RunRep), within timeout
// (0: the workload's default for its values, Timeout); a prepare
// command's output is the repetition's Output.
func Workload(w *workload.Workload, configs []workload.Values, timeout time.Duration) Runner {
	return func(ctx context.Context, s Slot) harness.Outcome {
		v := configs[s.Config]
		o := harness.RunRep(ctx, w, v, Timeout(w, v, timeout), s.Evidence)
		o.Rep.Output = s.Prepared
		return o
	}
}

// Timeout is the timeout of a repetition of w with v: given (--timeout)
// when positive, else the workload's default for v (0: none).
func Timeout(w *workload.Workload, v workload.Values, given time.Duration) time.Duration {
	if given > 0 || w.Timeout == nil {
		return given
	}
	return w.Timeout(v)
}

// ByConfig is the runner that runs configuration i with runners[i]
// (verify: the workload, then the original program).
func ByConfig(runners ...Runner) Runner {
	return func(ctx context.Context, s Slot) harness.Outcome { return runners[s.Config](ctx, s) }
}

// Programs is the runner of external programs: configuration i runs
// progs[i] (external.RunRep); the program's output is the repetition's
// Output and a prepare command's goes to its notes.
func Programs(progs ...external.Program) Runner {
	return func(ctx context.Context, s Slot) harness.Outcome {
		p := progs[s.Config]
		p.Evidence = s.Evidence
		o := harness.Outcome{Rep: external.RunRep(ctx, p)}
		if s.Prepared != "" {
			o.Rep.Notes = append(o.Rep.Notes, "prepare output: "+strings.TrimRight(s.Prepared, "\n"))
		}
		return o
	}
}
