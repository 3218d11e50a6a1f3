package results

import (
	"strconv"
	"time"
	"unicode/utf8"
	"unsafe"
)

// A repScanner decodes repetition records of exactly the shape the writer
// produces ({"rep":{...}} with Rep's fields in their order, no spaces) four
// to five times faster than encoding/json, which took most of the time of
// reading a large file. Anything else, or anything it is unsure of (an
// unknown or repeated field, a series, a number or escape it does not
// take, a surrogate), makes decodeRep return false, and the caller decodes
// the line with encoding/json: the result is the same either way
// (TestFastRepMatchesJSON, FuzzParse).
type repScanner struct {
	b   []byte
	i   int
	ok  bool
	buf []byte // unescaped string bytes

	// The start time of the previous record: an import gives every record
	// the same.
	lastStart []byte
	lastTime  time.Time
	// Strings that repeat from record to record: metric names, boot ids.
	names []string
	// arena holds the metric values of the records decoded so far, each
	// record's Metrics a piece of it (capped: a Set on one copies it);
	// text holds their outputs and errors (keep). Both are cut
	// from pieces sized by lines, the number of records the scanner is to
	// decode: a file of 100,000 records is a few large allocations, not
	// 200,000 small ones (each on a page touched for the first time).
	arena []Value
	text  []byte
	lines int
	// noOutput leaves Rep.Output empty (Read's WithoutOutputs).
	noOutput bool
	// reuse decodes each record's metrics into the same array: the
	// caller copies them before the next (into Columns).
	reuse bool
}

// decodeRep decodes line into r; false means: not the writer's shape, use
// encoding/json.
func (s *repScanner) decodeRep(line []byte, r *Rep) bool {
	s.b, s.i, s.ok = line, 0, true
	*r = Rep{}
	if !s.lit(`{"rep":{`) {
		return false
	}
	// Each field is optional here, but in Rep's order and at most once:
	// encoding/json reads the same whatever the order, so only the order
	// the writer uses is taken.
	first := true
	field := func(name string) bool {
		if !s.ok {
			return false
		}
		save := s.i
		if (!first && !s.lit(",")) || !s.lit(`"`) || !s.lit(name) || !s.lit(`":`) {
			s.i, s.ok = save, true
			return false
		}
		first = false
		return true
	}
	if field("index") {
		r.Index = s.int()
	}
	if field("config") {
		r.Config = s.int()
	}
	if field("warmup") {
		r.Warmup = s.bool()
	}
	if field("round") {
		r.Round = s.int()
	}
	if field("status") {
		r.Status = s.intern(s.strBytes())
	}
	if field("error") {
		r.Error = s.keep(s.strBytes())
	}
	if field("start") {
		r.Start = s.time()
	}
	if field("metrics") {
		r.Metrics = s.metrics()
	}
	if field("notes") {
		r.Notes = s.strs()
	}
	if field("output") {
		if b := s.strBytes(); !s.noOutput {
			r.Output = s.keep(b)
		}
	}
	if field("loadavg") {
		r.LoadAvg = s.float()
	}
	if field("boot_id") {
		r.BootID = s.name(s.strBytes())
	}
	if !s.ok || !s.lit("}}") {
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '\n' {
		s.i++
	}
	return s.i == len(s.b)
}

// lit consumes the literal t.
func (s *repScanner) lit(t string) bool {
	if !s.ok || len(s.b)-s.i < len(t) || string(s.b[s.i:s.i+len(t)]) != t {
		s.ok = false
		return false
	}
	s.i += len(t)
	return true
}

// number returns the JSON number at s.i (strict grammar) and whether it
// is an integer without fraction or exponent. The bytes are s.b's, not a
// copy: converting them to a string for strconv allocated three times a
// repetition.
func (s *repScanner) number() ([]byte, bool) {
	b, i := s.b, s.i
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		s.ok = false
		return nil, false
	}
	integer := true
	if i < len(b) && b[i] == '.' {
		integer = false
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			s.ok = false
			return nil, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		integer = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			s.ok = false
			return nil, false
		}
	}
	s.i = i
	return b[start:i], integer
}

// smallInt returns the value of t, an integer of the JSON grammar, when
// it has at most 15 digits (below 2^53: exact as an int and as a float64)
// and is not -0.
func smallInt(t []byte) (int64, bool) {
	neg := t[0] == '-'
	if neg {
		t = t[1:]
	}
	if len(t) > 15 || (neg && t[0] == '0') {
		return 0, false
	}
	var v int64
	for _, c := range t {
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

func (s *repScanner) int() int {
	if !s.ok {
		return 0
	}
	t, integer := s.number()
	if !s.ok || !integer {
		s.ok = false
		return 0
	}
	if v, ok := smallInt(t); ok {
		return int(v)
	}
	v, err := strconv.ParseInt(string(t), 10, 0)
	if err != nil {
		s.ok = false
	}
	return int(v)
}

func (s *repScanner) float() float64 {
	if !s.ok {
		return 0
	}
	t, integer := s.number()
	if !s.ok {
		return 0
	}
	if integer {
		// The integers of a metric (counts, nanoseconds) are exact in a
		// float64, as strconv.ParseFloat reads them.
		if v, ok := smallInt(t); ok {
			return float64(v)
		}
	}
	v, err := strconv.ParseFloat(string(t), 64)
	if err != nil {
		s.ok = false
	}
	return v
}

func (s *repScanner) bool() bool {
	if s.ok && s.i < len(s.b) && s.b[s.i] == 't' {
		return s.lit("true")
	}
	s.lit("false")
	return false
}

// strBytes returns the unescaped bytes of the JSON string at s.i, valid
// until the next call. It takes the escapes encoding/json writes except
// surrogates (\uD800-\uDFFF); the file is valid UTF-8 (parse checks).
func (s *repScanner) strBytes() []byte {
	if !s.lit(`"`) {
		return nil
	}
	b := s.b
	start := s.i
	i := start
	for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
		i++
	}
	if i < len(b) && b[i] == '"' {
		s.i = i + 1
		return b[start:i]
	}
	s.buf = append(s.buf[:0], b[start:i]...)
	for {
		if i >= len(b) || b[i] < 0x20 {
			s.ok = false
			return nil
		}
		c := b[i]
		if c == '"' {
			s.i = i + 1
			return s.buf
		}
		if c != '\\' {
			s.buf = append(s.buf, c)
			i++
			continue
		}
		if i+1 >= len(b) {
			s.ok = false
			return nil
		}
		switch e := b[i+1]; e {
		case '"', '\\', '/':
			s.buf = append(s.buf, e)
		case 'n':
			s.buf = append(s.buf, '\n')
		case 't':
			s.buf = append(s.buf, '\t')
		case 'r':
			s.buf = append(s.buf, '\r')
		case 'b':
			s.buf = append(s.buf, '\b')
		case 'f':
			s.buf = append(s.buf, '\f')
		case 'u':
			if i+6 > len(b) {
				s.ok = false
				return nil
			}
			v, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 16)
			if err != nil || (v >= 0xD800 && v < 0xE000) {
				s.ok = false
				return nil
			}
			s.buf = utf8.AppendRune(s.buf, rune(v))
			i += 4
		default:
			s.ok = false
			return nil
		}
		i += 2
	}
}

// keep returns b as a string in the scanner's text arena.
func (s *repScanner) keep(b []byte) string {
	if !s.ok || len(b) == 0 {
		return ""
	}
	if cap(s.text)-len(s.text) < len(b) {
		// A new piece: room for this string and, guessing from it, those
		// of the records left (at most 1 MiB; a larger string its own).
		s.text = make([]byte, 0, max(len(b), min(1<<20, len(b)*max(s.lines, 1))))
	}
	n := len(s.text)
	s.text = append(s.text, b...)
	return unsafe.String(&s.text[n], len(b))
}

func (s *repScanner) str() string {
	b := s.strBytes()
	if !s.ok {
		return ""
	}
	return string(b)
}

// name returns b as a string, the same string as for an earlier record
// when it was seen before (metric names and boot ids repeat), saving an
// allocation each.
func (s *repScanner) name(b []byte) string {
	if !s.ok {
		return ""
	}
	for _, n := range s.names {
		if n == string(b) {
			return n
		}
	}
	n := string(b)
	if len(s.names) < 16 {
		s.names = append(s.names, n)
	}
	return n
}

// intern returns the statuses as constants, saving an allocation each
// (string(t) in a comparison allocates nothing).
func (s *repScanner) intern(t []byte) string {
	if !s.ok {
		return ""
	}
	for _, c := range [...]string{StatusOK, StatusFailed, StatusTimeout, StatusInterrupted} {
		if string(t) == c {
			return c
		}
	}
	return string(t)
}

func (s *repScanner) time() time.Time {
	if !s.ok || s.i >= len(s.b) || s.b[s.i] != '"' {
		s.ok = false
		return time.Time{}
	}
	// The quoted text, as time.Time.UnmarshalJSON takes it.
	start := s.i
	s.strBytes()
	if !s.ok {
		return time.Time{}
	}
	q := s.b[start:s.i]
	if s.lastStart != nil && string(q) == string(s.lastStart) {
		return s.lastTime
	}
	var t time.Time
	if err := t.UnmarshalJSON(q); err != nil {
		s.ok = false
		return time.Time{}
	}
	s.lastStart, s.lastTime = append(s.lastStart[:0], q...), t
	return t
}

// metrics decodes a record's metrics into the scanner's arena, in pieces
// sized for the records left (at most 65,536 values, 1.5 MiB): one
// allocation for thousands of records where a map each cost one or two.
func (s *repScanner) metrics() Values {
	if !s.lit("{") {
		return nil
	}
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return Values{}
	}
	if s.reuse {
		s.arena = s.arena[:0]
	}
	start := len(s.arena)
	for s.ok {
		k := s.strBytes()
		if !s.lit(":") {
			return nil
		}
		x := Value{s.name(k), s.float()}
		if len(s.arena) == cap(s.arena) {
			// A new piece, this record's values moved to its start, with
			// room for as many for each record left.
			n := len(s.arena) - start + 1
			size := min(n*max(s.lines, 1), 1<<16)
			if s.reuse {
				size = 2 * n // for this record, and used again
			}
			a := make([]Value, 0, max(16, size))
			s.arena, start = append(a, s.arena[start:]...), 0
		}
		s.arena = append(s.arena, x)
		if s.i < len(s.b) && s.b[s.i] == ',' {
			s.i++
			continue
		}
		s.lit("}")
		break
	}
	v := Values(s.arena[start:len(s.arena):len(s.arena)])
	if !v.inOrder() {
		// Another writer's order, or a repeated name: the slow way,
		// as encoding/json reads it.
		v = v.Clone().normalize()
	}
	return v
}

func (s *repScanner) strs() []string {
	if !s.lit("[") {
		return nil
	}
	var l []string
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return []string{}
	}
	for s.ok {
		l = append(l, s.str())
		if s.i < len(s.b) && s.b[s.i] == ',' {
			s.i++
			continue
		}
		s.lit("]")
		break
	}
	return l
}
