package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/campaign"
	"contend/internal/comparison"
	"contend/internal/plothelper"
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
	vm                    vmFlags // campaignvm.go
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
	flags = append(flags, vmInitFlags(&f.vm, &f.opt)...)
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
		&cli.StringFlag{Name: s + "-initrd", Destination: &so.Initrd, Usage: "the initrd of --" + s + "-kexec (or of --" + s + "-kernel, unpacked before contend's own)"},
		&cli.StringFlag{Name: s + "-append", Destination: &so.Append, Usage: "the command line of --" + s + "-kexec (default: the running one's), or words added to --" + s + "-kernel's"},
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
		Name:        "init",
		Usage:       "write a campaign's plan: two kernels, the order of boots, the command to run in each",
		ArgsUsage:   "DIR [flags] -- run|exec ARGS...",
		Description: helpText("campaign-init"),
		Flags:       initFlagList,
		Action:      func(c *cli.Context) error { return campaignInit(c, initf) },
	}
	// dirOnly is a subcommand whose one argument is the campaign's DIR
	// (campaignDir), which action is given.
	dirOnly := func(name, usage, desc string, action func(*cli.Context, string) error, flags ...cli.Flag) *cli.Command {
		return &cli.Command{Name: name, Usage: usage, ArgsUsage: "DIR", Description: desc, Flags: flags, Action: func(c *cli.Context) error {
			dir, err := campaignDir(c)
			if err != nil {
				return err
			}
			return action(c, dir)
		}}
	}
	return &cli.Command{
		Name:        "campaign",
		Usage:       "kernel A against kernel B across reboots: plan, step after each boot, report",
		Description: helpText("campaign"),
		Subcommands: []*cli.Command{
			init,
			dirOnly("step", "run the campaign's next boot: check the kernel, settle, run, record, reboot if armed",
				"--at-boot (the unit's mode): do nothing unless the campaign is armed.", campaignStep,
				&cli.BoolFlag{Name: "at-boot", Usage: "do nothing unless the campaign is armed (the systemd unit's mode)"}),
			campaignRunCommand(),
			dirOnly("arm", "allow the campaign's steps to reboot the machine", "", campaignArm),
			dirOnly("disarm", "stop the campaign's steps from rebooting", "", campaignDisarm),
			dirOnly("unit", "write the systemd oneshot unit that runs the step at boot",
				`Writes DIR/contend-campaign.service (or --out) and prints how to install it.`, func(c *cli.Context, dir string) error {
					return optionUsage(campaign.WriteUnitFile(c.App.Writer, dir, c.String("out")))
				},
				&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "unit file to write (default DIR/contend-campaign.service)"}),
			dirOnly("status", "show a campaign's progress", "", func(c *cli.Context, dir string) error { return campaign.ShowStatus(c.App.Writer, dir) }),
			dirOnly("report", "the boot-level comparison of a campaign (also 'contend compare DIR')",
				"The comparison of 'contend compare' with the boot as the unit (headline, verdicts, per-boot table; the pooled runs as a description); --plot draws each boot's runs, A and B coloured.", campaignReportAction,
				append([]cli.Flag{&cli.StringFlag{Name: "plot", Usage: "also draw each boot's runs to this .svg or .png"},
					compareFormatFlag()}, detailFlags()...)...),
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
	dir, err := campaign.OpenDir(c.Command.Name, c.Args().First())
	return dir, optionUsage(err)
}

// optionUsage makes a campaign.OptionError (a refused flag or argument) a
// usage error; other errors are returned as they are.
func optionUsage(err error) error {
	var oe *campaign.OptionError
	if errors.As(err, &oe) {
		return &usageError{oe.Error()}
	}
	return err
}

// campaignInit writes the plan of 'campaign init': its flags are the
// campaign.Options, which campaign.Init checks.
func campaignInit(c *cli.Context, f *initFlags) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	o := f.options(c)
	o.Contend = exe
	if err := f.vm.apply(c, &o); err != nil {
		return err
	}
	p, err := campaign.Init(o)
	if err != nil {
		return optionUsage(err)
	}
	if err := f.vm.record(p.Dir); err != nil {
		return err
	}
	campaign.WriteInit(c.App.Writer, p)
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

func campaignStep(c *cli.Context, dir string) error {
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

func campaignArm(c *cli.Context, dir string) error {
	if err := campaign.Arm(dir); err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "campaign %s armed: its steps may reboot this machine ('contend campaign disarm %s' to stop)\n", dir, dir)
	return nil
}

func campaignDisarm(c *cli.Context, dir string) error {
	if err := campaign.Disarm(dir, "campaign disarm"); err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "campaign %s disarmed: no step will reboot\n", dir)
	return nil
}

func campaignReportAction(c *cli.Context, dir string) error {
	format := c.String("format") // one of report.CompareFormats (its value.Enum)
	plot := c.String("plot")
	if plot != "" {
		if err := plothelper.CheckImageName("--plot", plot); err != nil {
			return err
		}
	}
	return writeCampaignReport(c, dir, comparison.Options{Alpha: 0.05}, format, plot)
}

// writeCampaignReport writes the campaign report of dir in format and,
// when plot is set, draws each boot's runs to it ('campaign report', and
// 'contend compare DIR' with no plot).
func writeCampaignReport(c *cli.Context, dir string, opt comparison.Options, format, plot string) error {
	r, err := campaign.BuildReport(dir, opt)
	var rf *campaign.ReportRefusal
	if errors.As(err, &rf) {
		return &usageError{err.Error()}
	} else if err != nil {
		return err
	}
	if err := writeComparison(c, r.Comparison, format); err != nil {
		return err
	}
	if plot == "" {
		return nil
	}
	if err := runPlotHelper(c, "campaign report", append([]string{"--out", plot, "--boots", r.Order}, r.Files...)); err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "\nplot: %s\n", plot)
	return nil
}
