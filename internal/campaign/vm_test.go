package campaign

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"contend/internal/guest"
	"contend/internal/results"
	"contend/internal/vm"
)

// bzImage writes a file with an x86 boot header naming release r.
func bzImage(t *testing.T, dir, r string) string {
	t.Helper()
	b := make([]byte, 0x1000)
	copy(b[0x202:], "HdrS")
	binary.LittleEndian.PutUint16(b[0x20e:], 0x300)
	copy(b[0x500:], r+" (test) #1 SMP\x00")
	p := filepath.Join(dir, "vmlinuz-"+r)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// vmOptions returns --vm options NewPlan accepts: kernels kA and kB on a
// host of 4 CPUs and 8 GiB.
func vmOptions(t *testing.T, base string) Options {
	o := okOptions(base)
	o.Sides = [2]SideOptions{{Kernel: bzImage(t, base, "6.1.0-kA")}, {Kernel: bzImage(t, base, "6.1.0-kB"), Append: "mitigations=off"}}
	o.VM = &VMOptions{Host: guest.Host{CPUs: 4, MemMiB: 8192}}
	o.Command = []string{"run", "faultme", "-n", "3"}
	return o
}

func TestNewPlanVM(t *testing.T) {
	base := t.TempDir()
	o := vmOptions(t, base)
	p, err := NewPlan(o)
	if err != nil {
		t.Fatal(err)
	}
	if p.VM == nil || p.VM.CPUs != 2 || p.VM.MemMiB != vm.DefaultMemMiB || p.VM.Timeout != vm.DefaultTimeout || p.VM.Accel != vm.AccelAuto || p.VM.SkipFaults || p.VM.Guest != nil {
		t.Errorf("vm plan %+v", p.VM)
	}
	for i, r := range []string{"6.1.0-kA", "6.1.0-kB"} {
		s := p.Sides[i]
		if s.Boot.VM == nil || s.Boot.VM.Kernel != o.Sides[i].Kernel || s.Expect.Release != r || s.Boot.Kexec != nil || s.Boot.Command != "" {
			t.Errorf("side %d: %+v", i, s)
		}
	}
	if p.Sides[1].Boot.VM.Cmdline != "mitigations=off" {
		t.Errorf("side B's command line: %+v", p.Sides[1].Boot.VM)
	}
	if err := p.Check(); err != nil {
		t.Error(err)
	}
	// A/A: the same kernel on both sides is accepted in VMs.
	o = vmOptions(t, t.TempDir())
	o.Sides[1] = o.Sides[0]
	if _, err := NewPlan(o); err != nil {
		t.Errorf("A/A: %v", err)
	}
}

func TestNewPlanVMRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		// The machine's ranges: guest.TestMachineCheck; one of them here,
		// against the host the options name, as an OptionError.
		{"too many vCPUs", func(o *Options) { o.VM.CPUs = 5 }, "--vm-cpus: 5 is not accepted; accepted: 1 to 4 (the host's CPUs)"},
		{"no kernel", func(o *Options) { o.Sides[1].Kernel = "" }, "--b-kernel: give side B's kernel image"},
		{"not a kernel", func(o *Options) { os.WriteFile(o.Sides[0].Kernel, []byte("text"), 0o644) }, "--a-kernel: "},
		{"a missing kernel", func(o *Options) { o.Sides[0].Kernel = "/nonexistent/bzImage" }, `--a-kernel: "/nonexistent/bzImage" is not a kernel image file`},
		{"a grub entry too", func(o *Options) { o.Sides[0].Grub = "x" }, "--a-grub, --a-kexec, --a-boot-command: a --vm campaign boots side A's --a-kernel"},
		{"a wrong release", func(o *Options) { o.Sides[0].Expect.Release = "6.1.0-other" }, `--a-release: "6.1.0-other", but the image of --a-kernel is release "6.1.0-kA"`},
		{"a reboot command", func(o *Options) { o.Reboot = "reboot" }, "--reboot-command: a --vm campaign boots guests"},
		{"a kernel without --vm", func(o *Options) { o.VM = nil; o.Sides[0].BootCommand = "x"; o.Sides[0].Expect.Release = "a" }, "--a-kernel goes with --vm"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := vmOptions(t, t.TempDir())
			c.edit(&o)
			_, err := NewPlan(o)
			var oe *OptionError
			if !errors.As(err, &oe) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want a one-line OptionError with %q", err, c.want)
			}
		})
	}
}

// resultFile returns a complete result file of n successful repetitions
// in boot bootID.
func resultFile(t *testing.T, label, bootID string, n int) []byte {
	t.Helper()
	f := &results.File{Kind: "run", Workload: "faultme", Label: label, Complete: true, Primary: "time",
		Metrics: []results.Metric{{Name: "time", Unit: "ns", Better: "lower"}}, Configs: []results.Config{{}},
		Env: map[string]string{"kernel.boot_id": bootID}}
	for i := 0; i < n; i++ {
		f.Reps = append(f.Reps, results.Rep{Index: i, Status: results.StatusOK, BootID: bootID, Metrics: results.ValuesOf(map[string]float64{"time": 1e6})})
	}
	b, err := results.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fakeBoots is a vm Boot that runs each guest as faults says (by boot
// of the plan, from 0): a fault, the wrong kernel, or a good boot of
// the kernel of its image.
type fakeBoots struct {
	t      *testing.T
	faults map[int]error
	wrong  map[int]bool
	exits  map[int]int // the command's exit status, without a result file
	n      int
	got    []string // the release of every kernel booted
	args   [][]string
	cmds   []vm.Command
}

func (f *fakeBoots) boot(ctx context.Context, g vm.Guest, c vm.Command) (*vm.Result, error) {
	i := f.n
	f.n++
	r, err := vm.KernelRelease(g.Kernel)
	if err != nil {
		return nil, err
	}
	f.got = append(f.got, r)
	f.args = append(f.args, c.Args)
	f.cmds = append(f.cmds, c)
	os.WriteFile(filepath.Join(g.Dir, "console.log"), []byte("Linux version "+r+"\n"), 0o644)
	if err := f.faults[i]; err != nil {
		return nil, err
	}
	if f.wrong[i] {
		r = "6.1.0-wrong"
	}
	id := fmt.Sprintf("guest-boot-%d", i)
	if x, ok := f.exits[i]; ok {
		why := fmt.Sprintf("exit status %d", x)
		if x == 0 {
			why = "no result file: open " + vm.GuestOut + ": no such file or directory"
		}
		return &vm.Result{Accel: vm.AccelTCG, Report: vm.Report{Release: r, BootID: id, Exit: x, Error: why}}, nil
	}
	return &vm.Result{Accel: vm.AccelTCG, CPUs: g.CPUs, MemMiB: g.MemMiB, Report: vm.Report{Release: r, BootID: id},
		Output: resultFile(f.t, "x", id, 3), StartedAfter: time.Second}, nil
}

func TestRunVM(t *testing.T) {
	o := vmOptions(t, t.TempDir())
	o.Boots = 2
	p, err := NewPlan(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := WritePlan(p.Dir, p); err != nil {
		t.Fatal(err)
	}
	f := &fakeBoots{t: t}
	var log strings.Builder
	if err := RunVM(context.Background(), p.Dir, RunVMOptions{Boot: f.boot, Log: &log, Load: func() float64 { return 0.5 }}); err != nil {
		t.Fatal(err)
	}
	want := []string{"6.1.0-kA", "6.1.0-kB", "6.1.0-kB", "6.1.0-kA"}
	if strings.Join(f.got, " ") != strings.Join(want, " ") {
		t.Errorf("booted %v, want the plan's order %v", f.got, want)
	}
	if a := strings.Join(f.args[1], " "); a != "run --out "+vm.GuestOut+" --label B boot 2 faultme -n 3" {
		t.Errorf("boot 2 ran %q", a)
	}
	led, _ := ReadLedger(p.Dir)
	done := led.Done()
	if len(done) != 4 {
		t.Fatalf("%d boots done: %+v", len(done), led.Events)
	}
	for slot, e := range done {
		if e.BootID != fmt.Sprintf("guest-boot-%d", slot) || e.OK != 3 || e.Result != ResultName(slot, p.Order[slot]) {
			t.Errorf("boot %d: %+v", slot+1, e)
		}
		if _, err := results.Read(filepath.Join(p.Dir, e.Result)); err != nil {
			t.Errorf("boot %d: %v", slot+1, err)
		}
		if _, err := os.Stat(filepath.Join(p.Dir, ConsoleDir, fmt.Sprintf("%02d-%c", slot+1, p.Order[slot]), "console.log")); err != nil {
			t.Errorf("boot %d: no console log: %v", slot+1, err)
		}
	}
	// The start event the report reads: the guest's boot, its kernel.
	n := 0
	for _, e := range led.Events {
		if e.Event == EvStart && strings.HasPrefix(e.BootID, "guest-boot-") {
			n++
			if e.Kernel == nil || e.Kernel.Release != want[e.Slot] || e.Settle == nil || e.Settle.Load != 0.5 {
				t.Errorf("start of boot %d: %+v", e.Slot+1, e)
			}
		}
	}
	if n != 4 {
		t.Errorf("%d start events in guests, want 4", n)
	}
	// A boot's cost is from QEMU's start to the command's start.
	if c := led.BootCosts(); len(c) != 4 || c[0] < time.Second || c[0] > 2*time.Second {
		t.Errorf("boot costs %v, want 4 of the guest's 1 s to its command", c)
	}
	// Nothing is left to do: no guest is booted again.
	if err := RunVM(context.Background(), p.Dir, RunVMOptions{Boot: f.boot}); err != nil || f.n != 4 {
		t.Errorf("a second run: %v, %d boots", err, f.n)
	}
	if !strings.Contains(log.String(), "campaign complete: 4 boots done") {
		t.Errorf("log: %s", log.String())
	}
}

// TestVMFiles checks the files every guest gets: refused when a host
// file is missing, a guest path is the guest's own or taken twice, or an
// environment word is not NAME=VALUE; copied into the campaign directory
// by WritePlan (which removes a directory it made when a copy fails);
// read back with the plan; handed to every boot with the environment.
func TestVMFiles(t *testing.T) {
	base := t.TempDir()
	src := filepath.Join(base, "futex4.c")
	if err := os.WriteFile(src, []byte("void testcase(void) {}"), 0o644); err != nil {
		t.Fatal(err)
	}
	withFiles := func(files []GuestFile, env ...string) Options {
		o := vmOptions(t, t.TempDir())
		o.Boots = 2
		o.VM.Files, o.VM.Env = files, env
		return o
	}
	for _, c := range []struct {
		files []GuestFile
		env   []string
		want  string
	}{
		{[]GuestFile{{Host: filepath.Join(base, "none.c"), Guest: "/w/none.c"}}, nil, "is not a regular file"},
		{[]GuestFile{{Host: base, Guest: "/w/d"}}, nil, "is not a regular file"},
		{[]GuestFile{{Host: src, Guest: "/proc/x.c"}}, nil, "the guest's own"},
		{[]GuestFile{{Host: src, Guest: "w/x.c"}}, nil, "an absolute, clean path"},
		{[]GuestFile{{Host: src, Guest: "/w/x.c"}, {Host: src, Guest: "/w/x.c"}}, nil, "two files for /w/x.c"},
		{nil, []string{"NOEQUALS"}, `"NOEQUALS" is not NAME=VALUE`},
		{nil, []string{"1X=y"}, "is not NAME=VALUE"},
	} {
		_, err := NewPlan(withFiles(c.files, c.env...))
		var oe *OptionError
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v %v: error %v, want a one-line OptionError with %q", c.files, c.env, err, c.want)
		}
	}
	o := withFiles([]GuestFile{{Host: src, Guest: "/contend-wis/futex4.c"}}, "CONTEND_WIS_OBJECTS=/contend-wis")
	p, err := NewPlan(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := WritePlan(p.Dir, p); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(p.Dir, FilesDir, "01-futex4.c")); err != nil || string(b) != "void testcase(void) {}" {
		t.Errorf("the copy: %q, %v", b, err)
	}
	rp, err := ReadPlan(p.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if g := rp.VM.Guest; g == nil || len(g.Files) != 1 || g.Files[0] != (VMFile{Name: filepath.Join(FilesDir, "01-futex4.c"), Guest: "/contend-wis/futex4.c"}) || strings.Join(g.Env, " ") != "CONTEND_WIS_OBJECTS=/contend-wis" {
		t.Errorf("read back: %+v", rp.VM.Guest)
	}
	f := &fakeBoots{t: t}
	if err := RunVM(context.Background(), p.Dir, RunVMOptions{Boot: f.boot, Load: func() float64 { return 0 }}); err != nil {
		t.Fatal(err)
	}
	if len(f.cmds) != 4 {
		t.Fatalf("%d boots", len(f.cmds))
	}
	for i, c := range f.cmds {
		if len(c.Files) != 1 || c.Files[0] != (vm.File{Host: filepath.Join(p.Dir, FilesDir, "01-futex4.c"), Guest: "/contend-wis/futex4.c"}) || strings.Join(c.Env, " ") != "CONTEND_WIS_OBJECTS=/contend-wis" {
			t.Errorf("boot %d: files %+v, env %v", i+1, c.Files, c.Env)
		}
	}
	// A plan whose file names leave the campaign's files/ is corrupt.
	rp.VM.Guest.Files[0].Name = "../x"
	if err := rp.Check(); err == nil {
		t.Error("a file outside files/ was accepted")
	}
	// A copy that fails leaves no directory behind.
	o = withFiles([]GuestFile{{Host: src, Guest: "/contend-wis/futex4.c"}})
	p, err = NewPlan(o)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(src)
	if err := WritePlan(p.Dir, p); err == nil {
		t.Fatal("WritePlan copied a file that is gone")
	}
	if _, err := os.Stat(p.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the failed plan's directory is there: %v", err)
	}
}

func TestRunVMStops(t *testing.T) {
	panicked := &vm.Fault{Kind: vm.FaultPanic, Msg: "the guest's kernel panicked: Kernel panic - not syncing: No working init found."}
	for _, c := range []struct {
		name   string
		faults map[int]error
		wrong  map[int]bool
		exits  map[int]int
		skip   bool
		want   string
		done   int
		boots  int // guests booted in all, after a second run
	}{
		{"a panic", map[int]error{1: panicked}, nil, nil, false, "boot 2 (side B): the guest's kernel panicked", 1, 5},
		{"the wrong kernel", nil, map[int]bool{0: true}, nil, false, `boot 1 expects side A (release 6.1.0-kA), but the guest's kernel has release "6.1.0-wrong": stopped`, 0, 5},
		{"a panic skipped", map[int]error{2: panicked}, nil, nil, true, "", 3, 4},
		// A command that fails is no fault of the guest: never skipped.
		{"the command fails", nil, nil, map[int]int{1: 1}, true, "boot 2 (side B): 'contend run --out " + vm.GuestOut + " --label B boot 2 faultme -n 3' failed in the guest (exit 1: exit status 1); see ", 1, 5},
		{"the command is refused", nil, nil, map[int]int{0: 2}, false, "boot 1 (side A): 'contend run --out " + vm.GuestOut + " --label A boot 1 faultme -n 3' failed in the guest (exit 2: exit status 2); see ", 0, 5},
		{"no result file", nil, nil, map[int]int{3: 0}, false, "boot 4 (side A): the guest sent no result file (no result file: open " + vm.GuestOut + ": no such file or directory); see ", 3, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := vmOptions(t, t.TempDir())
			o.Boots = 2
			o.VM.SkipFaults = c.skip
			p, err := NewPlan(o)
			if err != nil {
				t.Fatal(err)
			}
			WritePlan(p.Dir, p)
			f := &fakeBoots{t: t, faults: c.faults, wrong: c.wrong, exits: c.exits}
			var log strings.Builder
			err = RunVM(context.Background(), p.Dir, RunVMOptions{Boot: f.boot, Log: &log})
			if c.want != "" {
				if !errors.Is(err, ErrStopped) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
					t.Errorf("error %v, want a one-line stop with %q", err, c.want)
				}
			} else if err != nil {
				t.Errorf("error %v", err)
			}
			led, _ := ReadLedger(p.Dir)
			if len(led.Done()) != c.done {
				t.Errorf("%d boots done, want %d", len(led.Done()), c.done)
			}
			var sk []Event
			for _, e := range led.Events {
				if e.Event == EvSkipped {
					sk = append(sk, e)
				}
			}
			if c.skip && c.want == "" {
				if len(sk) != 1 || sk[0].Slot != 2 || !strings.Contains(sk[0].Message, "panicked") || !strings.Contains(log.String(), "1 boot skipped") {
					t.Errorf("skipped: %+v; log %s", sk, log.String())
				}
			} else if len(sk) != 0 {
				t.Errorf("skipped: %+v", sk)
			}
			// Run again: the stopped boot is redone, the done ones
			// are not; a skipped one is never redone.
			f.faults, f.wrong, f.exits = nil, nil, nil
			if err := RunVM(context.Background(), p.Dir, RunVMOptions{Boot: f.boot}); err != nil {
				t.Fatal(err)
			}
			if f.n != c.boots {
				t.Errorf("%d guests in all, want %d", f.n, c.boots)
			}
		})
	}
}

func TestStepRefusesVMPlan(t *testing.T) {
	o := vmOptions(t, t.TempDir())
	p, _ := NewPlan(o)
	WritePlan(p.Dir, p)
	if err := Step(context.Background(), p.Dir, StepOptions{}); err == nil || !strings.Contains(err.Error(), "'contend campaign run") {
		t.Errorf("a step of a --vm campaign: %v", err)
	}
	if err := RunVM(context.Background(), t.TempDir(), RunVMOptions{}); err == nil {
		t.Error("RunVM of no campaign")
	}
}

// TestWriteInitVM: what 'campaign init --vm' says of its plan: the boots,
// the guest, each side's kernel, and to run it from this machine.
func TestWriteInitVM(t *testing.T) {
	p, err := NewPlan(vmOptions(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	WriteInit(&b, p)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], fmt.Sprintf("each a fresh guest (2 vCPUs, %d MiB, accelerator auto) running 'contend run faultme -n 3'", vm.DefaultMemMiB)) ||
		!strings.HasPrefix(lines[1], "  A: "+p.Sides[0].Boot.VM.Kernel+" (") || !strings.HasPrefix(lines[2], "  B: "+p.Sides[1].Boot.VM.Kernel) ||
		lines[3] != "next: 'contend campaign run "+p.Dir+"', then 'contend campaign report "+p.Dir+"'" {
		t.Errorf("campaign init --vm said:\n%s", b.String())
	}
}

// TestVMPlanJSON: the guest's machine of a --vm plan is written in
// plan.json as it always was (the timeout a duration string, in the
// fields' order) and read back whole.
func TestVMPlanJSON(t *testing.T) {
	p := VMPlan{Machine: guest.Machine{CPUs: 2, MemMiB: 1024, Timeout: 10 * time.Minute, Accel: vm.AccelAuto}, SkipFaults: true,
		Guest: &GuestSetup{Files: []VMFile{{Name: "files/01-x.c", Guest: "/w/x.c"}}, Env: []string{"A=b"}}}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"cpus":2,"mem_mib":1024,"timeout":"10m0s","accel":"auto","skip_faults":true,"guest":{"files":[{"name":"files/01-x.c","guest":"/w/x.c"}],"env":["A=b"]}}`
	if string(b) != want {
		t.Errorf("the plan's vm:\n%s\nwant\n%s", b, want)
	}
	var back VMPlan
	if err := json.Unmarshal(b, &back); err != nil || back.Machine != p.Machine || !back.SkipFaults || back.Guest == nil || len(back.Guest.Files) != 1 || back.Guest.Env[0] != "A=b" {
		t.Errorf("read back: %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"cpus":1,"mem_mib":512,"timeout":90,"accel":"tcg"}`), &back); err == nil {
		t.Error("a timeout that is not a duration string was read")
	}
}
