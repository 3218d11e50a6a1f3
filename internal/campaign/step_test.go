package campaign

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"contend/internal/env"
	"contend/internal/results"

	"golang.org/x/sys/unix"
)

// fakeMachine is the machine a step sees in these tests: the running
// boot (kernel release and boot id), a clock that moves only when the
// step sleeps, load and pressure readings, a run that writes a result
// file, and a shell and a reboot that are recorded, not run.
type fakeMachine struct {
	t      *testing.T
	kernel env.Kernel
	now    time.Time
	slept  []time.Duration
	// loads are read in turn, the last one again and again.
	loads  []float64
	psi    float64
	hasPSI bool
	// onSleep, when set, runs as the step sleeps (a signal while
	// settling).
	onSleep func()
	// run, when set, replaces the run; else okReps successful
	// repetitions are written to the --out file.
	run    func(ctx context.Context, args []string) error
	okReps int
	runs   [][]string
	// shell and reboot, when set, replace the recorded shell command
	// (which succeeds) and the recorded reboot (which ends at once).
	shell   func(ctx context.Context, c string) error
	reboot  func(c string) (<-chan error, error)
	shells  []string
	reboots []string
	env     []string // the environment of the last shell or reboot command
	log     strings.Builder
}

func newMachine(t *testing.T) *fakeMachine {
	return &fakeMachine{t: t, now: time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC), loads: []float64{0.1}, okReps: 3}
}

// boot makes the machine run a new boot id with kernel release.
func (m *fakeMachine) boot(id, release string) {
	m.kernel = env.Kernel{BootID: id, Release: release, Version: "#1 SMP", Cmdline: "ro quiet"}
	m.now = m.now.Add(time.Minute)
}

func (m *fakeMachine) options() StepOptions {
	return StepOptions{
		Log:    &m.log,
		Kernel: func() env.Kernel { return m.kernel },
		Load: func() float64 {
			x := m.loads[0]
			if len(m.loads) > 1 {
				m.loads = m.loads[1:]
			}
			return x
		},
		Pressure: func() (float64, bool) { return m.psi, m.hasPSI },
		Now:      func() time.Time { return m.now },
		Sleep: func(ctx context.Context, d time.Duration) error {
			if d <= 0 {
				return nil
			}
			m.slept = append(m.slept, d)
			if m.onSleep != nil {
				m.onSleep()
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			m.now = m.now.Add(d)
			return nil
		},
		Run: func(ctx context.Context, args []string) error {
			m.runs = append(m.runs, args)
			if m.run != nil {
				return m.run(ctx, args)
			}
			m.writeResult(args, m.okReps)
			return nil
		},
		Shell: func(ctx context.Context, c string, envv []string) error {
			m.shells, m.env = append(m.shells, c), envv
			if m.shell != nil {
				return m.shell(ctx, c)
			}
			return nil
		},
		Reboot: func(c string, envv []string) (<-chan error, error) {
			m.reboots, m.env = append(m.reboots, c), envv
			if m.reboot != nil {
				return m.reboot(c)
			}
			ended := make(chan error, 1)
			ended <- nil
			return ended, nil
		},
	}
}

// writeResult writes the result file of the run args (its --out and
// --label), complete, with ok successful repetitions and one failed.
func (m *fakeMachine) writeResult(args []string, ok int) {
	m.t.Helper()
	out, label := args[slices.Index(args, "--out")+1], args[slices.Index(args, "--label")+1]
	f := &results.File{Kind: "run", Workload: "mutex", Label: label, Complete: true, Primary: "time",
		Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}}, Configs: []results.Config{{}},
		Env: map[string]string{"kernel.release": m.kernel.Release}, Start: m.now}
	for i := 0; i <= ok; i++ {
		r := results.Rep{Index: i, Status: results.StatusOK, BootID: m.kernel.BootID, Metrics: results.ValuesOf(map[string]float64{"time": 1e6})}
		if i == ok {
			r.Status, r.Error, r.Metrics = results.StatusFailed, "injected", nil
		}
		f.Reps = append(f.Reps, r)
	}
	b, err := results.Marshal(f)
	if err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		m.t.Fatal(err)
	}
}

// newStepCampaign writes a campaign of 4 boots, ABBA: side A booted by a
// boot command, side B by a grub entry (grub-reboot, then "my-reboot"),
// settling at most 10s for a load of 1; edit changes the options first.
func newStepCampaign(t *testing.T, edit func(*Options)) string {
	t.Helper()
	o := okOptions(t.TempDir())
	o.Sides[0].BootCommand = "reboot-into-A"
	o.Sides[1] = SideOptions{Grub: "B's entry", Expect: Expect{Release: "kB"}}
	o.Reboot, o.Boots = "my-reboot", 2
	o.Settle = Settle{Min: 0, Max: Duration(10 * time.Second), Load: 1, PSI: 10}
	if edit != nil {
		edit(&o)
	}
	p, err := NewPlan(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := WritePlan(p.Dir, p); err != nil {
		t.Fatal(err)
	}
	return p.Dir
}

// events returns the ledger of dir as "EVENT SLOT SIDE BOOT" lines.
func events(t *testing.T, dir string) []string {
	t.Helper()
	led, err := ReadLedger(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range led.Events {
		out = append(out, strings.Join(strings.Fields(fmt.Sprintf("%s %d %s %s", e.Event, e.Slot, e.Side, e.BootID)), " "))
	}
	return out
}

func lastEvent(t *testing.T, dir string) Event {
	t.Helper()
	led, err := ReadLedger(dir)
	if err != nil || len(led.Events) == 0 {
		t.Fatalf("ledger: %v, %v", led, err)
	}
	return led.Events[len(led.Events)-1]
}

// mustArm arms dir, its event naming no boot (the machine's boot id is
// not the fake one).
func mustArm(t *testing.T, dir string) {
	t.Helper()
	if err := arm(dir, "", time.Time{}); err != nil {
		t.Fatal(err)
	}
}

// TestStepCampaign: an armed campaign of 4 boots run to its end, one step
// per boot: each step disarms, checks the kernel, settles, runs the
// command with --out and --label, records start and done, arranges the
// next boot (grub-reboot for side B, nothing before side A's boot
// command) and arms again just before the reboot, whose command gets the
// next boot in its environment; the last step records the campaign
// complete and reboots nothing, and a step after it does nothing.
func TestStepCampaign(t *testing.T) {
	dir := newStepCampaign(t, nil)
	m := newMachine(t)
	mustArm(t, dir)
	grub := []string{"grub-reboot 'B'\\''s entry'"}
	wantShells := [][]string{grub, grub, nil, nil}
	wantReboots := []string{"my-reboot", "my-reboot", "reboot-into-A"}
	for i, side := range "ABBA" {
		m.boot(fmt.Sprintf("boot%d", i+1), "k"+string(side))
		m.shells = nil
		if err := Step(context.Background(), dir, m.options()); err != nil {
			t.Fatalf("step %d: %v\n%s", i+1, err, m.log.String())
		}
		want := []string{"run", "--out", filepath.Join(dir, ResultName(i, byte(side))), "--label", fmt.Sprintf("%c boot %d", side, i+1), "mutex", "-n", "3"}
		if !slices.Equal(m.runs[i], want) {
			t.Errorf("step %d ran %q, want %q", i+1, m.runs[i], want)
		}
		if !slices.Equal(m.shells, wantShells[i]) {
			t.Errorf("step %d arranged %q, want %q", i+1, m.shells, wantShells[i])
		}
		if i < 3 {
			if !IsArmed(dir) {
				t.Errorf("step %d: not armed after its reboot", i+1)
			}
			next := "ABBA"[i+1]
			for _, v := range []string{"CONTEND_CAMPAIGN_DIR=" + dir, fmt.Sprintf("CONTEND_CAMPAIGN_SLOT=%d", i+2), "CONTEND_CAMPAIGN_SIDE=" + string(next)} {
				if !slices.Contains(m.env, v) {
					t.Errorf("step %d: the reboot's environment lacks %s", i+1, v)
				}
			}
		}
	}
	if !slices.Equal(m.reboots, wantReboots) {
		t.Errorf("reboots %q, want %q", m.reboots, wantReboots)
	}
	want := []string{"arm -1", "start 0 A boot1", "done 0 A boot1", "arm -1 boot1", "reboot 1 B boot1",
		"start 1 B boot2", "done 1 B boot2", "arm -1 boot2", "reboot 2 B boot2",
		"start 2 B boot3", "done 2 B boot3", "arm -1 boot3", "reboot 3 A boot3",
		"start 3 A boot4", "done 3 A boot4", "complete 3"}
	if got := events(t, dir); !slices.Equal(got, want) {
		t.Errorf("ledger\n%q\nwant\n%q", got, want)
	}
	led, _ := ReadLedger(dir)
	for _, e := range led.Events {
		if e.Event == EvDone && e.OK != 3 {
			t.Errorf("done %d: ok %d, want 3", e.Slot, e.OK)
		}
		if e.Event == EvStart && (e.Kernel == nil || e.Kernel.BootID != e.BootID || e.Settle == nil || !e.Settle.Settled) {
			t.Errorf("start %d: kernel %+v, settle %+v", e.Slot, e.Kernel, e.Settle)
		}
	}
	// The boot cost is measured on the step's clock: a minute from each
	// reboot to the next start.
	if c := led.BootCosts(); len(c) != 3 || c[0] != time.Minute {
		t.Errorf("boot costs %v, want 3 of 1m", c)
	}
	// The last step consumed the arming and rebooted nothing. The
	// campaign is complete: a step does nothing, not even in a new boot,
	// and leaves the arming as it is.
	if IsArmed(dir) {
		t.Error("armed after the last boot")
	}
	mustArm(t, dir)
	n := len(events(t, dir))
	m.boot("boot5", "kA")
	m.log.Reset()
	if err := Step(context.Background(), dir, m.options()); err != nil || !strings.Contains(m.log.String(), "is complete (4 boots)") {
		t.Errorf("step after the end: %v, %q", err, m.log.String())
	}
	if len(events(t, dir)) != n || len(m.runs) != 4 {
		t.Errorf("a step of a complete campaign wrote %d events, ran %d", len(events(t, dir))-n, len(m.runs)-4)
	}
	if !IsArmed(dir) {
		t.Error("a step with nothing to do changed the arming")
	}
}

// TestStepNotArmed: an unarmed campaign's step measures its boot and
// reboots nothing; with --at-boot (the unit) it does nothing at all.
func TestStepNotArmed(t *testing.T) {
	dir := newStepCampaign(t, nil)
	m := newMachine(t)
	m.boot("boot1", "kA")
	o := m.options()
	o.AtBoot = true
	if err := Step(context.Background(), dir, o); err != nil || len(m.runs) != 0 || !strings.Contains(m.log.String(), "is not armed: nothing to do") {
		t.Fatalf("at boot, not armed: %v, %d runs, %q", err, len(m.runs), m.log.String())
	}
	if err := Step(context.Background(), dir, m.options()); err != nil {
		t.Fatal(err)
	}
	if len(m.reboots)+len(m.shells) != 0 || IsArmed(dir) {
		t.Errorf("not armed: shells %q, reboots %q, armed %v", m.shells, m.reboots, IsArmed(dir))
	}
	if !strings.Contains(m.log.String(), "boot 1 done. Not armed, so no reboot: boot side B (release kB) for boot 2") {
		t.Errorf("log: %s", m.log.String())
	}
	if got := events(t, dir); !slices.Equal(got, []string{"start 0 A boot1", "done 0 A boot1"}) {
		t.Errorf("ledger %q", got)
	}
}

// TestStepAlreadyRan: a second step in the boot that ran boot 1 does
// nothing and leaves the arming as it is, armed (its reboot pending) or
// not.
func TestStepAlreadyRan(t *testing.T) {
	for _, armed := range []bool{true, false} {
		dir := newStepCampaign(t, nil)
		m := newMachine(t)
		m.boot("boot1", "kA")
		if err := Step(context.Background(), dir, m.options()); err != nil {
			t.Fatal(err)
		}
		if armed {
			mustArm(t, dir)
		}
		n := len(events(t, dir))
		// Typed again, and (armed) as the boot unit would run it: an
		// --at-boot step must not consume the arming either, or the
		// next boot would do nothing.
		for _, atBoot := range []bool{false, armed} {
			m.log.Reset()
			o := m.options()
			o.AtBoot = atBoot
			if err := Step(context.Background(), dir, o); err != nil {
				t.Fatal(err)
			}
			if len(m.runs) != 1 || len(events(t, dir)) != n || IsArmed(dir) != armed {
				t.Errorf("armed %v, at boot %v: %d runs, %d new events, armed after %v", armed, atBoot, len(m.runs), len(events(t, dir))-n, IsArmed(dir))
			}
			want := "this boot (boot1) already ran boot 1 of the campaign: nothing to do. "
			if armed {
				want += "The campaign stays armed: the step of the next boot runs boot 2 (side B)"
			} else {
				want += "Reboot into side B for boot 2 and run the step there (the campaign is not armed"
			}
			if !strings.Contains(m.log.String(), want) {
				t.Errorf("armed %v, at boot %v: log %q lacks %q", armed, atBoot, m.log.String(), want)
			}
		}
	}
}

// stopped checks that a step's error is a stop (ErrStopped) naming want,
// that the ledger's last event is that stop of boot slot with the same
// message, and that the campaign is disarmed.
func stopped(t *testing.T, dir string, err error, ev string, slot int, want string) {
	t.Helper()
	if !errors.Is(err, ErrStopped) || !strings.Contains(err.Error(), want) {
		t.Errorf("step: %v; want a stop naming %q", err, want)
	}
	e := lastEvent(t, dir)
	if e.Event != ev || e.Slot != slot || err == nil || !strings.HasSuffix(err.Error(), e.Message) {
		t.Errorf("last event %+v; want %s of boot %d with the error's message", e, ev, slot+1)
	}
	if IsArmed(dir) {
		t.Error("the campaign is still armed after a stop")
	}
}

// TestStepWrongKernel: a boot of the wrong kernel is a mismatch: nothing
// runs, nothing reboots, the campaign is disarmed.
func TestStepWrongKernel(t *testing.T) {
	dir := newStepCampaign(t, nil)
	mustArm(t, dir)
	m := newMachine(t)
	m.boot("boot1", "kB")
	err := Step(context.Background(), dir, m.options())
	stopped(t, dir, err, EvMismatch, 0, `boot 1 of 4 expects side A (release kA), but this kernel has release "kB"; disarmed, no reboot`)
	if e := lastEvent(t, dir); e.Kernel == nil || e.Kernel.Release != "kB" {
		t.Errorf("the mismatch does not record the kernel: %+v", e.Kernel)
	}
	if len(m.runs)+len(m.reboots) != 0 {
		t.Errorf("ran %d, rebooted %q", len(m.runs), m.reboots)
	}
}

// TestStepFailedRun: a run that fails, one without a readable result
// file and one without a successful repetition each stop the campaign,
// disarmed, with no reboot; a run ended by a signal names the signal.
func TestStepFailedRun(t *testing.T) {
	cases := []struct {
		name string
		run  func(m *fakeMachine, cancel context.CancelCauseFunc) func(context.Context, []string) error
		want string
	}{
		{"exit", func(*fakeMachine, context.CancelCauseFunc) func(context.Context, []string) error {
			return func(context.Context, []string) error { return errors.New("exit status 1") }
		}, "boot 1: 'contend run --out "},
		{"no file", func(*fakeMachine, context.CancelCauseFunc) func(context.Context, []string) error {
			return func(context.Context, []string) error { return nil }
		}, "boot 1: "},
		{"no ok", func(m *fakeMachine, _ context.CancelCauseFunc) func(context.Context, []string) error {
			return func(_ context.Context, args []string) error { m.writeResult(args, 0); return nil }
		}, "boot 1: no successful repetition in boots/01-A.jsonl; disarmed, no reboot"},
		{"signal", func(_ *fakeMachine, cancel context.CancelCauseFunc) func(context.Context, []string) error {
			return func(context.Context, []string) error {
				cancel(Signal{syscall.SIGTERM})
				return errors.New("signal: terminated")
			}
		}, "boot 1: stopped by SIGTERM while running 'contend run --out "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := newStepCampaign(t, nil)
			mustArm(t, dir)
			m := newMachine(t)
			m.boot("boot1", "kA")
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			m.run = c.run(m, cancel)
			err := Step(ctx, dir, m.options())
			stopped(t, dir, err, EvFailed, 0, c.want)
			if e := lastEvent(t, dir); e.Result != ResultName(0, 'A') {
				t.Errorf("the failure does not name the result file: %+v", e)
			}
			if len(m.reboots)+len(m.shells) != 0 {
				t.Errorf("rebooted after a failed run: %q %q", m.shells, m.reboots)
			}
		})
	}
}

// TestStepSettle: the step waits Min, then polls every settlePoll until
// the load and the CPU pressure are low enough, at most Max (not
// settling is recorded, and the boot is run anyway); a pressure the
// kernel does not have does not hold the step. The start event records
// what was seen, on the step's clock.
func TestStepSettle(t *testing.T) {
	cases := []struct {
		name        string
		settle      Settle
		loads       []float64
		psi         float64
		hasPSI      bool
		want        SettleRecord
		wantSlept   []time.Duration
		wantLogPart string
	}{
		{"load falls", Settle{Min: Duration(time.Minute), Max: Duration(10 * time.Minute), Load: 1, PSI: 10}, []float64{5, 3, 0.5}, 2, true,
			SettleRecord{Waited: Duration(64 * time.Second), Load: 0.5, PSI: 2, HasPSI: true, Settled: true},
			[]time.Duration{time.Minute, settlePoll, settlePoll}, "settled after 1m4s: load 0.50, cpu pressure 2.00%"},
		{"timeout", Settle{Max: Duration(10 * time.Second), Load: 1, PSI: 10}, []float64{5}, 0, false,
			SettleRecord{Waited: Duration(10 * time.Second), Load: 5},
			[]time.Duration{settlePoll, settlePoll, settlePoll, settlePoll, settlePoll}, "not settled after 10s (load 5.00, cpu pressure not available): running anyway, recorded in the ledger"},
		{"pressure", Settle{Max: Duration(4 * time.Second), Load: 1, PSI: 10}, []float64{0}, 50, true,
			SettleRecord{Waited: Duration(4 * time.Second), PSI: 50, HasPSI: true},
			[]time.Duration{settlePoll, settlePoll}, "not settled after 4s (load 0.00, cpu pressure 50.00%)"},
		{"no pressure", Settle{Max: Duration(4 * time.Second), Load: 1, PSI: 10}, []float64{0}, 50, false,
			SettleRecord{Settled: true, PSI: 50},
			nil, "settled after 0s: load 0.00, cpu pressure not available"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := newStepCampaign(t, func(o *Options) { o.Settle = c.settle })
			m := newMachine(t)
			m.loads, m.psi, m.hasPSI = c.loads, c.psi, c.hasPSI
			m.boot("boot1", "kA")
			begin := m.now
			if err := Step(context.Background(), dir, m.options()); err != nil {
				t.Fatal(err)
			}
			led, _ := ReadLedger(dir)
			st := led.Events[0]
			if st.Event != EvStart || st.Settle == nil || *st.Settle != c.want {
				t.Errorf("start %+v settle %+v, want %+v", st, st.Settle, c.want)
			}
			if !st.Begin.Equal(begin) || !st.Time.Equal(begin.Add(time.Duration(c.want.Waited))) {
				t.Errorf("begin %v, start %v; want %v and %v later", st.Begin, st.Time, begin, time.Duration(c.want.Waited))
			}
			if !slices.Equal(m.slept, c.wantSlept) {
				t.Errorf("slept %v, want %v", m.slept, c.wantSlept)
			}
			if !strings.Contains(m.log.String(), c.wantLogPart) {
				t.Errorf("log %q lacks %q", m.log.String(), c.wantLogPart)
			}
			if len(m.runs) != 1 {
				t.Errorf("%d runs, want 1", len(m.runs))
			}
		})
	}
}

// TestStepSignalWhileSettling: a signal while the step settles stops it
// before anything runs, disarmed, naming the signal.
func TestStepSignalWhileSettling(t *testing.T) {
	dir := newStepCampaign(t, func(o *Options) { o.Settle.Min, o.Settle.Max = Duration(time.Minute), Duration(time.Hour) })
	mustArm(t, dir)
	m := newMachine(t)
	m.boot("boot1", "kA")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	m.onSleep = func() { cancel(Signal{syscall.SIGHUP}) }
	err := Step(ctx, dir, m.options())
	stopped(t, dir, err, EvFailed, 0, "boot 1: stopped by SIGHUP while settling; disarmed, no reboot")
	if len(m.runs) != 0 || slices.Contains(events(t, dir), "start 0 A boot1") {
		t.Errorf("ran %d, ledger %q", len(m.runs), events(t, dir))
	}
}

// shellExit returns the error of a shell command that ended as script
// makes it (an *exec.ExitError, as the real reboot's Wait returns).
func shellExit(t *testing.T, script string) error {
	t.Helper()
	err := exec.Command("/bin/sh", "-c", script).Run()
	if err == nil {
		t.Fatalf("sh -c %q succeeded", script)
	}
	return err
}

// TestStepRebootPaths: after a boot done, the failures of arranging the
// next boot and of the reboot disarm the campaign, filed under the next
// boot; from the point of no return on (the reboot command started), a
// signal to the step or the reboot command's end by one is the reboot
// under way: recorded, the campaign left armed, no error.
func TestStepRebootPaths(t *testing.T) {
	never := func(string) (<-chan error, error) { return make(chan error), nil }
	ended := func(err error) func(string) (<-chan error, error) {
		return func(string) (<-chan error, error) {
			ch := make(chan error, 1)
			ch <- err
			return ch, nil
		}
	}
	type setup struct {
		m      *fakeMachine
		cancel context.CancelCauseFunc
	}
	cases := []struct {
		name      string
		order     string // ABBA: the next boot is B, arranged with grub-reboot; AABB: A, booted by its command
		edit      func(s setup)
		underWay  bool   // the reboot is under way: armed, no error
		ev        string // else the stop's event
		want      string
		rebooting bool // the reboot command was started
	}{
		{"grub-reboot fails", "ABBA", func(s setup) {
			s.m.shell = func(context.Context, string) error { return errors.New("exit status 1") }
		}, false, EvFailed, `arranging boot 2 (side B): "grub-reboot 'B'\\''s entry'" failed (exit status 1); disarmed, no reboot: boot side B yourself`, false},
		{"signal in grub-reboot", "ABBA", func(s setup) {
			s.m.shell = func(context.Context, string) error {
				s.cancel(Signal{syscall.SIGINT})
				return errors.New("signal: interrupt")
			}
		}, false, EvFailed, `arranging boot 2 (side B): stopped by SIGINT while running "grub-reboot 'B'\\''s entry'"`, false},
		{"signal after grub-reboot", "ABBA", func(s setup) {
			s.m.shell = func(context.Context, string) error { s.cancel(Signal{syscall.SIGTERM}); return nil }
		}, false, EvFailed, "arranging boot 2 (side B): stopped by SIGTERM before the reboot; disarmed, no reboot", false},
		{"reboot does not start", "ABBA", func(s setup) {
			s.m.reboot = func(string) (<-chan error, error) { return nil, errors.New("fork: no memory") }
		}, false, EvFailed, `the reboot into boot 2 (side B): "my-reboot" did not start (fork: no memory); disarmed`, true},
		{"reboot fails", "ABBA", func(s setup) {
			s.m.reboot = ended(shellExit(s.m.t, "exit 3"))
		}, false, EvFailed, `the reboot into boot 2 (side B): "my-reboot" failed (exit status 3); disarmed: boot side B yourself`, true},
		{"reboot killed by the shutdown", "ABBA", func(s setup) {
			s.m.reboot = ended(shellExit(s.m.t, "kill -TERM $$"))
		}, true, EvRebooting, `the reboot into boot 2 (side B) is under way: the reboot command "my-reboot" ended by SIGTERM (the shutdown it started)`, true},
		{"signal after the reboot started", "AABB", func(s setup) {
			s.m.reboot = func(c string) (<-chan error, error) { s.cancel(Signal{syscall.SIGTERM}); return never(c) }
		}, true, EvRebooting, `the reboot into boot 2 (side A) is under way: the step got SIGTERM after the reboot command "reboot-into-A" started (the shutdown it started)`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := newStepCampaign(t, func(o *Options) { o.Order, o.Boots = c.order, 0 })
			mustArm(t, dir)
			m := newMachine(t)
			m.boot("boot1", "kA")
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			c.edit(setup{m, cancel})
			err := Step(ctx, dir, m.options())
			if len(m.reboots) > 0 != c.rebooting {
				t.Errorf("reboots %q, want started: %v", m.reboots, c.rebooting)
			}
			if !slices.Contains(events(t, dir), "done 0 A boot1") {
				t.Errorf("the boot is not done: %q", events(t, dir))
			}
			if !c.underWay {
				stopped(t, dir, err, c.ev, 1, c.want)
				return
			}
			e := lastEvent(t, dir)
			if err != nil || e.Event != EvRebooting || e.Slot != 1 || !strings.Contains(e.Message, c.want) || !strings.Contains(m.log.String(), c.want) {
				t.Errorf("step: %v, last event %+v; want the reboot under way: %q", err, e, c.want)
			}
			if !IsArmed(dir) {
				t.Error("the reboot under way disarmed the campaign")
			}
			if got := events(t, dir); got[len(got)-2] != "reboot 1 "+c.order[1:2]+" boot1" {
				t.Errorf("no reboot event before the rebooting: %q", got)
			}
		})
	}
}

// TestStepSignalBeforeRebootCommand: a signal that comes after the step
// armed again and logged the reboot, but before the reboot command
// started, disarms: the reboot never started.
func TestStepSignalBeforeRebootCommand(t *testing.T) {
	dir := newStepCampaign(t, nil)
	mustArm(t, dir)
	m := newMachine(t)
	m.boot("boot1", "kA")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	// The step armed again (the point of no return is near) when it
	// next reads its clock: for the reboot event. The signal comes then.
	o := m.options()
	now := o.Now
	o.Now = func() time.Time {
		if IsArmed(dir) {
			cancel(Signal{syscall.SIGTERM})
		}
		return now()
	}
	err := Step(ctx, dir, o)
	stopped(t, dir, err, EvFailed, 1, `arranging boot 2 (side B): stopped by SIGTERM before the reboot command "my-reboot" started; disarmed, no reboot`)
	if len(m.reboots) != 0 {
		t.Errorf("the reboot command started: %q", m.reboots)
	}
}

// TestStepRedoInterrupted: a boot whose step was interrupted (a start
// without its done) is redone in the next step with the expected kernel;
// its partial result file is set aside and named, or, when it left none,
// the redo says so.
func TestStepRedoInterrupted(t *testing.T) {
	for _, partial := range []bool{true, false} {
		dir := newStepCampaign(t, nil)
		m := newMachine(t)
		if err := Append(dir, Event{Event: EvStart, Slot: 0, Side: "A", BootID: "boot0", Result: ResultName(0, 'A')}); err != nil {
			t.Fatal(err)
		}
		if partial {
			if err := os.WriteFile(filepath.Join(dir, ResultName(0, 'A')), []byte("{\"format\":"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		m.boot("boot1", "kA")
		if err := Step(context.Background(), dir, m.options()); err != nil {
			t.Fatal(err)
		}
		led, _ := ReadLedger(dir)
		redo := led.Events[1]
		aside := filepath.Join(BootsDir, "01-A.interrupted-1.jsonl")
		want := "the step of boot 1 started in boot boot0 did not finish: redone; it left no result file"
		if partial {
			want = "the step of boot 1 started in boot boot0 did not finish: redone; its partial result file is kept aside as " + aside
			if b, err := os.ReadFile(filepath.Join(dir, aside)); err != nil || string(b) != "{\"format\":" {
				t.Errorf("the partial file aside: %q, %v", b, err)
			}
		} else {
			aside = ""
		}
		if redo.Event != EvRedo || redo.Message != want || redo.Result != aside || redo.BootID != "boot1" {
			t.Errorf("partial %v: redo %+v, want %q naming %q", partial, redo, want, aside)
		}
		if got := events(t, dir); !slices.Equal(got[2:], []string{"start 0 A boot1", "done 0 A boot1"}) {
			t.Errorf("partial %v: ledger %q", partial, got)
		}
	}
}

// TestStepOldBootNames: a campaign begun by a contend that named the
// boots' files NN-S.json goes on: the partial NN-S.json of a boot whose
// step was interrupted is set aside under its own extension, a finished
// NN-S.json the ledger lost is recorded as done under its name, and the
// new boots' files are NN-S.jsonl.
func TestStepOldBootNames(t *testing.T) {
	dir := newStepCampaign(t, nil)
	m := newMachine(t)
	old := oldResultName(0, 'A')
	if old != filepath.Join(BootsDir, "01-A.json") || ResultName(0, 'A') != filepath.Join(BootsDir, "01-A.jsonl") {
		t.Fatalf("names %s, %s", old, ResultName(0, 'A'))
	}
	if err := Append(dir, Event{Event: EvStart, Slot: 0, Side: "A", BootID: "boot0", Result: old}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, old), []byte("{\"format\":"), 0o644); err != nil {
		t.Fatal(err)
	}
	m.boot("boot1", "kA")
	if err := Step(context.Background(), dir, m.options()); err != nil {
		t.Fatal(err)
	}
	led, _ := ReadLedger(dir)
	aside := filepath.Join(BootsDir, "01-A.interrupted-1.json")
	if redo := led.Events[1]; redo.Event != EvRedo || redo.Result != aside {
		t.Errorf("redo %+v, want the partial file set aside as %s", redo, aside)
	}
	if b, err := os.ReadFile(filepath.Join(dir, aside)); err != nil || string(b) != "{\"format\":" {
		t.Errorf("the partial file aside: %q, %v", b, err)
	}
	if d := led.Done()[0]; d.Result != ResultName(0, 'A') {
		t.Errorf("boot 1 done as %q, want %q", d.Result, ResultName(0, 'A'))
	}
	// The ledger lost, and boot 1's finished file under its old name:
	// recorded as done under that name, and boot 2 goes on.
	if err := os.Rename(filepath.Join(dir, ResultName(0, 'A')), filepath.Join(dir, old)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, LedgerFile)); err != nil {
		t.Fatal(err)
	}
	m.boot("boot2", "kB")
	if err := Step(context.Background(), dir, m.options()); err != nil {
		t.Fatal(err)
	}
	led, _ = ReadLedger(dir)
	if d := led.Done(); d[0].Result != old || d[1].Result != ResultName(1, 'B') {
		t.Errorf("done %q and %q, want %q and %q", d[0].Result, d[1].Result, old, ResultName(1, 'B'))
	}
}

// TestStepEmptiedLedger: with the ledger gone, a result file that is a
// finished measurement of the next boot (its label, complete, a
// successful repetition) is recorded as done, with the boot it ran in,
// and the step goes on to the boot after; anything else is set aside
// as unrecorded and the boot is measured again.
func TestStepEmptiedLedger(t *testing.T) {
	dir := newStepCampaign(t, nil)
	m := newMachine(t)
	m.boot("boot1", "kA")
	if err := Step(context.Background(), dir, m.options()); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, LedgerFile)); err != nil {
		t.Fatal(err)
	}
	m.boot("boot2", "kB")
	m.log.Reset()
	if err := Step(context.Background(), dir, m.options()); err != nil {
		t.Fatal(err)
	}
	want := []string{"done 0 A boot1", "start 1 B boot2", "done 1 B boot2"}
	if got := events(t, dir); !slices.Equal(got, want) {
		t.Errorf("ledger %q, want %q", got, want)
	}
	if e := events(t, dir); len(e) > 0 && !strings.Contains(m.log.String(), "the ledger had no record of boot 1, but boots/01-A.jsonl is its complete result (3 ok, boot boot1): recorded as done") {
		t.Errorf("log: %s", m.log.String())
	}
	// A file that is not boot 3's measurement (boot 2's label) is set
	// aside, the boot measured again.
	if err := os.Remove(filepath.Join(dir, LedgerFile)); err != nil {
		t.Fatal(err)
	}
	m.writeResult([]string{"--out", filepath.Join(dir, ResultName(2, 'B')), "--label", "B boot 2"}, 1)
	m.boot("boot3", "kB")
	m.log.Reset()
	if err := Step(context.Background(), dir, m.options()); err != nil {
		t.Fatal(err)
	}
	want = []string{"done 0 A boot1", "done 1 B boot2", "redo 2 B boot3", "start 2 B boot3", "done 2 B boot3"}
	if got := events(t, dir); !slices.Equal(got, want) {
		t.Errorf("ledger %q, want %q", got, want)
	}
	aside := filepath.Join(BootsDir, "03-B.unrecorded-2.jsonl")
	if _, err := os.Stat(filepath.Join(dir, aside)); err != nil {
		t.Errorf("not set aside: %v", err)
	}
	if !strings.Contains(m.log.String(), `boots/03-B.jsonl is not a finished measurement of it (its label is "B boot 2", not "B boot 3"): set aside as `+aside) {
		t.Errorf("log: %s", m.log.String())
	}
	for _, c := range []struct {
		name  string
		write func(path string)
		why   string
	}{
		{"unreadable", func(p string) { os.WriteFile(p, []byte("not json"), 0o644) }, ""},
		{"incomplete", func(p string) {
			m.writeResult([]string{"--out", p, "--label", "A boot 4"}, 1)
			f, _ := results.Read(p)
			f.Complete = false
			b, _ := results.Marshal(f)
			os.WriteFile(p, b, 0o644)
		}, "its run did not finish"},
		{"no ok", func(p string) { m.writeResult([]string{"--out", p, "--label", "A boot 4"}, 0) }, "no successful repetition"},
	} {
		p := filepath.Join(dir, ResultName(3, 'A'))
		c.write(p)
		if ev, why := recovered(3, 'A', p); why == "" || !strings.Contains(why, c.why) {
			t.Errorf("%s: recovered %+v, %q; want %q", c.name, ev, why, c.why)
		}
	}
}

// TestStepBusy: a second step of a campaign whose lock is held is
// refused (ErrBusy) and names the holder.
func TestStepBusy(t *testing.T) {
	dir := newStepCampaign(t, nil)
	l, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.unlock()
	m := newMachine(t)
	m.boot("boot1", "kA")
	err = Step(context.Background(), dir, m.options())
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), fmt.Sprintf("step pid %d", os.Getpid())) || len(m.runs) != 0 {
		t.Errorf("step with the lock held: %v, %d runs", err, len(m.runs))
	}
}

// TestStepMachine: the machine's own run, shell and reboot (no seam):
// the run is Exe with the plan's arguments and the step's lock, holding
// it while it runs; the reboot is /bin/sh -c in a session of its own with
// the next boot in its environment; the campaign is armed again for it.
func TestStepMachine(t *testing.T) {
	base := t.TempDir()
	dir := newStepCampaign(t, func(o *Options) {
		o.Settle = Settle{Max: 0, Load: 1e9, PSI: 100}
		o.Reboot = ""
		o.Sides[0].BootCommand = "echo A >> " + filepath.Join(base, "reboots")
		o.Sides[1] = SideOptions{BootCommand: `echo "$CONTEND_CAMPAIGN_SLOT $CONTEND_CAMPAIGN_SIDE $(awk '{print $6}' /proc/$$/stat) $X" >> ` + filepath.Join(base, "reboots"), Expect: Expect{Release: "kB"}}
	})
	src := filepath.Join(base, "src.json")
	m := newMachine(t)
	m.boot("boot1", "kA")
	m.writeResult([]string{"--out", src, "--label", "A boot 1"}, 2)
	exe := filepath.Join(base, "contend")
	// The run copies a result into --out ($3) and says whether the step's
	// lock is held (another flock on it fails) and whether it got X.
	script := "#!/bin/sh\ncp " + src + " \"$3\"\nflock -n " + filepath.Join(dir, LockFile) + " true && echo lock free || echo lock held\necho \"X=$X\"\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	mustArm(t, dir)
	var log strings.Builder
	o := StepOptions{Exe: exe, Log: &log, ExtraEnv: []string{"X=extra"}, Kernel: func() env.Kernel { return m.kernel }}
	if err := Step(context.Background(), dir, o); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if _, err := exec.LookPath("flock"); err == nil && !strings.Contains(log.String(), "lock held") {
		t.Errorf("the run did not hold the step's lock:\n%s", log.String())
	}
	if !strings.Contains(log.String(), "X=extra") {
		t.Errorf("the run did not get ExtraEnv:\n%s", log.String())
	}
	// The step waited for the reboot command's end (it succeeded).
	b, err := os.ReadFile(filepath.Join(base, "reboots"))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) != 4 || f[0] != "2" || f[1] != "B" || f[3] != "extra" {
		t.Fatalf("reboot command saw %q, want slot 2, side B, its session, X", b)
	}
	if sid, _ := unix.Getsid(0); f[2] == fmt.Sprint(sid) {
		t.Errorf("the reboot command ran in the step's session %s", f[2])
	}
	if !IsArmed(dir) || lastEvent(t, dir).Event != EvReboot {
		t.Errorf("armed %v, last event %+v", IsArmed(dir), lastEvent(t, dir))
	}
	ev := events(t, dir)
	if ev[len(ev)-2] != "arm -1 boot1" {
		t.Errorf("the step's arm does not name its boot: %q", ev)
	}
}

// TestStepSleep: the machine's sleep returns at once for nothing to wait
// and with the context's error when it ends first.
func TestStepSleep(t *testing.T) {
	if err := sleep(context.Background(), 0); err != nil {
		t.Error(err)
	}
	if err := sleep(context.Background(), time.Millisecond); err != nil {
		t.Error(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestWithSignals: a step signal cancels the context with the signal as
// its cause; the command's context ending without one is "a signal";
// stop cancels it without one.
func TestWithSignals(t *testing.T) {
	if signal.Ignored(syscall.SIGHUP) {
		t.Skip("SIGHUP is ignored (nohup): the step keeps it ignored")
	}
	ctx, stop := WithSignals(context.Background())
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGHUP did not cancel the step's context")
	}
	stop()
	if got := interruption(ctx); got != "SIGHUP" {
		t.Errorf("cancelled by SIGHUP: %q", got)
	}
	parent, cancel := context.WithCancel(context.Background())
	ctx, stop = WithSignals(parent)
	cancel()
	<-ctx.Done()
	stop()
	if got := interruption(ctx); got != "a signal (SIGINT or SIGTERM)" {
		t.Errorf("parent ended: %q", got)
	}
	ctx, stop = WithSignals(context.Background())
	stop()
	if got := interruption(ctx); got != "cancellation (context canceled)" {
		t.Errorf("stopped: %q", got)
	}
	if SignalName(syscall.SIGUSR1) != "user defined signal 1" {
		t.Errorf("SIGUSR1: %q", SignalName(syscall.SIGUSR1))
	}
}

// TestDisarm: disarm removes the arming and says why in the ledger;
// disarming an unarmed campaign is no error.
func TestDisarm(t *testing.T) {
	dir := newStepCampaign(t, nil)
	mustArm(t, dir)
	if err := Disarm(dir, "campaign disarm"); err != nil || IsArmed(dir) {
		t.Fatalf("disarm: %v, armed %v", err, IsArmed(dir))
	}
	if err := Disarm(dir, "again"); err != nil {
		t.Error(err)
	}
	if e := lastEvent(t, dir); e.Event != EvDisarm || e.Message != "again" || e.Slot != -1 {
		t.Errorf("last event %+v", e)
	}
}
