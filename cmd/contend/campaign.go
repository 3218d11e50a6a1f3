package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/campaign"
	"contend/internal/esc"
	"contend/internal/plural"
	"contend/internal/report"
	"contend/internal/results"
	"contend/internal/safefile"
	"contend/internal/value"
	"contend/internal/workload"
)

// initFlags are the flags of 'campaign init', each bound to what it
// fills: a field of opt, or a typed value read into opt once the flags
// are parsed (options).
type initFlags struct {
	opt                   campaign.Options
	boots                 value.Int
	settleMin, settleMax  value.Duration
	settleLoad, settlePSI value.Float
}

// newInitFlags returns the flags of 'campaign init' and what they fill.
func newInitFlags() (*initFlags, []cli.Flag) {
	d := campaign.DefaultSettle
	f := &initFlags{
		boots:      value.Int{N: campaign.DefaultBoots, Min: 1, Max: campaign.MaxBoots},
		settleMin:  value.Duration{D: time.Duration(d.Min), Max: campaign.MaxSettleMin, Zero: true},
		settleMax:  value.Duration{D: time.Duration(d.Max), Max: campaign.MaxSettleMax, Zero: true},
		settleLoad: value.Float{X: d.Load, Max: math.Inf(1), Accepted: "a load average, 0 or more, such as 1"},
		settlePSI:  value.Float{X: d.PSI, Max: campaign.MaxPSI, Accepted: "a percentage from 0 to 100"},
	}
	flags := append(sideFlags("a", &f.opt.Sides[0]), sideFlags("b", &f.opt.Sides[1])...)
	return f, append(flags,
		&cli.StringFlag{Name: "reboot-command", Destination: &f.opt.Reboot, Usage: "the reboot after grub-reboot or kexec -l (default systemctl reboot, systemctl kexec)"},
		newFlag("boots", &f.boots, "boots per side, 2 to 100 (the boot-level test needs two a side)"),
		&cli.StringFlag{Name: "order", Value: "abba", Destination: &f.opt.Order, Usage: "order of the boots: abba, abab, or a sequence such as ABBABAAB"},
		newFlag("settle-min", &f.settleMin, "wait at least this long after a boot"),
		newFlag("settle-max", &f.settleMax, "wait at most this long for the load to settle"),
		newFlag("settle-load", &f.settleLoad, "settled when the 1-minute load average is at most this"),
		newFlag("settle-psi", &f.settlePSI, "and the CPU pressure (PSI some avg10) at most this many %"),
	)
}

// sideFlags returns the flags of side s ("a" or "b"), which fill so.
func sideFlags(s string, so *campaign.SideOptions) []cli.Flag {
	S := strings.ToUpper(s)
	return []cli.Flag{
		&cli.StringFlag{Name: s + "-grub", Destination: &so.Grub, Usage: "boot side " + S + " with 'grub-reboot ENTRY' (a menu entry title or index)"},
		&cli.StringFlag{Name: s + "-kexec", Destination: &so.Kexec, Usage: "boot side " + S + " with kexec: the kernel image"},
		&cli.StringFlag{Name: s + "-initrd", Destination: &so.Initrd, Usage: "the initrd of --" + s + "-kexec"},
		&cli.StringFlag{Name: s + "-append", Destination: &so.Append, Usage: "the command line of --" + s + "-kexec (default: the running one's)"},
		&cli.StringFlag{Name: s + "-boot-command", Destination: &so.BootCommand, Usage: "boot side " + S + " with this shell command (it must arrange the boot and reboot)"},
		&cli.StringFlag{Name: s + "-release", Destination: &so.Expect.Release, Usage: "side " + S + "'s expected uname -r"},
		&cli.StringFlag{Name: s + "-version", Destination: &so.Expect.Version, Usage: "side " + S + "'s expected uname -v"},
		&cli.StringFlag{Name: s + "-cmdline", Destination: &so.Expect.Cmdline, Usage: "words side " + S + "'s /proc/cmdline must have"},
	}
}

// options returns the campaign options of the parsed command c.
func (f *initFlags) options(c *cli.Context) campaign.Options {
	o := f.opt
	if args := c.Args().Slice(); len(args) > 0 {
		o.Dir, o.Command = args[0], args[1:]
	}
	if c.IsSet("boots") {
		o.Boots = f.boots.N
	}
	o.Settle = campaign.Settle{Min: campaign.Duration(f.settleMin.D), Max: campaign.Duration(f.settleMax.D), Load: f.settleLoad.X, PSI: f.settlePSI.X}
	o.Workloads, o.Volatile = workload.Names(), volatileFS
	o.CheckCommand = func(p *campaign.Plan) error { return validatePlanCommand(c, p) }
	return o
}

func campaignCommand() *cli.Command {
	initf, initFlagList := newInitFlags()
	init := &cli.Command{
		Name:      "init",
		Usage:     "write a campaign's plan: two kernels, the order of boots, the command to run in each",
		ArgsUsage: "DIR [flags] -- run|exec ARGS...",
		Description: `Writes DIR/plan.json. Each side is booted one of three ways: --a-grub ENTRY
(grub-reboot, then --reboot-command, default 'systemctl reboot'),
--a-kexec IMAGE [--a-initrd F] [--a-append CMDLINE] (kexec -l, then
'systemctl kexec'), or --a-boot-command 'SHELL COMMAND' (any command that
arranges the boot and reboots). Each side names what its kernel must look
like: --a-release (uname -r), --a-version (uname -v), --a-cmdline (words of
/proc/cmdline); at least one per side, and the two sides must differ.

DIR must be on a disk: a directory on tmpfs or ramfs (emptied by the first
reboot) is refused. Each side needs two boots at least (--boots 2 or more):
the boot-level test measures the variance between boots from them.

The command after -- is what every boot runs: a 'contend run' (built-in
workloads and plugins) or 'contend exec', with its runs per boot; the step
adds --out and --label. init checks its arguments as the step will run
them, so a plan that could only fail after a reboot is refused at once.
DIR must be yours (or root's) and writable by nobody else, since its plan
says what the step runs as root at boot; no argument may hold a control
character (a newline, an escape sequence).

Example (an ABBA campaign of 6 boots, 10 runs per boot):
   contend campaign init kc --boots 3 \
     --a-grub 'Debian, with Linux 6.1.0-rt' --a-release 6.1.0-rt \
     --b-grub 'Debian, with Linux 6.1.0-rt+patch' --b-release 6.1.0-rt+patch \
     -- run mutex --threads 4 -n 10`,
		Flags:  initFlagList,
		Action: func(c *cli.Context) error { return campaignInit(c, initf) },
	}
	dirOnly := func(name, usage, desc string, action cli.ActionFunc, flags ...cli.Flag) *cli.Command {
		return &cli.Command{Name: name, Usage: usage, ArgsUsage: "DIR", Description: desc, Flags: flags, Action: action}
	}
	return &cli.Command{
		Name:  "campaign",
		Usage: "kernel A against kernel B across reboots: plan, step after each boot, report",
		Description: `A campaign compares two kernels with the boot as the unit: runs from one
boot are not independent samples of a kernel. The workflow:

   contend campaign init DIR ... -- run WORKLOAD -n 10   the plan
   contend campaign unit DIR                           the systemd unit (install it)
   contend campaign arm DIR                            allow the step to reboot
   contend campaign step DIR                           boot 1, then reboots into boot 2 ...
   contend campaign status DIR
   contend campaign report DIR                         (= contend compare DIR)

The step checks that the running kernel is the one the plan expects for
the next boot (a mismatch stops the campaign and never reboots), waits for
the machine to settle (load and CPU pressure, recorded), runs the command,
appends to DIR/ledger.jsonl (append-only, fsynced: readable after a power
cut), and, only when the campaign is armed, arranges the next boot and
reboots. Each step that has a boot to run disarms the campaign when it
starts and arms it again only after it succeeded, just before the reboot:
after any failure, a kill or a power cut the campaign is disarmed, so there
is never a reboot loop. A step with nothing to do (this boot already ran its
boot of the plan, its reboot pending; or the campaign is complete) leaves
the arming alone, so the next boot's step still runs.

The point of no return is arming again and logging 'reboot'. The reboot
command then runs in a session of its own and is never killed by the step.
From then on a signal to the step (SIGTERM from the unit's stop, SIGHUP from
a closed terminal or a stopped getty or session, SIGINT) or the reboot
command's end by one is the shutdown that the reboot started: the ledger
says 'rebooting' with the signal's name, the campaign stays armed, the step
exits 0. Before it, SIGHUP, SIGINT and SIGTERM stop the step (while
settling, running or arranging the next boot) with a 'failed' line naming
the signal, disarmed. A reboot command that fails by itself disarms the
campaign, filed under the boot it was to start. Every way a step that ran
ends is in the ledger: done (not armed), complete, mismatch, failed, reboot,
rebooting; a SIGKILL or a power cut leaves a 'start' without its end, which
the next step redoes. The unit has RequiresMountsFor=DIR (the shutdown stops the step before
unmounting DIR) and KillMode=mixed (a stop signals the step alone, which
records it and exits).

An interrupted step (killed, or a power cut: a 'start' in the ledger
without its 'done') is redone by the next step, in whatever boot runs it
with the expected kernel; its partial result file, when it made one, is kept
aside as boots/NN-S.interrupted-K.json and not analysed (the 'redo' line
names it). The result files are facts the ledger must not contradict: when
the next boot has no 'start' in the ledger (it was emptied, cut, restored
from an old copy) but its boots/NN-S.json exists, a complete run with that
boot's label and a successful repetition is recorded as done (with the boot
it ran in), and anything else is kept aside as boots/NN-S.unrecorded-K.json
and the boot measured again. A step holds DIR/step.lock while it lives: a
second step of the same campaign is refused, and a killed step's run is
stopped with it.

'campaign status' lists each boot (done, to do, stopped, interrupted, its
reboot requested or under way), the arming and the last stop while it still
holds; a finished campaign says 'complete'.

A workload must mean the same on both kernels: 'faultme --thp never' holds
on a kernel without THP (noted 'thp: not built'); without --thp a kernel
with THP 'always' maps the huge zero page, and the report warns, before its
headline, when THP differs between the sides.

The report takes the boot as the unit: its headline and the verdict of every
metric are Student's t on the per-boot means, in every format; a per-boot
table gives each boot's side, kernel, runs, median, spread, settling and
load; the pooled runs follow as a description. The next campaign it
recommends fits the time this one took (the boot cost measured from the
ledger, settling included), or says by how much it does not.`,
		Subcommands: []*cli.Command{
			init,
			dirOnly("step", "run the campaign's next boot: check the kernel, settle, run, record, reboot if armed",
				"--at-boot (the unit's mode): do nothing unless the campaign is armed.", campaignStep,
				&cli.BoolFlag{Name: "at-boot", Usage: "do nothing unless the campaign is armed (the systemd unit's mode)"}),
			dirOnly("arm", "allow the campaign's steps to reboot the machine", "", campaignArm),
			dirOnly("disarm", "stop the campaign's steps from rebooting", "", campaignDisarm),
			dirOnly("unit", "write the systemd oneshot unit that runs the step at boot",
				`Writes DIR/contend-campaign.service (or --out) and prints how to install it.`, campaignUnit,
				&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "unit file to write (default DIR/contend-campaign.service)"}),
			dirOnly("status", "show a campaign's progress", "", campaignStatus),
			dirOnly("report", "the boot-level comparison of a campaign (also 'contend compare DIR')",
				"The comparison of 'contend compare' with the boot as the unit (headline, verdicts, per-boot table; the pooled runs as a description); --plot draws each boot's runs, A and B coloured.", campaignReportAction,
				&cli.StringFlag{Name: "plot", Usage: "also draw each boot's runs to this .svg or .png"},
				compareFormatFlag(), allFlag()),
		},
	}
}

// volatileFS tells whether a directory is on a file system a reboot
// empties (campaign.Volatile); tests whose temporary directory is on tmpfs
// replace it.
var volatileFS = campaign.Volatile

// campaignDir returns the one DIR argument of a campaign subcommand, a
// directory that holds a campaign.
func campaignDir(c *cli.Context) (string, error) {
	if c.NArg() != 1 {
		return "", usagef("campaign %s: give one campaign directory, got %d arguments", c.Command.Name, c.NArg())
	}
	if err := esc.Check("campaign "+c.Command.Name+": the directory", c.Args().First()); err != nil {
		return "", usagef("%v", err)
	}
	dir, err := filepath.Abs(c.Args().First())
	if err != nil {
		return "", usagef("campaign %s: %v", c.Command.Name, err)
	}
	if !campaign.IsCampaign(dir) {
		return "", usagef("campaign %s: %s is not a campaign directory (no plan.json; create one with 'contend campaign init')", c.Command.Name, c.Args().First())
	}
	return dir, nil
}

// campaignInit writes the plan of 'campaign init': its flags are the
// campaign.Options, which campaign.NewPlan checks.
func campaignInit(c *cli.Context, f *initFlags) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	o := f.options(c)
	o.Contend = exe
	p, err := campaign.NewPlan(o)
	var oe *campaign.OptionError
	if errors.As(err, &oe) {
		return &usageError{oe.Error()}
	} else if err != nil {
		return err
	}
	if err := campaign.WritePlan(p.Dir, p); err != nil {
		// A directory that cannot be made (a file in the way, a parent
		// that does not exist on a read-only or virtual file system) is
		// the user's path, refused as such.
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Op == "mkdir" {
			return &usageError{"campaign init: " + err.Error() + "; accepted: a new directory in a writable place"}
		}
		return err
	}
	w, dir := c.App.Writer, p.Dir
	fmt.Fprintf(w, "campaign %s: %d boots in the order %s, each running 'contend %s'\n", dir, len(p.Order), p.Order, strings.Join(p.Command, " "))
	fmt.Fprintf(w, "  A: %s\n  B: %s\n", p.Sides[0].Expect, p.Sides[1].Expect)
	fmt.Fprintf(w, "next: 'contend campaign unit %s' (install it), 'contend campaign arm %s', then boot side %c and 'contend campaign step %s'\n", dir, dir, p.Order[0], dir)
	return nil
}

// validatePlanCommand runs the plan's command in-process through the
// same parsing and validation as 'contend run' or 'contend exec', with a
// context already cancelled and the step's arguments (--out in a scratch
// directory): a bad
// argument fails as it would after a reboot (a usage error), a good
// command stops before its first repetition. Nothing else is written.
func validatePlanCommand(c *cli.Context, p *campaign.Plan) error {
	scratch, err := os.MkdirTemp("", "contend-campaign-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	args := append([]string{"contend"}, campaign.RunArgs(p, 0, p.Order[0], filepath.Join(scratch, "check.json"))...)
	app := newApp(io.Discard, io.Discard)
	app.Metadata = map[string]any{}
	ctx, cancel := context.WithCancel(c.Context)
	cancel()
	err = runArgs(ctx, app, args)
	var ue *usageError
	var we *workload.UsageError
	var ec cli.ExitCoder
	switch {
	case errors.As(err, &ue), errors.As(err, &we):
	case errors.As(err, &ec) && ec.ExitCode() == exitUsage:
	default:
		return nil
	}
	return usagef("campaign init: the command 'contend %s' would fail in every boot: %v", strings.Join(p.Command, " "), err)
}

func campaignStep(c *cli.Context) error {
	dir, err := campaignDir(c)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	// SIGHUP, SIGINT and SIGTERM are caught for the whole step, each
	// recorded in the ledger by name: a stop before the reboot, the
	// reboot under way after it.
	ctx, stop := campaign.WithSignals(c.Context)
	defer stop()
	err = campaign.Step(ctx, dir, campaign.StepOptions{AtBoot: c.Bool("at-boot"), Exe: exe, Log: c.App.Writer})
	if errors.Is(err, campaign.ErrStopped) || errors.Is(err, campaign.ErrBusy) {
		return cli.Exit(err.Error(), exitFailure)
	}
	return err
}

func campaignArm(c *cli.Context) error {
	dir, err := campaignDir(c)
	if err != nil {
		return err
	}
	if err := campaign.Arm(dir); err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "campaign %s armed: its steps may reboot this machine ('contend campaign disarm %s' to stop)\n", dir, dir)
	return nil
}

func campaignDisarm(c *cli.Context) error {
	dir, err := campaignDir(c)
	if err != nil {
		return err
	}
	if err := campaign.Disarm(dir, "campaign disarm"); err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "campaign %s disarmed: no step will reboot\n", dir)
	return nil
}

func campaignUnit(c *cli.Context) error {
	dir, err := campaignDir(c)
	if err != nil {
		return err
	}
	p, err := campaign.ReadPlan(dir)
	if err != nil {
		return err
	}
	out := c.String("out")
	if out == "" {
		out = filepath.Join(dir, campaign.UnitName)
	} else if !strings.HasSuffix(out, ".service") {
		return usagef("--out: %q is not accepted: a systemd unit file ends in .service", out)
	}
	if err := esc.Check("--out", out); err != nil {
		return usagef("%v", err)
	}
	unit, err := campaign.Unit(p.Contend, dir)
	if err != nil {
		return fmt.Errorf("cannot write the unit of %s: %v", dir, err)
	}
	if err := safefile.WriteFile(out, []byte(unit), 0o644); err != nil {
		return fmt.Errorf("cannot write the unit: %v", err)
	}
	fmt.Fprintf(c.App.Writer, "wrote %s; install it with:\n  cp %s /etc/systemd/system/%s && systemctl daemon-reload && systemctl enable %s\n",
		out, out, filepath.Base(out), filepath.Base(out))
	return nil
}

func campaignStatus(c *cli.Context) error {
	dir, err := campaignDir(c)
	if err != nil {
		return err
	}
	p, err := campaign.ReadPlan(dir)
	if err != nil {
		return err
	}
	led, err := campaign.ReadLedger(dir)
	if err != nil {
		return err
	}
	w := c.App.Writer
	done := led.Done()
	latest := led.Latest()
	next := led.Next(len(p.Order))
	fmt.Fprintf(w, "campaign %s: %d of %d boots done (order %s)\n", dir, len(done), len(p.Order), p.Order)
	fmt.Fprintf(w, "  A: %s\n  B: %s\n  each boot: contend %s\n", p.Sides[0].Expect, p.Sides[1].Expect, strings.Join(p.Command, " "))
	for i := range p.Order {
		mark := "  "
		line := "to do"
		id, started := led.Started(i)
		if e, ok := done[i]; ok {
			line = fmt.Sprintf("done in boot %s, %s, %s", shortID(e.BootID), plural.N(e.OK, "run", "runs"), e.Result)
		} else if e, ok := latest[i]; ok && (e.Event == campaign.EvFailed || e.Event == campaign.EvMismatch) {
			line = fmt.Sprintf("stopped (%s in boot %s)", e.Event, shortID(e.BootID))
			if started {
				line += ": will be redone"
			}
		} else if started {
			line = fmt.Sprintf("interrupted (started in boot %s): will be redone", shortID(id))
		} else if ok && e.Event == campaign.EvReboot {
			line = fmt.Sprintf("to do: the step of boot %s rebooted into it", shortID(e.BootID))
		} else if ok && e.Event == campaign.EvRebooting {
			line = fmt.Sprintf("to do: the step of boot %s rebooted into it (the reboot was under way when that step ended)", shortID(e.BootID))
		}
		if i == next {
			mark = "->"
		}
		fmt.Fprintf(w, "  %s boot %d  %c  %s\n", mark, i+1, p.Order[i], line)
	}
	if next == len(p.Order) {
		// Nothing is left to do: no advice about arming or an earlier
		// stop applies any more.
		fmt.Fprintf(w, "complete: all %s done; 'contend campaign report %s'\n", plural.N(len(p.Order), "boot", "boots"), dir)
		if campaign.IsArmed(dir) {
			fmt.Fprintf(w, "still armed, but no step reboots a complete campaign ('contend campaign disarm %s' to tidy up)\n", dir)
		}
	} else {
		if campaign.IsArmed(dir) {
			fmt.Fprintln(w, "armed: the step reboots after each boot")
		} else {
			fmt.Fprintln(w, "not armed: no step reboots ('contend campaign arm' to allow it)")
		}
		if e, ok := lastStop(led); ok {
			fmt.Fprintf(w, "last stop (%s): %s\n", e.Time.Format(time.RFC3339), e.Message)
		}
	}
	if led.Torn > 0 {
		fmt.Fprintf(w, "ledger: %s ignored (written during a power cut)\n", plural.N(led.Torn, "unreadable line", "unreadable lines"))
	}
	return nil
}

// lastStop returns the last stop (a mismatch or a failure) of the ledger
// while it still holds: no step began, finished, redid or rebooted into a
// boot after it.
func lastStop(led *campaign.Ledger) (campaign.Event, bool) {
	for i := len(led.Events) - 1; i >= 0; i-- {
		switch e := led.Events[i]; e.Event {
		case campaign.EvMismatch, campaign.EvFailed:
			return e, true
		case campaign.EvStart, campaign.EvDone, campaign.EvRedo, campaign.EvReboot, campaign.EvRebooting, campaign.EvComplete:
			return campaign.Event{}, false
		}
	}
	return campaign.Event{}, false
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// campaignReport makes 'contend compare DIR' the campaign report.
func campaignReport(c *cli.Context, dir string, opt report.CompareOptions, format string) error {
	return writeCampaignReport(c, dir, opt, format, "")
}

func campaignReportAction(c *cli.Context) error {
	dir, err := campaignDir(c)
	if err != nil {
		return err
	}
	format := c.String("format") // one of report.CompareFormats (its value.Enum)
	plot := c.String("plot")
	if plot != "" {
		switch strings.ToLower(filepath.Ext(plot)) {
		case ".svg", ".png":
		default:
			return usagef("--plot: %q has an unknown image format %q; accepted: .svg, .png", plot, filepath.Ext(plot))
		}
	}
	return writeCampaignReport(c, dir, report.CompareOptions{Alpha: 0.05}, format, plot)
}

func writeCampaignReport(c *cli.Context, dir string, opt report.CompareOptions, format, plot string) error {
	p, err := campaign.ReadPlan(dir)
	if err != nil {
		return &usageError{err.Error()}
	}
	led, err := campaign.ReadLedger(dir)
	if err != nil {
		return err
	}
	var sides [2]report.Side
	var files []string
	order := ""
	slots := []int{}
	for s := range led.Done() {
		slots = append(slots, s)
	}
	sort.Ints(slots)
	for _, s := range slots {
		e := led.Done()[s]
		path := filepath.Join(dir, e.Result)
		f, err := results.Read(path)
		if err != nil {
			return err
		}
		i := 0
		if p.Order[s] == 'B' {
			i = 1
		}
		sides[i].Parts = append(sides[i].Parts, report.Part{Name: e.Result, File: f, Configs: []int{0}})
		files = append(files, path)
		order += string(p.Order[s])
	}
	if len(sides[0].Parts) == 0 || len(sides[1].Parts) == 0 {
		return usagef("campaign %s: no finished boot of side %s yet: nothing to compare ('contend campaign status %s')", dir, map[bool]string{true: "A", false: "B"}[len(sides[0].Parts) == 0], dir)
	}
	sides[0].Name, sides[1].Name = "A: "+p.Sides[0].Expect.String(), "B: "+p.Sides[1].Expect.String()
	if opt.BootCost == 0 {
		if costs := led.BootCosts(); len(costs) > 0 {
			sort.Slice(costs, func(i, j int) bool { return costs[i] < costs[j] })
			opt.BootCost, opt.BootCostMeasured = costs[len(costs)/2], true
		}
	}
	opt.BootInfo = campaignBootInfo(led)
	r, err := report.BuildComparison(sides[:], opt)
	if err != nil {
		if errors.Is(err, report.ErrIncompatible) {
			return &usageError{err.Error()}
		}
		return err
	}
	if format == "lkml" {
		err = writeLKML(c.App.Writer, sides[:], r, c.Bool("all"))
	} else {
		err = r.Write(c.App.Writer, format)
	}
	if err != nil {
		return err
	}
	if plot == "" {
		return nil
	}
	helper, err := helperPath()
	if err != nil {
		return err
	}
	args := append([]string{"--out", plot, "--boots", order}, files...)
	cmd := exec.Command(helper, args...)
	cmd.Stdout, cmd.Stderr = c.App.Writer, c.App.ErrWriter
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 {
			return cli.Exit("", ee.ExitCode())
		}
		return fmt.Errorf("campaign report: running %s: %v", helper, err)
	}
	fmt.Fprintf(c.App.Writer, "\nplot: %s\n", plot)
	return nil
}

// campaignBootInfo returns what the ledger knows of each finished boot,
// by boot id: its slot and the settling of its step (the last start
// event of the slot in that boot).
func campaignBootInfo(led *campaign.Ledger) map[string]report.BootInfo {
	out := map[string]report.BootInfo{}
	done := led.Done()
	for _, e := range led.Events {
		if e.Event != campaign.EvStart || e.BootID == "" {
			continue
		}
		if d, ok := done[e.Slot]; !ok || d.BootID != e.BootID {
			continue
		}
		bi := report.BootInfo{Slot: e.Slot}
		if e.Settle != nil {
			bi.Settle, bi.SettleLoad, bi.HasSettle = time.Duration(e.Settle.Waited), e.Settle.Load, true
		}
		out[e.BootID] = bi
	}
	return out
}
