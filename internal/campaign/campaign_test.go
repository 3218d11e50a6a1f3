package campaign

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"contend/internal/env"
)

func TestOrder(t *testing.T) {
	for _, c := range []struct {
		pattern string
		n       int
		want    string
	}{
		{"abba", 3, "ABBAAB"}, {"ABBA", 2, "ABBA"}, {"abab", 2, "ABAB"}, {"ABBABAAB", 9, "ABBABAAB"},
	} {
		if got, err := Order(c.pattern, c.n); err != nil || got != c.want {
			t.Errorf("Order(%q, %d) = %q, %v; want %q", c.pattern, c.n, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "ABC", "AAAA", "xyz"} {
		if _, err := Order(bad, 2); err == nil {
			t.Errorf("Order(%q) accepted", bad)
		}
	}
}

func TestExpectMismatch(t *testing.T) {
	k := env.Kernel{Release: "6.1.0-rt", Version: "#1 SMP PREEMPT_RT", Cmdline: "BOOT_IMAGE=/vmlinuz ro quiet mitigations=off"}
	if m := (Expect{Release: "6.1.0-rt", Cmdline: "mitigations=off ro"}).Mismatch(k); m != "" {
		t.Errorf("matching kernel: %q", m)
	}
	m := Expect{Release: "6.2", Version: "#2", Cmdline: "isolcpus=1 quiet"}.Mismatch(k)
	for _, want := range []string{`release "6.1.0-rt"`, `version "#1 SMP PREEMPT_RT"`, "command line lacks isolcpus=1"} {
		if !strings.Contains(m, want) {
			t.Errorf("mismatch %q lacks %q", m, want)
		}
	}
}

func TestBootCommands(t *testing.T) {
	if got := BootCommands(Boot{GrubEntry: "Debian, with Linux 6.1"}); strings.Join(got, " ; ") != "grub-reboot 'Debian, with Linux 6.1' ; systemctl reboot" {
		t.Errorf("grub: %q", got)
	}
	got := BootCommands(Boot{Kexec: &Kexec{Kernel: "/boot/vmlinuz-6.1", Initrd: "/boot/initrd.img-6.1", Cmdline: "ro quiet"}})
	if strings.Join(got, " ; ") != "kexec -l /boot/vmlinuz-6.1 --initrd=/boot/initrd.img-6.1 --command-line='ro quiet' ; systemctl kexec" {
		t.Errorf("kexec: %q", got)
	}
	if got := BootCommands(Boot{Kexec: &Kexec{Kernel: "/k"}, Reboot: "reboot -f"}); got[0] != "kexec -l /k --reuse-cmdline" || got[1] != "reboot -f" {
		t.Errorf("kexec reuse: %q", got)
	}
	if got := BootCommands(Boot{Command: "my-reboot B"}); len(got) != 1 || got[0] != "my-reboot B" {
		t.Errorf("command: %q", got)
	}
}

// TestLedgerTornLine: a line cut by a power cut is skipped when read, and
// the next append starts a fresh line, so no event is lost after it.
func TestLedgerTornLine(t *testing.T) {
	dir := t.TempDir()
	if err := Append(dir, Event{Event: EvStart, Slot: 0, BootID: "b1"}); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(filepath.Join(dir, LedgerFile), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"event":"done","slo`)
	f.Close()
	if err := Append(dir, Event{Event: EvRedo, Slot: 0, BootID: "b2"}); err != nil {
		t.Fatal(err)
	}
	if err := Append(dir, Event{Event: EvStart, Slot: 0, BootID: "b2"}); err != nil {
		t.Fatal(err)
	}
	l, err := ReadLedger(dir)
	if err != nil {
		t.Fatal(err)
	}
	if l.Torn != 1 || len(l.Events) != 3 {
		t.Fatalf("torn %d, events %+v", l.Torn, l.Events)
	}
	if id, open := l.Started(0); !open || id != "b2" {
		t.Errorf("Started(0) = %q, %v; want b2, open", id, open)
	}
	if l.Next(2) != 0 {
		t.Errorf("Next = %d, want 0", l.Next(2))
	}
}

func TestUnitQuoting(t *testing.T) {
	u, err := Unit("/usr/local/bin/contend", "/var/lib/my campaign")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Type=oneshot", `ExecStart=/usr/local/bin/contend campaign step --at-boot "/var/lib/my campaign"`,
		"ConditionPathExists=/var/lib/my campaign/armed", "WantedBy=multi-user.target",
		// Started after the campaign's file system is mounted, stopped
		// before it is unmounted; a stop signals the step alone.
		`RequiresMountsFor="/var/lib/my campaign"` + "\n", "KillMode=mixed\n"} {
		if !strings.Contains(u, want) {
			t.Errorf("unit lacks %q:\n%s", want, u)
		}
	}
}

// TestUnitEscapesSpecifiers: a campaign directory with % and a space gets
// %% wherever systemd expands specifiers, and the unit passes
// systemd-analyze verify without a specifier warning.
func TestUnitEscapesSpecifiers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "k%c d")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	u, err := Unit("/bin/true", dir)
	if err != nil {
		t.Fatal(err)
	}
	esc := strings.ReplaceAll(dir, "%", "%%")
	for _, want := range []string{
		"Description=contend campaign step for \"" + esc + "\"\n",
		"ConditionPathExists=" + esc + "/" + ArmedFile + "\n",
		`ExecStart=/bin/true campaign step --at-boot "` + esc + `"` + "\n",
		`RequiresMountsFor="` + esc + `"` + "\n",
	} {
		if !strings.Contains(u, want) {
			t.Errorf("unit lacks %q:\n%s", want, u)
		}
	}
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Log("no systemd-analyze: the unit is not verified")
		return
	}
	path := filepath.Join(dir, UnitName)
	if err := os.WriteFile(path, []byte(u), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(sa, "verify", path).CombinedOutput()
	if err != nil || strings.Contains(string(out), "pecifier") || strings.Contains(string(out), "not absolute") {
		t.Errorf("systemd-analyze verify %s: %v\n%s", path, err, out)
	}
}

// TestUnitRefusesControlCharacters: a newline in the campaign directory
// (or the binary) would start directives of its own ([Service]
// ExecStartPre=/evil, run as root at every boot): Unit refuses it, and
// every other control character.
func TestUnitRefusesControlCharacters(t *testing.T) {
	for _, c := range []struct{ exe, dir string }{
		{"/bin/contend", "/x/y\n[Service]\nExecStartPre=/evil\n"},
		{"/bin/contend", "/x/y\rz"},
		{"/bin/contend", "/x/\x1b[2Jy"},
		{"/bin/contend\nExecStartPre=/evil", "/x/y"},
		{"/bin/contend", "relative/dir"},
	} {
		u, err := Unit(c.exe, c.dir)
		if err == nil {
			t.Errorf("Unit(%q, %q) accepted:\n%s", c.exe, c.dir, u)
		}
	}
}

// TestUnitBackslashes: a backslash is doubled inside ExecStart's quotes
// (C escapes are decoded there), $ is $$, and a directory that ends in a
// backslash does not end the Description= line with one (which would
// join the next line to it).
func TestUnitBackslashes(t *testing.T) {
	u, err := Unit("/bin/true", `/x/a\nb$HOME\`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`ExecStart=/bin/true campaign step --at-boot "/x/a\\nb$$HOME\\"` + "\n",
		`Description=contend campaign step for "/x/a\nb$HOME\"` + "\n",
	} {
		if !strings.Contains(u, want) {
			t.Errorf("unit lacks %q:\n%s", want, u)
		}
	}
	for _, l := range strings.Split(u, "\n") {
		if strings.HasSuffix(l, `\`) {
			t.Errorf("line ends in a backslash: %q", l)
		}
	}
}
