package campaign

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"contend/internal/esc"
	"contend/internal/kbuild"
	"contend/internal/safefile"
)

// OpenDir returns the absolute campaign directory of arg, the one DIR
// argument of 'campaign SUB'; a bad one is an *OptionError.
func OpenDir(sub, arg string) (string, error) {
	if err := esc.Check("campaign "+sub+": the directory", arg); err != nil {
		return "", refuse("%v", err)
	}
	dir, err := filepath.Abs(arg)
	if err != nil {
		return "", refuse("campaign %s: %v", sub, err)
	}
	if !IsCampaign(dir) {
		return "", refuse("campaign %s: %s is not a campaign directory (no plan.json; create one with 'contend campaign init')", sub, arg)
	}
	return dir, nil
}

// WriteUnitFile writes the systemd unit of the campaign in dir to out
// (default DIR/contend-campaign.service) and says on w how to install it.
// A bad out is an *OptionError.
func WriteUnitFile(w io.Writer, dir, out string) error {
	p, err := ReadPlan(dir)
	if err != nil {
		return err
	}
	if out == "" {
		out = filepath.Join(dir, UnitName)
	} else if !strings.HasSuffix(out, ".service") {
		return refuse("--out: %q is not accepted: a systemd unit file ends in .service", out)
	}
	if err := esc.Check("--out", out); err != nil {
		return refuse("%v", err)
	}
	unit, err := Unit(p.Contend, dir)
	if err != nil {
		return fmt.Errorf("cannot write the unit of %s: %v", dir, err)
	}
	if err := safefile.WriteFile(out, []byte(unit), 0o644); err != nil {
		return fmt.Errorf("cannot write the unit: %v", err)
	}
	fmt.Fprintf(w, "wrote %s; install it with:\n  cp %s /etc/systemd/system/%s && systemctl daemon-reload && systemctl enable %s\n",
		out, out, filepath.Base(out), filepath.Base(out))
	return nil
}

// WriteInit says on w what 'campaign init' planned (p, on machines or
// in guests) and what to do next.
func WriteInit(w io.Writer, p *Plan) {
	dir := p.Dir
	if p.VM != nil {
		fmt.Fprintf(w, "campaign %s: %d boots in the order %s, each a fresh guest (%d vCPUs, %d MiB, accelerator %s) running 'contend %s'\n",
			dir, len(p.Order), p.Order, p.VM.CPUs, p.VM.MemMiB, p.VM.Accel, strings.Join(p.Command, " "))
		for _, s := range p.Sides {
			fmt.Fprintf(w, "  %s: %s (%s)\n", s.Label, s.Boot.VM.Kernel, s.Expect)
		}
		fmt.Fprintf(w, "next: 'contend campaign run %s', then 'contend campaign report %s'\n", dir, dir)
		return
	}
	fmt.Fprintf(w, "campaign %s: %d boots in the order %s, each running 'contend %s'\n", dir, len(p.Order), p.Order, strings.Join(p.Command, " "))
	fmt.Fprintf(w, "  A: %s\n  B: %s\n", p.Sides[0].Expect, p.Sides[1].Expect)
	fmt.Fprintf(w, "next: 'contend campaign unit %s' (install it), 'contend campaign arm %s', then boot side %c and 'contend campaign step %s'\n", dir, dir, p.Order[0], dir)
}

// ShowStatus writes the status of the campaign in dir (WriteStatus)
// and, for one whose kernels contend built, what the builds cost (its
// builds ledger, kbuild.Summary).
func ShowStatus(w io.Writer, dir string) error {
	p, err := ReadPlan(dir)
	if err != nil {
		return err
	}
	led, err := ReadLedger(dir)
	if err != nil {
		return err
	}
	builds, _, err := kbuild.ReadLedger(filepath.Join(dir, kbuild.BuildsFile))
	if err != nil {
		return err
	}
	WriteStatus(w, dir, p, led)
	if s := kbuild.Summarize(builds); s != nil {
		fmt.Fprintln(w, s)
	}
	return nil
}
