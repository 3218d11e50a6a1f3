package guest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"contend/internal/lock"
	"contend/internal/results"
	"contend/internal/vm"
)

// resultFile returns a result file of faultme whose repetitions have
// the statuses given, the first warm repetition marked a warm-up when
// warm.
func resultFile(t *testing.T, warm bool, statuses ...string) []byte {
	t.Helper()
	f := &results.File{Kind: "run", Workload: "faultme", Complete: true, Primary: "time",
		Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}}, Configs: []results.Config{{}}}
	for i, s := range statuses {
		r := results.Rep{Index: i, Status: s, Warmup: warm && i == 0}
		if s == results.StatusOK {
			r.Metrics = results.ValuesOf(map[string]float64{"time": 1e6 + float64(i)})
		} else {
			r.Error = "mmap: Cannot allocate memory\nfaultme: repetition " + s
		}
		f.Reps = append(f.Reps, r)
	}
	b, err := results.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fake is a guest: it records what it was asked to boot and gives back
// res and err.
type fake struct {
	res    *vm.Result
	err    error
	cancel func() // called before returning, when set
	guests []vm.Guest
	cmds   []vm.Command
}

func (f *fake) boot(ctx context.Context, g vm.Guest, c vm.Command) (*vm.Result, error) {
	f.guests = append(f.guests, g)
	f.cmds = append(f.cmds, c)
	if f.cancel != nil {
		f.cancel()
	}
	return f.res, f.err
}

func run(t *testing.T) Run {
	dir := t.TempDir()
	return Run{Machine: Machine{CPUs: 2, MemMiB: 512, Timeout: time.Minute, Accel: vm.AccelTCG},
		Kernel:  Kernel{Kernel: "/k/bzImage", Initrd: "/k/initrd", Cmdline: "thp=always", Build: map[string]string{"kbuild.revision": "abc"}},
		Dir:     filepath.Join(dir, "vm"),
		Command: vm.Command{Args: []string{"run", "faultme"}, Out: vm.GuestOut, Env: []string{"A=b"}},
		File:    filepath.Join(dir, "b1.jsonl")}
}

// TestMeasureBootsTheRun: the guest booted is the run's machine with its
// kernel and logs' directory; its command is the run's, with the
// kernel's build facts; a good boot's result file is kept at Run.File
// and its successful repetitions counted, warm-ups and failures aside.
func TestMeasureBootsTheRun(t *testing.T) {
	r := run(t)
	out := resultFile(t, true, results.StatusOK, results.StatusOK, results.StatusFailed, results.StatusOK, results.StatusOK)
	f := &fake{res: &vm.Result{Accel: vm.AccelTCG, Report: vm.Report{Release: "6.1.0-test", BootID: "b"}, Output: out}}
	m, err := Measure(context.Background(), f.boot, r)
	if err != nil {
		t.Fatal(err)
	}
	want := vm.Guest{Kernel: "/k/bzImage", Initrd: "/k/initrd", Append: "thp=always", CPUs: 2, MemMiB: 512, Timeout: time.Minute, Dir: r.Dir}
	if len(f.guests) != 1 || f.guests[0] != want {
		t.Errorf("booted %+v, want %+v", f.guests, want)
	}
	c := f.cmds[0]
	if strings.Join(c.Args, " ") != "run faultme" || c.Out != vm.GuestOut || strings.Join(c.Env, " ") != "A=b" || len(c.Facts) != 1 || c.Facts["kbuild.revision"] != "abc" {
		t.Errorf("the command %+v", c)
	}
	if m.OK != 3 || m.Report.Release != "6.1.0-test" || m.Accel != vm.AccelTCG || m.File == nil || len(m.File.Values(-1, "time")) != 3 {
		t.Errorf("the measurement: %d ok, %+v", m.OK, m.Result)
	}
	if b, err := os.ReadFile(r.File); err != nil || !bytes.Equal(b, out) {
		t.Errorf("the result file kept: %v", err)
	}
}

// TestMeasureFaults: every fault of the guest (a vm.Fault other than
// QEMU's) is a Failure of kind Faulted, in the fault's words, with the
// fault beneath; QEMU's own fault and any other error are returned as
// they are; a boot stopped by its context is the context's error. None
// keeps a result file.
func TestMeasureFaults(t *testing.T) {
	kinds := []string{vm.FaultPanic, vm.FaultTimeout, vm.FaultConsole, vm.FaultDied, vm.FaultNoReport, vm.FaultTransfer}
	for _, k := range kinds {
		r := run(t)
		fault := &vm.Fault{Kind: k, Msg: "the guest went wrong: " + k}
		_, err := Measure(context.Background(), (&fake{err: fault}).boot, r)
		var f *Failure
		var vf *vm.Fault
		if !errors.As(err, &f) || f.Kind != Faulted || f.Why != fault.Msg || err.Error() != fault.Msg || f.Report != nil || f.Exit != -1 || !errors.As(err, &vf) || vf.Kind != k {
			t.Errorf("fault %s: %#v, want a Failure of kind %s with the fault", k, err, Faulted)
		}
		if _, err := os.Stat(r.File); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("fault %s: a result file kept: %v", k, err)
		}
	}
	qemu := &vm.Fault{Kind: vm.FaultQEMU, Msg: "QEMU is missing"}
	other := errors.New("lock: cannot open /run/contend/lock")
	for _, e := range []error{qemu, other} {
		_, err := Measure(context.Background(), (&fake{err: e}).boot, run(t))
		var f *Failure
		if err != e || errors.As(err, &f) {
			t.Errorf("%v: %#v, want it as it is", e, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fk := &fake{err: &vm.Fault{Kind: vm.FaultDied, Msg: "the guest died"}, cancel: cancel}
	if _, err := Measure(ctx, fk.boot, run(t)); err != context.Canceled {
		t.Errorf("a boot stopped by Ctrl-C: %v, want the context's error", err)
	}
}

// TestMeasureCommandFailures: a guest that ran its command but gave no
// measurement: exit 2 is a refusal, another status a failure, no result
// file, a result file that cannot be read, or one without a successful
// repetition; each a Failure with the guest's report.
func TestMeasureCommandFailures(t *testing.T) {
	allFailed := resultFile(t, false, results.StatusFailed, results.StatusTimeout)
	onlyWarm := resultFile(t, true, results.StatusOK, results.StatusFailed)
	for _, c := range []struct {
		name string
		exit int
		why  string
		out  []byte
		kind Kind
		text string
		kept bool
	}{
		{"refused", 2, "exit status 2", nil, Refused, "the command was refused in the guest (exit 2: exit status 2)", false},
		{"refused with a file", 2, "exit status 2", allFailed, Refused, "refused", false},
		{"failed", 1, "exit status 1", nil, Failed, "the command failed in the guest (exit 1: exit status 1)", false},
		{"killed", -1, "signal: killed", nil, Failed, "(exit -1: signal: killed)", false},
		{"no result file", 0, "no result file: open /tmp/contend-result.json: no such file or directory", nil, NoResult, "the guest sent no result file (no result file: open", false},
		{"no result file, no word", 0, "", nil, NoResult, "the guest sent no result file ()", false},
		{"an unreadable result file", 0, "", []byte("not json\n"), BadResult, "the guest's result file: ", true},
		{"no successful repetition", 0, "", allFailed, NoRuns, "no successful repetition", true},
		{"a warm-up alone succeeded", 0, "", onlyWarm, NoRuns, "no successful repetition", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := run(t)
			rep := vm.Report{Release: "6.1.0-test", BootID: "b", Exit: c.exit, Error: c.why}
			_, err := Measure(context.Background(), (&fake{res: &vm.Result{Report: rep, Output: c.out}}).boot, r)
			var f *Failure
			if !errors.As(err, &f) || f.Kind != c.kind || f.Exit != c.exit || f.Report == nil || !reflect.DeepEqual(*f.Report, rep) || !strings.Contains(err.Error(), c.text) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("%#v (%v), want a one-line Failure of kind %s with %q", err, err, c.kind, c.text)
			}
			switch c.kind {
			case BadResult:
				if f.Err == nil || f.Why != f.Err.Error() {
					t.Errorf("the read error beneath: %v, %q", f.Err, f.Why)
				}
			case NoRuns:
				if f.File == nil || len(f.File.Reps) != 2 {
					t.Errorf("the file of a measurement without a successful run: %+v", f.File)
				}
			}
			if _, err := os.Stat(r.File); (err == nil) != c.kept {
				t.Errorf("result file kept: %v, want %v", err == nil, c.kept)
			}
		})
	}
}

// TestMeasureResultUnwritable: a result file that cannot be kept on the
// host is an error as it is, not a fault of the guest.
func TestMeasureResultUnwritable(t *testing.T) {
	r := run(t)
	r.File = filepath.Join(r.File, "no", "such", "dir", "b1.jsonl")
	_, err := Measure(context.Background(), (&fake{res: &vm.Result{Output: resultFile(t, false, results.StatusOK)}}).boot, r)
	var f *Failure
	if err == nil || errors.As(err, &f) {
		t.Errorf("%#v, want an error that is not a Failure", err)
	}
}

// TestLockedHoldsTheLock: a guest booted through Locked runs holding the
// machine-wide benchmark lock and lets it go after; with the lock held
// by another benchmark it waits, says who holds it, and boots nothing
// until its context ends; with CONTEND_LOCK=off it takes none.
func TestLockedHoldsTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	t.Setenv("CONTEND_LOCK", path)
	held := 0
	boots := 0
	boot := func(ctx context.Context, g vm.Guest, c vm.Command) (*vm.Result, error) {
		boots++
		if h, ok := lock.Current(path); ok && h.Pid == os.Getpid() {
			held++
		}
		return &vm.Result{}, nil
	}
	b := Locked(boot, nil)
	for range 2 {
		if _, err := b(context.Background(), vm.Guest{}, vm.Command{}); err != nil {
			t.Fatal(err)
		}
	}
	if boots != 2 || held != 2 {
		t.Errorf("%d boots, %d holding the lock", boots, held)
	}
	if _, ok := lock.Current(path); ok {
		t.Error("the lock is held after the boots")
	}

	other, err := lock.Acquire(context.Background(), path, []string{"contend", "run", "mutex"}, lock.Options{NoWait: true})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var notes []string
	b = Locked(boot, func(s string) {
		notes = append(notes, s)
		if strings.HasPrefix(s, "waiting: another benchmark holds "+path) {
			cancel()
		}
	})
	if _, err := b(ctx, vm.Guest{}, vm.Command{}); err == nil || boots != 2 {
		t.Errorf("with the lock held: %v after %d boots, want an error and no boot", err, boots)
	}
	if len(notes) == 0 || !strings.Contains(notes[len(notes)-1], "contend run mutex") {
		t.Errorf("the notices do not name the holder: %q", notes)
	}

	t.Setenv("CONTEND_LOCK", "off")
	if _, err := Locked(boot, nil)(context.Background(), vm.Guest{}, vm.Command{}); err != nil || boots != 3 {
		t.Errorf("without a lock: %v, %d boots", err, boots)
	}
}

// TestMachineCheck: a machine's defaults fit the host; each value out of
// its range is refused in one line naming its flag and the range.
func TestMachineCheck(t *testing.T) {
	host := Host{CPUs: 4, MemMiB: 8192}
	m, err := Machine{}.Check(host)
	if err != nil || m != (Machine{CPUs: DefaultCPUs, MemMiB: vm.DefaultMemMiB, Timeout: vm.DefaultTimeout, Accel: vm.AccelAuto}) {
		t.Errorf("the defaults: %+v, %v", m, err)
	}
	if m, err := (Machine{}).Check(Host{CPUs: 1, MemMiB: 1024}); err != nil || m.CPUs != 1 || m.MemMiB != 512 {
		t.Errorf("the defaults on a small host: %+v, %v", m, err)
	}
	given := Machine{CPUs: 4, MemMiB: 4096, Timeout: 24 * time.Hour, Accel: vm.AccelKVM}
	if m, err := given.Check(host); err != nil || m != given {
		t.Errorf("the largest machine: %+v, %v", m, err)
	}
	for _, c := range []struct {
		m    Machine
		want string
	}{
		{Machine{CPUs: 5}, "--vm-cpus: 5 is not accepted; accepted: 1 to 4 (the host's CPUs)"},
		{Machine{CPUs: -1}, "--vm-cpus: -1 is not accepted; accepted: 1 to 4 (the host's CPUs)"},
		{Machine{MemMiB: 4097}, "--vm-mem: 4097 MiB is not accepted; accepted: 256 MiB to 4096 MiB (half the host's memory, 8192 MiB)"},
		{Machine{MemMiB: 128}, "--vm-mem: 128 MiB is not accepted; accepted: 256 MiB to 4096 MiB (half the host's memory, 8192 MiB)"},
		{Machine{Timeout: time.Second}, "--vm-timeout: 1s is not accepted; accepted: a duration from 10s to 24h0m0s"},
		{Machine{Timeout: 25 * time.Hour}, "--vm-timeout: 25h0m0s is not accepted; accepted: a duration from 10s to 24h0m0s"},
		{Machine{Accel: "xen"}, `--vm-accel: "xen" is not accepted; accepted: auto, kvm, tcg`},
	} {
		if _, err := c.m.Check(host); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %q", c.m, err, c.want)
		}
	}
}
