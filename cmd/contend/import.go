package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"iter"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"contend/internal/external"
	"contend/internal/report"
	"contend/internal/results"
	"contend/internal/run"
	"contend/internal/value"
)

func importCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "turn a log of an original program's output (a mail, a console log) into a result file",
		ArgsUsage: "[flags] LOG",
		Description: `Reads LOG (a file, or - for stdin), finds every match of the metrics of
--preset or --metric (NAME=REGEX[:UNIT[:lower|higher]], as for exec), and
writes a result file with one repetition per record, kind import, so that
published numbers can be summarised and compared with statistics.

Records: each match of the first metric (the preset's first, then the
--metric flags in order) starts a new record; a match of another metric
belongs to the record started last before it. A record that lacks a metric
or has one twice is kept as a failed repetition saying so. The text of each
record is stored with it.

Cutting a log: --from and --to keep only lines FROM..TO (1-based,
inclusive) before matching; --select N..M then keeps records N to M of
what is left (also N.., ..M, N). --unquote removes mail quoting ("> ")
first, so that numbers quoted in a reply are found. The log's path and
SHA-256, the lines and the records read are stored as where the samples
come from (log.path, log.sha256, log.lines, log.select), not as parameters:
compare lists them as environment differences.

Examples (the seed mails are in ../shared/seeds/ of the project):
   contend import --preset faultme --select 1..5 --label 'rt6' 000_d7e92e058cbd48a1.txt
   contend import --preset faultme --select 6..9 --label 'rt6 + patch' 000_d7e92e058cbd48a1.txt
   contend import --preset time --unquote --from 51 --to 60 003_dd73f0828a7def05.txt
        Xiao's ten runs with the trace events off, quoted in Mitake's reply
        (--from 61 --to 70: the ten with them on; 84..91 are Mitake's own)
   contend import --metric 'lat=latency: (\d+) us:us:lower' console.log`,
		Flags: append(metricFlags(false),
			newFlag("from", &value.Int{Min: 1, Max: 1<<31 - 1}, "first line of LOG to read (1-based)"),
			newFlag("to", &value.Int{Min: 1, Max: 1<<31 - 1}, "last line of LOG to read (inclusive)"),
			&cli.StringFlag{Name: "select", Usage: "records to keep: N..M, N.., ..M or N (from 1, after --from/--to)"},
			&cli.BoolFlag{Name: "unquote", Usage: "strip mail quoting (\"> \") from line starts"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "result file (default results/import-PRESET-DATE-TIME.jsonl); an existing file is refused unless --replace"},
			&cli.BoolFlag{Name: "replace", Usage: "overwrite an existing --out file"},
			&cli.StringFlag{Name: "label", Usage: "free text stored with the results, such as 'rt6 with patch'"},
			formatFlag("output: text or json", "text", "json"),
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no warnings on stderr"},
		),
		Action: runImport,
	}
}

func runImport(c *cli.Context) error {
	specs, primary, pre, err := metricSpecs(c)
	if err != nil {
		return err
	}
	if len(specs) == 0 {
		return usagef("import: which metrics? give --preset (%s) or --metric NAME=REGEX", strings.Join(external.PresetNames(), ", "))
	}
	if pre != nil && pre.Primary != specs[0].Name {
		if _, ok := findSpec(specs, pre.Primary); !ok {
			primary = specs[0].Name // a process metric (mutex: real) is not in a log
		}
	}
	if c.NArg() != 1 {
		return usagef("import takes one log file (or -), got %d arguments", c.NArg())
	}
	format := c.String("format")
	from, to := c.Value("from").(int), c.Value("to").(int) // 0: not given
	lo, hi := 0, 0
	if c.IsSet("select") {
		if lo, hi, err = external.ParseSelect(c.String("select")); err != nil {
			return usagef("%v", err)
		}
	}
	path := c.Args().First()
	var log string
	var sum [sha256.Size]byte
	if path == "-" {
		log, sum, err = readAllLimited(os.Stdin)
	} else {
		log, sum, err = readFileLimited(path)
	}
	if err != nil {
		return &usageError{err.Error()}
	}
	log = strings.ToValidUTF8(log, "\uFFFD")
	log = strings.ReplaceAll(log, "\r\n", "\n")
	if from > 0 || to > 0 {
		if log, err = external.CutLines(log, from, to); err != nil {
			return usagef("%v", err)
		}
	}
	if c.Bool("unquote") {
		log = external.Unquote(log)
	}
	scan, specs, warns, err := external.Scan(specs, log, lo, hi)
	if err != nil {
		return usagef("%v", err)
	}
	if scan.Len() == 0 {
		return usagef("import: no match of %s (/%s/) in %s", specs[0].Name, specs[0].Regex, path)
	}
	name := "import"
	if pre != nil {
		name = "import:" + pre.Name
	}
	f := run.ExternalFile("import", name, specs, primary, c.String("label"))
	f.Env = captureEnv()
	// Which log, which lines of it and which records were read say how
	// the samples were taken, not what was measured: they are the
	// configuration's environment (compare lists them as such), not
	// parameters ("the change is partly theirs").
	cfg := results.Config{Env: map[string]string{"log.path": path, "log.sha256": hex.EncodeToString(sum[:])}}
	if from > 0 || to > 0 {
		cfg.Env["log.lines"] = lineRange(from, to)
	}
	if c.IsSet("select") {
		cfg.Env["log.select"] = c.String("select")
	}
	f.Configs = []results.Config{cfg}
	f.Warnings = warns
	f.End, f.Complete = time.Now(), true
	mode, err := outMode(c)
	if err != nil {
		return err
	}
	// The records go to the file one at a time as they are made, counted
	// in a Tally for the summary; --format json prints them all, so only
	// then are they held.
	skip := max(from, 1) - 1
	tally := results.NewTally(0)
	var reps iter.Seq[*results.Rep]
	if format == "json" {
		f.Reps = make([]results.Rep, 0, scan.Len())
		scan.Each(func(i int, r *external.Record) bool {
			rep := importRep(i, r, skip)
			rep.Metrics = rep.Metrics.Clone()
			f.Reps = append(f.Reps, rep)
			tally.Add(&rep)
			return true
		})
	} else {
		reps = importReps(scan, skip, tally)
	}
	wr, err := openOut(c.String("out"), name, f, mode, reps)
	if err != nil {
		return err
	}
	defer wr.Close()
	stdout, stderr := c.App.Writer, c.App.ErrWriter
	if !c.Bool("quiet") {
		for _, w := range warns {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
	}
	if format == "json" {
		b, err := results.Marshal(wr.File)
		if err != nil {
			return err
		}
		stdout.Write(b)
	} else {
		report.SummaryOf(stdout, wr.File, tally)
	}
	if !c.Bool("quiet") {
		fmt.Fprintf(stderr, "results: %s\n", wr.Path())
	}
	if tally.Counts[results.StatusOK] == 0 {
		return cli.Exit("no complete record in the log", exitFailure)
	}
	return nil
}

// lineRange is --from and --to as a range of lines, an end not given
// left out ("51..60", "52..", "..60").
func lineRange(from, to int) string {
	r := ".."
	if from > 0 {
		r = strconv.Itoa(from) + r
	}
	if to > 0 {
		r += strconv.Itoa(to)
	}
	return r
}

// importReps yields the repetition of each record of scan, one Rep
// reused (its Metrics the record's, refilled each time), each counted in
// tally before it is yielded.
func importReps(scan *external.RecordScan, skip int, tally *results.Tally) iter.Seq[*results.Rep] {
	return func(yield func(*results.Rep) bool) {
		var rep results.Rep
		scan.Each(func(i int, r *external.Record) bool {
			rep = importRep(i, r, skip)
			tally.Add(&rep)
			return yield(&rep)
		})
	}
}

// importRep returns the repetition of record i, r: its metrics (r's
// Values, not a copy), its status, and as output "[line N]" (N counted from the
// first line of the log, skip lines before the text read) and its text.
// No Start: when a record of a log ran is not known (the file's start is
// the import's).
func importRep(i int, r *external.Record, skip int) results.Rep {
	rep := results.Rep{Index: i, Round: i, Status: results.StatusOK, Metrics: r.Metrics}
	if r.Err != "" {
		rep.Status, rep.Error = results.StatusFailed, r.Err
	}
	rep.Output = "[line " + strconv.Itoa(r.Line+skip) + "]\n" + r.Text
	return rep
}

func findSpec(specs []external.Spec, name string) (external.Spec, bool) {
	for _, s := range specs {
		if s.Name == name {
			return s, true
		}
	}
	return external.Spec{}, false
}

const maxLog = 64 << 20

func readFileLimited(path string) (string, [sha256.Size]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return "", [sha256.Size]byte{}, fmt.Errorf("%s: no such file", path)
		}
		return "", [sha256.Size]byte{}, err
	}
	defer fh.Close()
	size := int64(0)
	if st, err := fh.Stat(); err == nil && st.IsDir() {
		return "", [sha256.Size]byte{}, fmt.Errorf("%s: is a directory, not a log", path)
	} else if err == nil {
		size = st.Size()
	}
	return readAllSized(fh, size)
}

func readAllLimited(fh *os.File) (string, [sha256.Size]byte, error) { return readAllSized(fh, 0) }

// readAllSized reads fh whole, at most maxLog bytes, into a string of
// size (its length, when known) at once, and returns it with its SHA-256:
// the log is not copied again from bytes into a string (2.5 MB for a log
// of 100,000 records).
func readAllSized(fh *os.File, size int64) (string, [sha256.Size]byte, error) {
	var sb strings.Builder
	sb.Grow(int(min(max(size+1, 1<<16), maxLog+1)))
	h := sha256.New()
	buf := make([]byte, 64<<10)
	for {
		n, err := fh.Read(buf)
		sb.Write(buf[:n])
		h.Write(buf[:n])
		if sb.Len() > maxLog {
			return "", [sha256.Size]byte{}, fmt.Errorf("%s: larger than %d MiB; cut it first", fh.Name(), maxLog>>20)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			// Not the log cut short in silence (and its SHA-256 wrong).
			return "", [sha256.Size]byte{}, fmt.Errorf("%s: cannot read the log: %v", fh.Name(), err)
		}
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sb.String(), sum, nil
}
