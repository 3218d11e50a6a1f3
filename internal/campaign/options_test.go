package campaign

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// okOptions returns options NewPlan accepts, in a fresh directory under
// base: sides A and B booted by commands, expecting releases kA and kB.
func okOptions(base string) Options {
	return Options{
		Dir: filepath.Join(base, "kc"),
		Sides: [2]SideOptions{
			{BootCommand: "boot-a", Expect: Expect{Release: "kA"}},
			{BootCommand: "boot-b", Expect: Expect{Release: "kB"}},
		},
		Order:     "abba",
		Settle:    DefaultSettle,
		Command:   []string{"run", "mutex", "-n", "3"},
		Workloads: []string{"faultme", "mutex"},
		Contend:   "/usr/bin/contend",
		Volatile:  func(string) (string, bool, error) { return "", false, nil },
	}
}

// TestNewPlan: accepted options become the plan 'campaign init' writes:
// each way to boot, the reboot command only where one is run after it,
// files made absolute, the order from the pattern and the boots, the
// settling, the command copied, the directory absolute.
func TestNewPlan(t *testing.T) {
	base := t.TempDir()
	kernel, initrd := filepath.Join(base, "vmlinuz"), filepath.Join(base, "initrd.img")
	for _, f := range []string{kernel, initrd} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(base)
	o := okOptions(base)
	o.Dir = "kc"
	o.Sides[0] = SideOptions{Grub: "Debian, with Linux 6.1", Expect: Expect{Release: "6.1", Cmdline: "quiet"}}
	o.Sides[1] = SideOptions{Kexec: "vmlinuz", Initrd: "initrd.img", Append: "ro quiet", Expect: Expect{Version: "#2"}}
	o.Reboot, o.Boots = "reboot -f", 2
	o.Settle = Settle{Min: 0, Max: Duration(time.Minute), Load: 0.5, PSI: 0}
	o.Now = time.Date(2026, 12, 1, 21, 0, 0, 0, time.FixedZone("x", 3600))
	checked := 0
	o.CheckCommand = func(p *Plan) error {
		checked++
		if p.Order != "ABBA" || len(p.Command) != 4 {
			t.Errorf("CheckCommand got a plan without its order or command: %+v", p)
		}
		return nil
	}
	p, err := NewPlan(o)
	if err != nil {
		t.Fatal(err)
	}
	want := &Plan{
		Format: FormatName, Version: FormatVersion, Created: o.Now.UTC(),
		Sides: [2]Side{
			{Label: "A", Boot: Boot{GrubEntry: "Debian, with Linux 6.1", Reboot: "reboot -f"}, Expect: o.Sides[0].Expect},
			{Label: "B", Boot: Boot{Kexec: &Kexec{Kernel: kernel, Initrd: initrd, Cmdline: "ro quiet"}, Reboot: "reboot -f"}, Expect: o.Sides[1].Expect},
		},
		Order: "ABBA", Command: []string{"run", "mutex", "-n", "3"}, Settle: o.Settle,
		Contend: "/usr/bin/contend", Dir: filepath.Join(base, "kc"),
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("plan\n%+v\nwant\n%+v", p, want)
	}
	if checked != 1 {
		t.Errorf("CheckCommand called %d times, want 1", checked)
	}
	o.Command[1] = "changed"
	if p.Command[1] != "mutex" {
		t.Error("the plan's command shares the options' slice")
	}
	// A boot command gets no reboot command (it reboots itself); the
	// defaults: abba of 3 boots a side.
	o = okOptions(base)
	o.Sides[1] = SideOptions{Grub: "1", Expect: Expect{Release: "kB"}}
	o.Reboot, o.Order = "reboot -f", ""
	if p, err = NewPlan(o); err != nil {
		t.Fatal(err)
	}
	if p.Order != "ABBAAB" || p.Sides[0].Boot != (Boot{Command: "boot-a"}) || p.Sides[1].Boot != (Boot{GrubEntry: "1", Reboot: "reboot -f"}) {
		t.Errorf("defaults: order %q, boots %+v %+v", p.Order, p.Sides[0].Boot, p.Sides[1].Boot)
	}
	if p.Created.IsZero() || p.Created.Location() != time.UTC {
		t.Errorf("created %v, want now in UTC", p.Created)
	}
	// An explicit order sets the boots; exec takes any program.
	o.Order, o.Command = "ababbaab", []string{"exec", "-n", "2", "--", "/bin/true", "--out"}
	if p, err = NewPlan(o); err != nil || p.Order != "ABABBAAB" {
		t.Errorf("explicit order: %v, %v", p, err)
	}
}

// TestNewPlanRefuses: every refusal of NewPlan is an *OptionError whose
// one line names the flag (the messages of 'campaign init'), and the
// first problem found is the one reported, in the order init checks.
func TestNewPlanRefuses(t *testing.T) {
	base := t.TempDir()
	dirAsKernel := t.TempDir()
	file := filepath.Join(base, "vmlinuz")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	existing := filepath.Join(base, "old")
	if err := WritePlan(existing, &Plan{Format: FormatName, Version: FormatVersion}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		edit func(o *Options)
		want string
	}{
		{"no directory", func(o *Options) { o.Dir = ""; o.Command = nil }, "campaign init: give the campaign directory, then -- and the contend command to run in each boot"},
		{"control in dir", func(o *Options) { o.Dir = "kc\n[Service]" }, `campaign init: the directory: "kc\n[Service]" is not accepted: it holds a control character (U+000A); accepted: printable text`},
		{"control in command", func(o *Options) { o.Command = []string{"run", "mutex", "--threads", "2\x1b[2J"} }, "campaign init: word 4 of the command: "},
		{"control in b-cmdline", func(o *Options) { o.Sides[1].Expect.Cmdline = "quiet\a" }, "--b-cmdline: "},
		{"control in reboot", func(o *Options) { o.Reboot = "systemctl\rreboot" }, "--reboot-command: "},
		{"control in order", func(o *Options) { o.Order = "ab\tba" }, "--order: "},
		{"existing campaign", func(o *Options) { o.Dir = existing }, "campaign init: " + existing + " already holds a campaign: choose a new directory"},
		{"volatile", func(o *Options) {
			o.Volatile = func(string) (string, bool, error) { return "tmpfs", true, nil }
		}, "is on tmpfs, which a reboot empties: the plan and the ledger would be gone after the first boot; accepted: a directory on a disk (such as under /var/lib)"},
		{"no kernel image", func(o *Options) {
			o.Sides[1] = SideOptions{Kexec: "/nonexistent/vmlinuz", Expect: Expect{Release: "kB"}}
		}, `--b-kexec: "/nonexistent/vmlinuz" is not a kernel image file`},
		{"kernel a directory", func(o *Options) { o.Sides[0] = SideOptions{Kexec: dirAsKernel, Expect: Expect{Release: "kA"}} }, "--a-kexec: "},
		{"no initrd", func(o *Options) {
			o.Sides[0] = SideOptions{Kexec: file, Initrd: "/nonexistent", Expect: Expect{Release: "kA"}}
		}, `--a-initrd: "/nonexistent" is not a file`},
		{"initrd without kexec", func(o *Options) { o.Sides[0].Initrd = "/x" }, "--a-initrd and --a-append go with --a-kexec"},
		{"append without kexec", func(o *Options) { o.Sides[1].Append = "ro" }, "--b-initrd and --b-append go with --b-kexec"},
		{"two ways", func(o *Options) { o.Sides[0].Grub = "x" }, "--a-grub, --a-kexec, --a-boot-command: give exactly one way to boot side A, got 2"},
		{"no way", func(o *Options) { o.Sides[1].BootCommand = "" }, "--b-grub, --b-kexec, --b-boot-command: give exactly one way to boot side B, got 0"},
		{"no expectation", func(o *Options) { o.Sides[0].Expect = Expect{} }, "--a-release, --a-version, --a-cmdline: say what side A's kernel looks like (at least one), so that a wrong boot is caught"},
		{"reboot command unused", func(o *Options) { o.Reboot = "reboot -f" }, "--reboot-command: no side is booted with --a-grub, --b-grub, --a-kexec or --b-kexec, after which it runs"},
		{"same kernel", func(o *Options) { o.Sides[1].Expect = o.Sides[0].Expect }, "the two sides expect the same kernel (release kA)"},
		{"one boot a side", func(o *Options) { o.Boots = 1 }, "--boots: 1 is not accepted: the boot-level test needs two boots a side (the variance between boots is measured from them); accepted: 2 to 100"},
		{"negative boots", func(o *Options) { o.Boots = -1 }, "--boots: -1 is not accepted"},
		{"too many boots", func(o *Options) { o.Boots = 101 }, "--boots: 101 is not accepted; accepted: 2 to 100"},
		{"bad order", func(o *Options) { o.Order = "ABX" }, `--order: "ABX" is not an order`},
		{"one side", func(o *Options) { o.Order = "AAAA" }, "--order: order \"AAAA\" must boot each side at least once"},
		{"one boot of A", func(o *Options) { o.Order = "ABB" }, `--order: "ABB" boots A 1 time and B 2 times: the boot-level test needs two boots a side`},
		{"order and boots", func(o *Options) { o.Order, o.Boots = "ABBAABBA", 2 }, "--order: an explicit sequence sets the boots itself; drop --boots"},
		{"settle-min", func(o *Options) { o.Settle.Min = Duration(2 * time.Hour) }, "--settle-min: 2h is not accepted; accepted: a duration from 0 to 1h"},
		{"settle-max", func(o *Options) { o.Settle.Max = Duration(-time.Second) }, "--settle-max: -1s is not accepted; accepted: a duration from 0 to 24h"},
		{"settle-load", func(o *Options) { o.Settle.Load = -1 }, "--settle-load: -1 is not accepted"},
		{"settle-psi", func(o *Options) { o.Settle.PSI = 101 }, "--settle-psi: 101 is not accepted; accepted: a percentage from 0 to 100"},
		{"max below min", func(o *Options) { o.Settle.Min, o.Settle.Max = Duration(2*time.Minute), Duration(time.Minute) }, "--settle-max: 1m is not accepted: from --settle-min (2m) to 24h"},
		{"no command", func(o *Options) { o.Command = nil }, "campaign init: give the command to run in each boot after --, such as: -- run mutex -n 10"},
		{"not run or exec", func(o *Options) { o.Command = []string{"show", "x.json"} }, `campaign init: the command to run in each boot is a 'run' or an 'exec', not "show"`},
		{"run without workload", func(o *Options) { o.Command = []string{"run", "-n", "3"} }, "campaign init: 'run' needs a workload, such as: -- run mutex -n 10"},
		{"no such workload", func(o *Options) { o.Command = []string{"run", "nosuch"} }, `campaign init: no workload "nosuch"; the workloads: faultme, mutex`},
		{"sets --out", func(o *Options) { o.Command = []string{"run", "mutex", "--out", "x.json"} }, "campaign init: the command must not set --out: each boot's step sets it"},
		{"sets -o=", func(o *Options) { o.Command = []string{"exec", "-o=x.json", "--", "/bin/true"} }, "campaign init: the command must not set -o"},
		{"sets --label=", func(o *Options) { o.Command = []string{"run", "mutex", "--label=x"} }, "campaign init: the command must not set --label"},
	}
	for _, c := range cases {
		o := okOptions(base)
		c.edit(&o)
		p, err := NewPlan(o)
		var oe *OptionError
		if !errors.As(err, &oe) {
			t.Errorf("%s: NewPlan = %+v, %v; want an OptionError", c.name, p, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%s: %q, want one line with %q", c.name, msg, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "kc")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("NewPlan made the directory: %v", err)
	}
}

// TestNewPlanCheckCommand: the command check comes last, its error is
// returned as it is (not an OptionError), and a contend binary with a
// control character, or not absolute, is refused after it.
func TestNewPlanCheckCommand(t *testing.T) {
	o := okOptions(t.TempDir())
	bad := errors.New("would fail in every boot")
	o.CheckCommand = func(*Plan) error { return bad }
	o.Contend = "/bin/contend\nx"
	if _, err := NewPlan(o); err != bad {
		t.Errorf("CheckCommand's error: %v", err)
	}
	o.CheckCommand = nil
	_, err := NewPlan(o)
	var oe *OptionError
	if err == nil || errors.As(err, &oe) || !strings.Contains(err.Error(), "the contend binary (os.Executable)") {
		t.Errorf("contend with a newline: %v", err)
	}
	for _, exe := range []string{"", "contend"} {
		o.Contend = exe
		if _, err := NewPlan(o); err == nil || errors.As(err, &oe) || !strings.Contains(err.Error(), "not an absolute path") {
			t.Errorf("contend %q: %v", exe, err)
		}
	}
	// The package's Volatile is used without one of the options'.
	o = okOptions(t.TempDir())
	o.Volatile = nil
	if _, v, _ := Volatile(o.Dir); !v {
		if _, err := NewPlan(o); err != nil {
			t.Errorf("on a disk: %v", err)
		}
	}
}

// TestInit: 'campaign init' writes the plan NewPlan makes; a directory
// that cannot be made (a file in its way) is an OptionError naming what
// is accepted, and a directory that holds a campaign is refused.
func TestInit(t *testing.T) {
	base := t.TempDir()
	p, err := Init(okOptions(base))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ReadPlan(p.Dir); err != nil || got.Order != p.Order {
		t.Errorf("the plan read back: %+v %v", got, err)
	}
	if _, err := Init(okOptions(base)); err == nil || !strings.Contains(err.Error(), "already holds a campaign") {
		t.Errorf("a second init in %s: %v", p.Dir, err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Init(okOptions(file))
	var oe *OptionError
	if !errors.As(err, &oe) || !strings.HasPrefix(err.Error(), "campaign init: ") || !strings.HasSuffix(err.Error(), "; accepted: a new directory in a writable place") {
		t.Errorf("a directory under a file: %v", err)
	}
}
