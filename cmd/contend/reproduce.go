package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/reproduce"
	"contend/internal/results"
	"contend/internal/robotmail"
	"contend/internal/value"
)

func reproduceCommand() *cli.Command {
	return &cli.Command{
		Name:        "reproduce",
		Usage:       "map a kernel test robot report onto this machine: the plan, and with --run what can run here",
		ArgsUsage:   "MAIL",
		Description: helpText("reproduce"),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "tests", Usage: "will-it-scale's tests directory (DIR/futex4.c; default $CONTEND_WIS_TESTS)"},
			&cli.StringFlag{Name: "noise", Usage: "a result file of the test here (contend run wis ...): its noise sets the runs of the plan"},
			&cli.BoolFlag{Name: "run", Usage: "run the test here, A/A, and answer in --format lkml with the verdict"},
			newFlag("runs", &value.Int{N: 10, Min: 4, Max: 1000}, "with --run: repetitions a side, 4 to 1000 (-n)"),
			newFlag("duration", &value.Duration{D: 2 * time.Second, Min: 100 * time.Millisecond, Max: time.Hour}, "each repetition's measured interval, 100ms to 1h"),
			&cli.StringFlag{Name: "out", Usage: "with --run: the result file (default results/reproduce-COMMIT-DATE.jsonl)"},
		},
		Action: runReproduce,
	}
}

func runReproduce(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("reproduce: give one MAIL (a robot report: a mail file or an mbox), got %d arguments", c.NArg())
	}
	path := c.Args().First()
	data, err := reproduce.ReadMail(path)
	if err != nil {
		return err
	}
	rep, err := robotmail.Parse(data)
	if err != nil {
		return usagef("reproduce %s: %v", path, err)
	}
	tests := c.String("tests")
	if tests == "" {
		tests = os.Getenv("CONTEND_WIS_TESTS")
	}
	opt := reproduce.Options{Tests: tests, Duration: c.Value("duration").(time.Duration).String()}
	if f := c.String("noise"); f != "" {
		noise, err := reproduce.ReadNoise(f)
		if err != nil {
			return err
		}
		opt.Noise = noise
	}
	m := reproduce.ThisMachine()
	plan, err := reproduce.Make(rep, m, opt)
	if err != nil {
		return usagef("reproduce %s: %v", path, err)
	}
	if !c.Bool("run") {
		plan.Write(c.App.Writer)
		return nil
	}
	if err := plan.CheckRun(rep, tests); err != nil {
		return err
	}
	return runReproduceAA(c, rep, plan, m)
}

// runReproduceAA runs the test A/A on this kernel through 'contend ab
// --aa' (its own lock, evidence and file), then answers in the robot's
// layout with the reported row quoted and the verdict (reproduce.Answer).
func runReproduceAA(c *cli.Context, rep *robotmail.Report, plan *reproduce.Plan, m reproduce.Machine) error {
	out := c.String("out")
	if out == "" {
		out = reproduce.DefaultOut(rep.Commit, time.Now())
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	args := append([]string{"ab", "wis", "--aa"}, plan.WisArgs...)
	args = append(args, "-n", strconv.Itoa(c.Value("runs").(int)), "--out", out, "-q")
	fmt.Fprintf(c.App.ErrWriter, "reproduce: contend %s\n", strings.Join(args, " "))
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, c.App.ErrWriter
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("reproduce: the A/A run failed (%v): see above; its file is %s", err, out)
	}
	f, err := results.Read(out)
	if err != nil {
		return err
	}
	return reproduce.Answer(c.App.Writer, f, rep, plan, m, c.Args().First())
}
