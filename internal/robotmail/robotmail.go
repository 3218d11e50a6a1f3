// Package robotmail reads a kernel test robot (0-day, LKP) report: a mail
// file or an mbox (its first robot report). It takes what the robot's
// template writes: the subject ("[linus:master] [futex] 7c4f75a21f:
// will-it-scale.per_thread_ops 98.3% regression"), the commit:, url:,
// base:, patch link: and patch subject: lines, testcase:, config:,
// compiler:, test machine:, the parameters: list, the table of the other
// tests the commit changed, and the comparison blocks of the details
// (lkp-tests' compare layout, one per test machine): their axes, the
// commits compared and the rows of the %stddev section (a deviation as
// lkp-tests prints it, " ±%3d%%": "± 12%" or "±190%"). A detail row it
// cannot read is skipped with a note (Report.Skipped); bodies in base64,
// quoted-printable or iso-8859-1, and nested multiparts are decoded; a
// control character in a name or value refuses the mail. A block without
// its mail (contend's --format lkml) is read as a Bare report.
package robotmail

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"contend/internal/lazyre"
)

// MaxSize is the largest mail read (robot reports are 10-60 KiB).
const MaxSize = 8 << 20

// Report is what a robot mail says.
type Report struct {
	Subject   string
	MessageID string
	// Branch is the subject's first bracket ("linus:master"), Change the
	// headline: the stat, its change in percent as the robot states it (a
	// regression of a higher-is-better stat is negative in the block: the
	// sign here is the block's), and "regression" or "improvement".
	Branch string
	Change Headline
	// Commit is the commit tested, CommitSubject its subject.
	Commit, CommitSubject string
	// URL, Base, PatchLink, PatchSubject: a patch from a mailing list,
	// applied by the robot on Base.
	URL, Base, PatchLink, PatchSubject  string
	Testcase, Config, Compiler, Machine string
	Params                              []Param
	// Also are the other tests the commit changed ("In addition to
	// that..."): each with its machine and parameters.
	Also   []Impact
	Blocks []Block
	// Skipped are the detail rows that could not be read, each with its
	// line number: the parse goes on without them (only the headline's
	// row is needed).
	Skipped []string
	// Bare is a block without the mail around it (contend's --format
	// lkml): Testcase is its testcase axis, Commit its new side.
	Bare bool
	// Quoted is a report read from the lines a reply quotes ("> "); the
	// reply may have cut rows or the whole details (then Blocks is
	// empty), and a testcase: line it cut is taken from the headline's
	// stat (Testcase "stress-ng" of "stress-ng.switch.ops_per_sec"), a
	// commit: line from the subject.
	// InReplyTo is the reply's In-Reply-To: the report's Message-ID.
	Quoted    bool
	InReplyTo string
	// skippedStat maps the stat of a skipped row to its note.
	skippedStat map[string]string
	// subjectCommit is the commit id of the subject ("7c4f75a21f").
	subjectCommit string
	// blockErr is why the first unreadable block was skipped;
	// firstBlockBad: it was the first block, the headline's.
	blockErr      error
	firstBlockBad bool
}

// Headline is the change the subject and the first paragraph announce.
type Headline struct {
	Stat    string
	Percent float64 // as written: 98.3 for "98.3% regression"
	Kind    string  // "regression" or "improvement"
}

// Param is one of the test's parameters, in the mail's order.
type Param struct{ Key, Value string }

// Impact is one entry of the table of other tests the commit changed.
type Impact struct {
	Change  string // "will-it-scale: will-it-scale.per_thread_ops 97.5% regression"
	Machine string
	Params  []Param
}

// Block is one comparison block of the details.
type Block struct {
	Axes     []Param // the axes line: keys and values
	Machine  string  // tbox_group, and the description line before the block if any
	Describe string
	// CompareKey is what the sides differ in ("commit"); Sides their
	// ids as the lines under it give them, with their subjects.
	CompareKey string
	Sides      []Side
	Rows       []Row
}

// Side is one compared commit (or value of the compare key).
type Side struct{ ID, Subject string }

// Row is one %stddev row: means, relative standard deviations (0 when
// the robot left them out: at most 2%), the change (percent, or an
// absolute difference for percent stats).
type Row struct {
	Stat           string
	Base, New      float64
	BaseSD, NewSD  float64 // in percent of the mean
	Change         float64
	AbsoluteChange bool
	// More are the further sides of a block of three or more (each
	// against the first side, as lkp-tests' compare prints them).
	More []Cell
	Line string // the row as the mail has it
}

// Cell is a further side of a row: its change against the first side,
// its mean and its relative standard deviation.
type Cell struct {
	Change, New, NewSD float64
	AbsoluteChange     bool
}

// Param returns the value of the test parameter key.
func (r *Report) Param(key string) (string, bool) {
	for _, p := range r.Params {
		if p.Key == key {
			return p.Value, true
		}
	}
	return "", false
}

// Axis returns the value of the block's axis key.
func (b *Block) Axis(key string) string {
	for _, a := range b.Axes {
		if a.Key == key {
			return a.Value
		}
	}
	return ""
}

// Row returns the block's row of stat.
func (b *Block) Row(stat string) (Row, bool) {
	for _, r := range b.Rows {
		if r.Stat == stat {
			return r, true
		}
	}
	return Row{}, false
}

// Read parses the mail (or the first robot report of the mbox) in r.
func Read(r io.Reader) (*Report, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("more than %d bytes: not a robot report", MaxSize)
	}
	return Parse(data)
}

// Parse parses one mail, or the first robot report of an mbox (a thread:
// the report rather than a reply that quotes it).
func Parse(data []byte) (*Report, error) {
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	msgs := splitMbox(data)
	var first error
	var quoted *Report
	for _, m := range msgs {
		rep, err := parseMessage(m)
		switch {
		case err == nil && !rep.Quoted:
			return rep, nil
		case err == nil && quoted == nil:
			// A reply that quotes a report: the report itself, if the
			// mbox has it, is read rather than the reply's quote.
			quoted = rep
		case err != nil && first == nil:
			first = err
		}
	}
	if quoted != nil {
		return quoted, nil
	}
	if len(msgs) > 1 {
		return nil, fmt.Errorf("none of the %d mails of the mbox is a robot report (the first: %v)", len(msgs), first)
	}
	return nil, first
}

// splitMbox splits an mbox at its "From " lines; a mail without one is
// one message.
func splitMbox(data []byte) [][]byte {
	if !bytes.HasPrefix(data, []byte("From ")) {
		return [][]byte{data}
	}
	var out [][]byte
	var cur []byte
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if bytes.HasPrefix(l, []byte("From ")) && (len(cur) == 0 || bytes.HasSuffix(cur, []byte("\n\n"))) {
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
			continue
		}
		if bytes.HasPrefix(l, []byte(">From ")) {
			l = l[1:]
		}
		cur = append(cur, l...)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

func parseMessage(m []byte) (*Report, error) {
	head := Report{}
	texts := [][]byte{m}
	if msg, err := mail.ReadMessage(bytes.NewReader(m)); err == nil && len(msg.Header) > 0 {
		dec := new(mime.WordDecoder)
		if s, err := dec.DecodeHeader(msg.Header.Get("Subject")); err == nil {
			head.Subject = strings.Join(strings.Fields(s), " ")
		}
		head.MessageID = strings.Trim(msg.Header.Get("Message-ID"), "<> ")
		head.InReplyTo = strings.Trim(msg.Header.Get("In-Reply-To"), "<> ")
		if texts, err = textBodies(msg); err != nil {
			return nil, err
		}
	}
	// The first text part that is a report (a forwarder's note before a
	// report attached as message/rfc822 is not).
	var first error
	for _, body := range texts {
		rep, err := parseText(head, string(body))
		if err == nil {
			return rep, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// parseText reads one text part of a mail with the headers of head: the
// report, or the report a reply quotes.
func parseText(head Report, body string) (*Report, error) {
	rep := &Report{Subject: head.Subject, MessageID: head.MessageID, InReplyTo: head.InReplyTo}
	err := rep.parseBody(body)
	if q, ok := unquote(body); err != nil && ok {
		// A reply: the report it quotes.
		rep = &Report{Subject: head.Subject, MessageID: head.MessageID, InReplyTo: head.InReplyTo, Quoted: true}
		if qerr := rep.parseQuoted(q); qerr != nil {
			return nil, qerr
		}
		err = nil
	}
	if err != nil {
		if strings.HasPrefix(strings.ToLower(rep.Subject), "re: ") && reSubject().MatchString(rep.Subject) {
			return nil, fmt.Errorf("a reply in a robot report's thread that quotes none of the report (%v): give contend reproduce the report itself, or a reply that quotes it", err)
		}
		return nil, err
	}
	rep.parseSubject()
	if err := rep.check(); err != nil {
		return nil, err
	}
	return rep, nil
}

// parseQuoted reads the report a reply quotes (q: the quoted lines, their
// "> " taken off): a testcase: line the reply cut is the prefix of the
// headline's stat, a commit: line the subject's commit.
func (rep *Report) parseQuoted(q string) error {
	err := rep.parseBody(q)
	if err == nil {
		return nil
	}
	rep.parseSubject()
	if rep.Testcase == "" && rep.Change.Stat != "" {
		rep.Testcase, _, _ = strings.Cut(rep.Change.Stat, ".")
	}
	if rep.Commit == "" {
		rep.Commit = rep.subjectCommit
	}
	var kept []Block
	for _, b := range rep.Blocks {
		if len(b.Rows) > 0 {
			kept = append(kept, b)
		} else {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("the quoted block of %s has no rows (the reply cut them): that block skipped", b.Machine))
		}
	}
	rep.Blocks = kept
	if len(rep.Blocks) == 0 && rep.Testcase != "" && reSHA().MatchString(rep.Commit) && rep.Change.Stat != "" {
		// The reply cut the details: the head of the report is all
		// there is (a plan without the robot's rows).
		return nil
	}
	return rep.checkBody()
}

// quoteDepth returns how deeply line l is quoted ("> > text": 2) and the
// line without its quote marks (one space after each taken off).
func quoteDepth(l string) (int, string) {
	d := 0
	for {
		t := strings.TrimLeft(l, " ")
		if !strings.HasPrefix(t, ">") {
			return d, l
		}
		l = strings.TrimPrefix(t[1:], " ")
		d++
	}
}

// unquote returns the lines of body at the quote depth of the robot's
// report (the first quoted line of its template), their quote marks
// taken off, every other line blank; ok false if body quotes no report.
func unquote(body string) (string, bool) {
	lines := strings.Split(strings.ReplaceAll(body, "\u00a0", " "), "\n")
	depth := 0
	for _, l := range lines {
		d, t := quoteDepth(l)
		if d > 0 && (reNoticed().MatchString(t) || reCommit().MatchString(strings.TrimRight(t, " \t")) || strings.HasPrefix(t, "testcase: ") || strings.HasPrefix(t, "in testcase: ")) {
			depth = d
			break
		}
	}
	if depth == 0 {
		return "", false
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if d, t := quoteDepth(l); d == depth {
			out[i] = t
		}
	}
	return strings.Join(out, "\n"), true
}

// check refuses what the robot does not write: a control character in a
// name or value that reaches a command line or a terminal (a NUL in the
// test's name), and an unreadable row of the headline's stat.
func (rep *Report) check() error {
	bad := func(what, v string) error {
		if !plain(v) {
			return fmt.Errorf("%s %q has a control character: not the robot's; refused", what, v)
		}
		return nil
	}
	errs := []error{bad("testcase", rep.Testcase), bad("the headline's stat", rep.Change.Stat), bad("test machine", rep.Machine), bad("commit", rep.Commit)}
	for _, p := range rep.Params {
		errs = append(errs, bad("parameter "+strconv.Quote(p.Key), p.Key+p.Value))
	}
	for _, im := range rep.Also {
		for _, p := range im.Params {
			errs = append(errs, bad("parameter "+strconv.Quote(p.Key)+" of another test", p.Key+p.Value))
		}
	}
	for _, b := range rep.Blocks {
		for _, a := range b.Axes {
			errs = append(errs, bad("axis "+strconv.Quote(a.Key), a.Key+a.Value))
		}
		for _, s := range b.Sides {
			errs = append(errs, bad("commit", s.ID))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if st := rep.Change.Stat; st != "" && len(rep.Blocks) > 0 {
		if _, ok := rep.Blocks[0].Row(st); !ok {
			if line, ok := rep.skippedStat[st]; ok {
				return fmt.Errorf("the headline's row (%s) is unreadable: %s", st, line)
			}
		}
	}
	if rep.firstBlockBad && !rep.Quoted {
		// The first block is the headline's (the robot's template).
		return rep.blockErr
	}
	return nil
}

// maxDepth is how deeply multipart parts may nest (a robot mail is
// text/plain; a forwarded one a few levels).
const maxDepth = 8

// textBodies returns the texts of msg: its body decoded, or its
// text/plain parts in order (nested multiparts and forwarded messages
// searched depth first).
func textBodies(msg *mail.Message) ([][]byte, error) {
	return partTexts(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body, 0)
}

func partTexts(ct, enc string, r io.Reader, depth int) ([][]byte, error) {
	mt, params, _ := mime.ParseMediaType(ct)
	if !strings.HasPrefix(mt, "multipart/") {
		b, err := decode(r, enc, params["charset"])
		if err != nil {
			return nil, err
		}
		return [][]byte{b}, nil
	}
	if depth >= maxDepth {
		return nil, fmt.Errorf("multipart parts nested more than %d deep: not a robot report", maxDepth)
	}
	if params["boundary"] == "" {
		return nil, errors.New("a multipart mail without a boundary: not a robot report")
	}
	mr := multipart.NewReader(r, params["boundary"])
	var texts [][]byte
	var first error
	for {
		p, err := mr.NextPart()
		if err != nil {
			break
		}
		pct := p.Header.Get("Content-Type")
		pt, pp, _ := mime.ParseMediaType(pct)
		var sub [][]byte
		switch {
		case pt == "" || pt == "text/plain":
			var b []byte
			if b, err = decode(p, p.Header.Get("Content-Transfer-Encoding"), pp["charset"]); err == nil {
				sub = [][]byte{b}
			}
		case strings.HasPrefix(pt, "multipart/"):
			sub, err = partTexts(pct, "", p, depth+1)
		case pt == "message/rfc822":
			// A report forwarded as an attachment: its own body.
			var fm *mail.Message
			if fm, err = mail.ReadMessage(p); err == nil {
				sub, err = partTexts(fm.Header.Get("Content-Type"), fm.Header.Get("Content-Transfer-Encoding"), fm.Body, depth+1)
			}
		}
		if err != nil && first == nil {
			first = err
		}
		texts = append(texts, sub...)
	}
	switch {
	case len(texts) > 0:
		return texts, nil
	case first != nil:
		return nil, first
	}
	return nil, errors.New("a multipart mail without a text/plain part: not a robot report")
}

// decode undoes a body's Content-Transfer-Encoding (quoted-printable and
// base64; 7bit, 8bit and binary are as they are) and its charset: the
// robot's mails are iso-8859-1, its "±" one byte (0xB1), made UTF-8 here.
func decode(r io.Reader, enc, charset string) ([]byte, error) {
	switch strings.ToLower(strings.TrimSpace(enc)) {
	case "quoted-printable":
		r = quotedprintable.NewReader(r)
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, r) // skips the line breaks
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("the body's %s encoding does not decode: %v", strings.TrimSpace(enc), err)
	}
	switch strings.ToLower(charset) {
	case "iso-8859-1", "latin1", "iso8859-1", "windows-1252", "us-ascii":
		if !utf8.Valid(b) {
			u := make([]rune, len(b))
			for i, c := range b {
				u[i] = rune(c)
			}
			b = []byte(string(u))
		}
	}
	return b, nil
}

// plain tells whether s has no control character (a tab aside): a
// parameter, an axis or a stat that has one is not the robot's.
func plain(s string) bool {
	for _, r := range s {
		if r != '\t' && (unicode.IsControl(r) || r == unicode.ReplacementChar) {
			return false
		}
	}
	return true
}

var (
	reSubject  = lazyre.New(`^(?:(?:Re|RE|Fwd):\s*|\[LKP\]\s*)*((?:\[[^\]]*\]\s*)*)(?:([0-9a-f]{7,40}): )?(\S+) ([-+]?[0-9.]+)% (regression|improvement)`)
	reNoticed  = lazyre.New(`noticed an? ([-+]?[0-9.]+)% (regression|improvement) of (\S+)`)
	reCommit   = lazyre.New(`^commit: ([0-9a-f]{7,40})(?: \("(.*)"\))?\s*$`)
	reSHA      = lazyre.New(`^[0-9a-f]{7,40}$`)
	reRule     = lazyre.New(`^={40,}\s*$`)
	reIDRule   = lazyre.New(`^-{16} -{27}`)
	reParam    = lazyre.New(`^\s+([A-Za-z0-9_.-]+): (.*?)\s*$`)
	reMachine  = lazyre.New(`^([A-Za-z0-9_.-]+): (\d+ threads .*)$`)
	reSideLine = lazyre.New(`^ {2,4}(\S+)(?: \("(.*)"\))?\s*$`)
)

func (rep *Report) parseSubject() {
	m := reSubject().FindStringSubmatch(rep.Subject)
	if m == nil {
		return
	}
	rep.subjectCommit = m[2]
	// The branch is a first bracket "tree:branch"; the robot's older
	// subjects have only the subsystem's ("[xfs]").
	if br := strings.Fields(strings.NewReplacer("[", " ", "]", " ").Replace(m[1])); len(br) > 0 && strings.Contains(br[0], ":") {
		rep.Branch = br[0]
	}
	if rep.Change.Stat == "" {
		pc, _ := strconv.ParseFloat(m[4], 64)
		rep.Change = Headline{Stat: m[3], Percent: pc, Kind: m[5]}
	}
}

// parseBody reads the robot's template.
func (rep *Report) parseBody(body string) error {
	// A reply's mailer may have made the block's spaces no-break ones.
	lines := strings.Split(strings.ReplaceAll(body, "\u00a0", " "), "\n")
	desc := ""
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t")
		if m := reNoticed().FindStringSubmatch(l); m != nil && rep.Change.Stat == "" {
			pc, _ := strconv.ParseFloat(m[1], 64)
			rep.Change = Headline{Stat: strings.TrimSuffix(m[3], ","), Percent: pc, Kind: m[2]}
		}
		if m := reCommit().FindStringSubmatch(l); m != nil && rep.Commit == "" {
			rep.Commit, rep.CommitSubject = m[1], m[2]
			continue
		}
		if k, v, ok := strings.Cut(l, ": "); ok && !strings.HasPrefix(l, " ") {
			v = strings.TrimSpace(v)
			switch k {
			case "url":
				set(&rep.URL, v)
			case "base":
				set(&rep.Base, v)
			case "patch link":
				set(&rep.PatchLink, v)
			case "patch subject":
				set(&rep.PatchSubject, v)
			case "testcase", "in testcase":
				set(&rep.Testcase, v)
			case "config":
				set(&rep.Config, v)
			case "compiler":
				set(&rep.Compiler, v)
			case "test machine", "on test machine":
				set(&rep.Machine, v)
			}
		}
		if (l == "parameters:" || l == "with following parameters:") && rep.Params == nil {
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) == ""; i++ {
			}
			for ; i < len(lines); i++ {
				m := reParam().FindStringSubmatch(lines[i])
				if m == nil {
					break
				}
				rep.Params = append(rep.Params, Param{m[1], m[2]})
			}
			i--
			continue
		}
		if strings.HasPrefix(l, "| testcase: change |") {
			i = rep.parseImpact(lines, i)
			continue
		}
		if m := reMachine().FindStringSubmatch(l); m != nil {
			desc = l
		}
		if strings.HasPrefix(l, "<below more details") && len(rep.Blocks) > 0 {
			// The rest of the last block's rows, after the signature
			// ("<below more details following above table FYI>").
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) == ""; i++ {
			}
			next, skipped := rep.Blocks[len(rep.Blocks)-1].readRows(lines, i, true)
			rep.skip(skipped)
			i = next - 1
			continue
		}
		if reRule().MatchString(l) {
			b, next, skipped, err := parseBlock(lines, i+1)
			if err != nil {
				// A block that cannot be read (a reply's own table, cut
				// by the reply) is skipped with a note; the report
				// needs one block.
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("%v: that block skipped", err))
				if rep.blockErr == nil {
					rep.blockErr, rep.firstBlockBad = err, len(rep.Blocks) == 0
				}
				desc = ""
				continue
			}
			rep.skip(skipped)
			b.Describe = desc
			desc = ""
			rep.Blocks = append(rep.Blocks, b)
			i = next - 1
		}
	}
	if rep.Testcase == "" && rep.Commit == "" && len(rep.Blocks) > 0 {
		// A block without the mail around it (contend's own --format
		// lkml, a block quoted alone, a reply's own table): its testcase
		// axis and its second side (the rows' change is of it).
		b := rep.Blocks[0]
		rep.Testcase = b.Axis("testcase")
		if b.CompareKey == "commit" {
			s := b.Sides[1]
			rep.Commit, rep.CommitSubject = s.ID, s.Subject
		}
		if rep.Commit == "" {
			rep.Commit = b.Sides[1].ID
		}
		rep.Bare = true
	}
	return rep.checkBody()
}

// checkBody refuses a body without the parts a plan needs.
func (rep *Report) checkBody() error {
	switch {
	case rep.Testcase == "":
		return errors.New("not a kernel test robot report: no 'testcase:' line")
	case rep.Commit == "":
		return errors.New("not a kernel test robot report: no 'commit: SHA' line")
	case !rep.Bare && !reSHA().MatchString(rep.Commit):
		return fmt.Errorf("commit %q is not a commit id", rep.Commit)
	case len(rep.Blocks) == 0 && rep.blockErr != nil:
		return rep.blockErr
	case len(rep.Blocks) == 0:
		return errors.New("not a kernel test robot report: no comparison block (a '=====' line, the axes, 'commit:', the id columns, '%stddev')")
	}
	for _, b := range rep.Blocks {
		if len(b.Rows) == 0 {
			return fmt.Errorf("the comparison block of %s has no %%stddev rows", b.Machine)
		}
	}
	return nil
}

// skip notes the rows that could not be read.
func (rep *Report) skip(skipped []skip) {
	for _, sk := range skipped {
		rep.Skipped = append(rep.Skipped, sk.note)
		if rep.skippedStat == nil {
			rep.skippedStat = map[string]string{}
		}
		rep.skippedStat[sk.stat] = sk.note
	}
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

func set(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

// parseImpact reads one entry of the table of other tests from line i
// ("| testcase: change | ...") to its closing "+---" line.
func (rep *Report) parseImpact(lines []string, i int) int {
	var im Impact
	key := ""
	for ; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
		cells := strings.Split(strings.Trim(strings.TrimSpace(lines[i]), "|"), "|")
		if len(cells) < 2 {
			break
		}
		k, v := strings.TrimSpace(cells[0]), strings.TrimSpace(strings.Join(cells[1:], "|"))
		if k != "" {
			key = k
		}
		switch key {
		case "testcase: change":
			im.Change = v
		case "test machine":
			im.Machine = v
		case "test parameters":
			if pk, pv, ok := strings.Cut(v, "="); ok {
				im.Params = append(im.Params, Param{pk, pv})
			}
		}
	}
	rep.Also = append(rep.Also, im)
	return i
}

// skip is an unreadable row: the note on it and its last field (its stat,
// if it has one).
type skip struct{ note, stat string }

// parseBlock reads a comparison block from line i (after its '=' rule):
// the axes, the compare key and its sides, the id columns, then the
// sections until a blank line; it returns the line after it.
func parseBlock(lines []string, i int) (Block, int, []skip, error) {
	var b Block
	var skipped []skip
	if i+1 >= len(lines) || !strings.HasSuffix(strings.TrimSpace(lines[i]), ":") {
		return b, i, nil, fmt.Errorf("line %d: a comparison block without its axes line", i+1)
	}
	keys := strings.Split(strings.TrimSuffix(strings.TrimSpace(lines[i]), ":"), "/")
	vals := strings.Split(strings.TrimSpace(lines[i+1]), "/")
	if len(keys) != len(vals) {
		return b, i, nil, fmt.Errorf("line %d: %d axes but %d values", i+2, len(keys), len(vals))
	}
	for j := range keys {
		b.Axes = append(b.Axes, Param{keys[j], vals[j]})
	}
	b.Machine = b.Axis("tbox_group")
	i += 2
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i+1 < len(lines) && reIDRule().MatchString(lines[i+1]) {
		// No 'commit:' lines (the robot's follow-up tables): the
		// sides are the id columns.
		b.CompareKey = "commit"
		for _, id := range strings.Fields(lines[i]) {
			b.Sides = append(b.Sides, Side{ID: id})
		}
		if len(b.Sides) < 2 {
			return b, i, nil, fmt.Errorf("line %d: a comparison block with %d id columns", i+1, len(b.Sides))
		}
		i, skipped = b.readRows(lines, i+2, false)
		return b, i, skipped, nil
	}
	if i >= len(lines) || !strings.HasSuffix(strings.TrimRight(lines[i], " "), ":") {
		return b, i, nil, fmt.Errorf("line %d: a comparison block without its 'commit:' line", i+1)
	}
	b.CompareKey = strings.TrimSuffix(strings.TrimSpace(lines[i]), ":")
	for i++; i < len(lines); i++ {
		m := reSideLine().FindStringSubmatch(lines[i])
		if m == nil {
			// "  e0bf1dc859fdd mm: memcg: ..." (a side without the
			// parentheses, as people write them).
			if f := strings.Fields(lines[i]); len(f) > 1 && strings.HasPrefix(lines[i], "  ") && reSHA().MatchString(f[0]) {
				b.Sides = append(b.Sides, Side{f[0], strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[i]), f[0]))})
				continue
			}
			break
		}
		b.Sides = append(b.Sides, Side{m[1], m[2]})
	}
	if len(b.Sides) < 2 {
		return b, i, nil, fmt.Errorf("line %d: a comparison block with %d sides under %q", i+1, len(b.Sides), b.CompareKey)
	}
	for i < len(lines) && !reIDRule().MatchString(lines[i]) {
		if reRule().MatchString(lines[i]) || i > 0 && strings.Contains(lines[i], "%stddev") {
			return b, i, nil, fmt.Errorf("line %d: a comparison block without its id columns and rule", i+1)
		}
		i++
	}
	i, skipped = b.readRows(lines, i+1, false)
	return b, i, skipped, nil
}

// readRows reads the sections of a block from line i to a blank line
// (the rows of its %stddev sections; perf: the lines start in one) and
// returns the line after it.
func (b *Block) readRows(lines []string, i int, perf bool) (int, []skip) {
	var skipped []skip
	for ; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t")
		switch {
		case l == "":
			return i + 1, skipped
		case strings.Contains(l, "%stddev"):
			perf = true
			continue
		case strings.Contains(l, "fail:runs"):
			perf = false
			continue
		case strings.Trim(l, `\| `) == "", strings.Trim(l, ". ") == "":
			// The id rule's marks, and a reply's elision ("...").
			continue
		}
		if !perf {
			continue
		}
		r, err := parseRow(l)
		if err != nil {
			f := strings.Fields(l)
			skipped = append(skipped, skip{fmt.Sprintf("line %d skipped: %v", i+1, err), f[len(f)-1]})
			continue
		}
		b.Rows = append(b.Rows, r)
	}
	return i, skipped
}

// parseRow reads one %stddev row: base [± N%] change new [± N%] stat.
func parseRow(l string) (Row, error) {
	t := strings.Fields(misreadPM.Replace(l))
	r := Row{Line: l}
	num := func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
	bad := fmt.Errorf("%q is not a row of the robot's block (base [± N%%] change new [± N%%] stat)", l)
	// pct reads a deviation: "± 12%", or "±190%" (lkp-tests prints
	// " ±%3d%%": from 100% on there is no space after ±).
	pct := func() (float64, error) {
		if len(t) == 0 || !strings.HasPrefix(t[0], "±") {
			return 0, nil
		}
		v := strings.TrimPrefix(t[0], "±")
		n := 1
		if v == "" && len(t) >= 2 {
			v, n = t[1], 2
		}
		if !strings.HasSuffix(v, "%") {
			return 0, bad
		}
		f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if err != nil || f < 0 || math.IsInf(f, 0) {
			return 0, bad
		}
		t = t[n:]
		return f, nil
	}
	if len(t) < 4 {
		return r, bad
	}
	var err error
	if r.Base, err = num(t[0]); err != nil {
		return r, bad
	}
	t = t[1:]
	if r.BaseSD, err = pct(); err != nil {
		return r, err
	}
	if len(t) < 3 {
		return r, bad
	}
	ch := t[0]
	r.AbsoluteChange = !strings.HasSuffix(ch, "%")
	if r.Change, err = num(strings.TrimSuffix(ch, "%")); err != nil {
		return r, bad
	}
	if r.New, err = num(t[1]); err != nil {
		return r, bad
	}
	t = t[2:]
	if r.NewSD, err = pct(); err != nil {
		return r, err
	}
	// Further sides (a block of three or more commits): change new [± N%].
	for len(t) >= 3 && isChange(t[0]) {
		c := Cell{AbsoluteChange: !strings.HasSuffix(t[0], "%")}
		var e1, e2 error
		c.Change, e1 = num(strings.TrimSuffix(t[0], "%"))
		c.New, e2 = num(t[1])
		if e1 != nil || e2 != nil || !finite(c.Change, c.New) {
			return r, bad
		}
		t = t[2:]
		if c.NewSD, err = pct(); err != nil {
			return r, err
		}
		r.More = append(r.More, c)
	}
	// A note after the stat, as the robot marks a row it discusses:
	// "fsmark.files_per_sec     <-------- (a)".
	if len(t) > 1 && strings.HasPrefix(t[1], "<") {
		t = t[:1]
	}
	if len(t) != 1 || !finite(r.Base, r.New, r.Change) {
		return r, bad
	}
	r.Stat = t[0]
	return r, nil
}

// misreadPM maps the robot's "±" (the byte 0xB1 of its iso-8859-1) as a
// reply's mailer may have read it: "ą" (iso-8859-2, windows-1250), or the
// replacement character of a UTF-8 decoder.
var misreadPM = strings.NewReplacer("ą", "±", "\uFFFD", "±")

// isChange tells whether s is a change column: "+12.3%", "-0.4", "+1.6e+05%".
func isChange(s string) bool {
	if len(s) < 2 || s[0] != '+' && s[0] != '-' {
		return false
	}
	_, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	return err == nil
}
