// Package campaign runs kernel A against kernel B across reboots: a plan
// (the two sides, how to boot each, what each must look like, the order of
// boots and the contend command to run in each), a step that runs after
// every boot, and an append-only ledger of what happened.
//
// Safety: a step reboots only when the campaign was armed explicitly
// (Arm). Every step consumes the arming when it starts and arms again only
// after its measurement succeeded and the next boot was arranged; a wrong
// kernel, a failed run, a failed boot arrangement or a killed step leave
// the campaign disarmed. Each reboot follows a newly finished boot of the
// plan, so a campaign reboots at most as many times as it has boots: there
// is never a reboot loop.
package campaign

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"contend/internal/env"
	"contend/internal/guest"
	"contend/internal/safefile"
	"contend/internal/vm"
)

// FormatName and FormatVersion identify plan files.
const (
	FormatName    = "contend-campaign"
	FormatVersion = 1
)

// File names inside a campaign directory.
const (
	PlanFile   = "plan.json"
	LedgerFile = "ledger.jsonl"
	ArmedFile  = "armed"
	BootsDir   = "boots"
)

// Plan is a campaign's plan.json.
type Plan struct {
	Format  string    `json:"format"`
	Version int       `json:"version"`
	Created time.Time `json:"created"`
	// Sides are A (the baseline) and B.
	Sides [2]Side `json:"sides"`
	// Order is the side of every boot, such as "ABBAABBA".
	Order string `json:"order"`
	// Command is the contend command run in every boot, without the
	// program name and without --out (the step adds it): ["run", "mutex",
	// "-n", "10"] or ["exec", "-n", "10", "--", "./prog"].
	Command []string `json:"command"`
	Settle  Settle   `json:"settle"`
	// Contend is the contend binary the unit runs.
	Contend string `json:"contend"`
	// VM: every boot is a virtual machine that 'campaign run' starts
	// (vm.go); nil: the boots are this machine's.
	VM *VMPlan `json:"vm,omitempty"`
	// Dir is the campaign directory (absolute) the plan was made for
	// (NewPlan) or read from (ReadPlan); not written.
	Dir string `json:"-"`
}

// Side is one kernel of the comparison.
type Side struct {
	Label  string `json:"label"` // "A" or "B"
	Boot   Boot   `json:"boot"`
	Expect Expect `json:"expect"`
}

// Boot says how to boot a side: exactly one of GrubEntry, Kexec, Command.
type Boot struct {
	// GrubEntry is run as 'grub-reboot ENTRY', then Reboot.
	GrubEntry string `json:"grub_entry,omitempty"`
	// Kexec is loaded with 'kexec -l', then Reboot ('systemctl kexec').
	Kexec *Kexec `json:"kexec,omitempty"`
	// Command is a shell command that arranges the boot and reboots.
	Command string `json:"command,omitempty"`
	// Reboot is the command that reboots after GrubEntry or Kexec.
	Reboot string `json:"reboot,omitempty"`
	// VM is a kernel booted in a virtual machine (a --vm plan).
	VM *guest.Kernel `json:"vm,omitempty"`
}

// Kexec is a kernel image to boot with kexec.
type Kexec struct {
	Kernel  string `json:"kernel"`
	Initrd  string `json:"initrd,omitempty"`
	Cmdline string `json:"cmdline,omitempty"` // empty: --reuse-cmdline
}

// Expect is what the running kernel of a side must be; empty fields are
// not checked. Release and Version must equal uname -r and uname -v;
// every word of Cmdline must be a word of /proc/cmdline.
type Expect struct {
	Release string `json:"release,omitempty"`
	Version string `json:"version,omitempty"`
	Cmdline string `json:"cmdline,omitempty"`
}

// Settle is how a step waits for the machine to settle after a boot:
// at least Min, then until the 1-minute load average is at most Load and
// the CPU pressure (PSI some avg10, %) at most PSI, at most Max in all.
type Settle struct {
	Min  Duration `json:"min"`
	Max  Duration `json:"max"`
	Load float64  `json:"load"`
	PSI  float64  `json:"psi"`
}

// Duration is a time.Duration written as "90s" in JSON.
type Duration time.Duration

// MarshalJSON writes d as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	*d = Duration(v)
	return err
}

// Order returns the order of boots for pattern ("abba", "abab", or an
// explicit sequence of A and B letters) and boots per side.
func Order(pattern string, perSide int) (string, error) {
	p := strings.ToUpper(pattern)
	switch p {
	case "ABBA", "ABAB":
		var b strings.Builder
		for i := 0; i < 2*perSide; i++ {
			b.WriteByte(p[i%4])
		}
		return b.String(), nil
	}
	if p == "" || strings.Trim(p, "AB") != "" {
		return "", fmt.Errorf("%q is not an order: give abba, abab, or a sequence of A and B such as ABBAABBA", pattern)
	}
	if strings.Count(p, "A") < 1 || strings.Count(p, "B") < 1 {
		return "", fmt.Errorf("order %q must boot each side at least once", pattern)
	}
	return p, nil
}

// Side returns the side of a label ("A" or "B").
func (p *Plan) Side(label byte) *Side {
	if label == 'B' {
		return &p.Sides[1]
	}
	return &p.Sides[0]
}

// Check reports what is wrong with a plan.
func (p *Plan) Check() error {
	if p.Format != FormatName {
		return fmt.Errorf("not a contend campaign plan (format %q)", p.Format)
	}
	if p.Version > FormatVersion || p.Version < 1 {
		return fmt.Errorf("campaign plan version %d is not read by this contend (%d)", p.Version, FormatVersion)
	}
	if _, err := Order(p.Order, 0); err != nil {
		return err
	}
	if len(p.Command) == 0 {
		return errors.New("the plan has no command to run")
	}
	for i, s := range p.Sides {
		n := 0
		if s.Boot.GrubEntry != "" {
			n++
		}
		if s.Boot.Kexec != nil {
			n++
		}
		if s.Boot.Command != "" {
			n++
		}
		if s.Boot.VM != nil {
			n++
		}
		if (s.Boot.VM != nil) != (p.VM != nil) {
			return fmt.Errorf("side %c: a plan's boots are all virtual machines (with its vm settings) or none", 'A'+i)
		}
		if n != 1 {
			return fmt.Errorf("side %c: give exactly one way to boot it (a grub entry, a kexec kernel or a reboot command), got %d", 'A'+i, n)
		}
	}
	if p.VM != nil && p.VM.Guest != nil {
		for _, f := range p.VM.Guest.Files {
			if !filepath.IsLocal(f.Name) || !strings.HasPrefix(f.Name, FilesDir+string(filepath.Separator)) {
				return fmt.Errorf("a file for the guests, %q, is not in the campaign's %s/", f.Name, FilesDir)
			}
			if err := vm.CheckGuestPath(f.Guest); err != nil {
				return err
			}
		}
	}
	return nil
}

// Mismatch returns what of kernel k is not what e expects ("release \"X\"",
// the running values: the caller names the expectation), "" when it is.
func (e Expect) Mismatch(k env.Kernel) string {
	var why []string
	if e.Release != "" && e.Release != k.Release {
		why = append(why, fmt.Sprintf("release %q", k.Release))
	}
	if e.Version != "" && e.Version != k.Version {
		why = append(why, fmt.Sprintf("version %q", k.Version))
	}
	if e.Cmdline != "" {
		have := map[string]bool{}
		for _, w := range strings.Fields(k.Cmdline) {
			have[w] = true
		}
		var missing []string
		for _, w := range strings.Fields(e.Cmdline) {
			if !have[w] {
				missing = append(missing, w)
			}
		}
		if len(missing) > 0 {
			why = append(why, fmt.Sprintf("command line lacks %s", strings.Join(missing, " ")))
		}
	}
	return strings.Join(why, "; ")
}

// String describes e: "release 6.1.0-rt, cmdline has mitigations=off".
func (e Expect) String() string {
	var s []string
	if e.Release != "" {
		s = append(s, "release "+e.Release)
	}
	if e.Version != "" {
		s = append(s, "version "+e.Version)
	}
	if e.Cmdline != "" {
		s = append(s, "cmdline has "+e.Cmdline)
	}
	if len(s) == 0 {
		return "any kernel"
	}
	return strings.Join(s, ", ")
}

// WritePlan creates the campaign directory dir with plan p and the files
// of its guests (a --vm plan's VMPlan.Files, from the host's). It refuses
// a directory that already holds a plan; a directory it made is removed
// again when it fails.
func WritePlan(dir string, p *Plan) (err error) {
	if _, err := os.Stat(filepath.Join(dir, PlanFile)); err == nil {
		return fmt.Errorf("%s already holds a campaign (%s): choose a new directory", dir, PlanFile)
	}
	_, serr := os.Lstat(dir)
	made := errors.Is(serr, os.ErrNotExist)
	if err := os.MkdirAll(filepath.Join(dir, BootsDir), 0o755); err != nil {
		return fmt.Errorf("cannot create campaign directory %s: %w", dir, err)
	}
	defer func() {
		if err != nil && made {
			os.RemoveAll(dir)
		}
	}()
	if err := CheckDir(dir); err != nil {
		return err
	}
	if p.VM != nil {
		if err := p.VM.Guest.copyFiles(dir); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return writeSync(filepath.Join(dir, PlanFile), append(b, '\n'))
}

// ReadPlan reads and checks the plan of campaign dir.
func ReadPlan(dir string) (*Plan, error) {
	if err := CheckDir(dir); err != nil {
		return nil, err
	}
	b, err := safefile.ReadFile(filepath.Join(dir, PlanFile), safefile.SelfOrRoot)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s is not a campaign directory (no %s; create one with 'contend campaign init')", dir, PlanFile)
		}
		return nil, err
	}
	p := new(Plan)
	if err := json.Unmarshal(b, p); err != nil {
		return nil, fmt.Errorf("%s: corrupt plan: %v", filepath.Join(dir, PlanFile), err)
	}
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, PlanFile), err)
	}
	p.Dir = dir
	return p, nil
}

// CheckDir refuses a campaign directory that another user could change:
// its plan names the commands a step runs (as root, at boot), so the
// directory must belong to this user or root and be writable by nobody
// else (no group or other write bit).
func CheckDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("cannot read the owner of campaign directory %s", dir)
	}
	if (int(st.Uid) != os.Geteuid() && st.Uid != 0) || fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("campaign directory %s belongs to uid %d with mode %04o: it must belong to this user (or root) and be writable by nobody else, since its plan names what a step runs; chmod go-w it, or use another directory", dir, st.Uid, fi.Mode().Perm())
	}
	return nil
}

// IsCampaign reports whether dir holds a campaign plan.
func IsCampaign(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, PlanFile))
	return err == nil && !st.IsDir()
}

// writeSync writes a file whole or not at all and fsyncs it and its
// directory (safefile.WriteFile: a fresh temporary renamed over path; a
// link there is replaced, never followed).
func writeSync(path string, b []byte) error {
	return safefile.WriteFile(path, b, 0o644)
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
