package results

import (
	"encoding/json"
	"math"
	"strconv"
	"time"
)

// A repEncoder writes repetition records as encoding/json does, byte for
// byte, several times faster: it writes the common cases itself (ASCII
// text, numbers written without exponent) and asks encoding/json for the
// rest (a string with other characters, a very large or small number, a
// repetition with series). TestFastEncodeMatchesJSON checks it.
type repEncoder struct {
	lastStart time.Time
	startJSON []byte
}

// appendRep appends r's record, without newline, to b.
func (e *repEncoder) appendRep(b []byte, r *Rep) ([]byte, error) {
	if len(r.Series) > 0 {
		x, err := json.Marshal(record{Rep: r})
		return append(b, x...), err
	}
	b = append(b, `{"rep":{"index":`...)
	b = strconv.AppendInt(b, int64(r.Index), 10)
	b = append(b, `,"config":`...)
	b = strconv.AppendInt(b, int64(r.Config), 10)
	if r.Warmup {
		b = append(b, `,"warmup":true`...)
	}
	if r.Round != 0 {
		b = append(b, `,"round":`...)
		b = strconv.AppendInt(b, int64(r.Round), 10)
	}
	b = append(b, `,"status":`...)
	b = appendJSONString(b, r.Status)
	if r.Error != "" {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, r.Error)
	}
	if !r.Start.IsZero() {
		if e.startJSON == nil || r.Start != e.lastStart {
			x, err := r.Start.MarshalJSON()
			if err != nil {
				// As encoding/json says it.
				_, err = json.Marshal(record{Rep: r})
				return b, err
			}
			e.lastStart, e.startJSON = r.Start, x
		}
		b = append(b, `,"start":`...)
		b = append(b, e.startJSON...)
	}
	if len(r.Metrics) > 0 {
		b = append(b, `,"metrics":{`...)
		for i, x := range r.Metrics.sorted() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, x.Name)
			b = append(b, ':')
			b = appendJSONFloat(b, x.X)
		}
		b = append(b, '}')
	}
	if len(r.Notes) > 0 {
		b = append(b, `,"notes":[`...)
		for i, n := range r.Notes {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, n)
		}
		b = append(b, ']')
	}
	if r.Output != "" {
		b = append(b, `,"output":`...)
		b = appendJSONString(b, r.Output)
	}
	if r.LoadAvg != 0 {
		b = append(b, `,"loadavg":`...)
		b = appendJSONFloat(b, r.LoadAvg)
	}
	if r.BootID != "" {
		b = append(b, `,"boot_id":`...)
		b = appendJSONString(b, r.BootID)
	}
	return append(b, "}}"...), nil
}

// appendJSONString appends s as a JSON string, as encoding/json writes
// it: printable ASCII but for the HTML characters <, > and & as it is,
// with \" \\ \n \t escaped; anything else it leaves to encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f || c == '<' || c == '>' || c == '&' {
			x, _ := json.Marshal(s) // a string always encodes
			return append(b, x...)
		}
	}
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '"':
			esc = `\"`
		case '\\':
			esc = `\\`
		case '\n':
			esc = `\n`
		case '\t':
			esc = `\t`
		default:
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, esc...)
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendJSONFloat appends the finite v as encoding/json writes it: the
// shortest decimal that reads back as v, without exponent for 0 and
// 1e-6 <= |v| < 1e21; the others (with exponent) by encoding/json.
func appendJSONFloat(b []byte, v float64) []byte {
	if a := math.Abs(v); a >= 1 && a < 1<<53 && v == math.Trunc(v) {
		// An integer below 2^53: its shortest decimal is its digits (a
		// decimal with fewer digits is at least 1 away, more than half
		// the spacing of float64s there), written as an int, faster.
		return strconv.AppendInt(b, int64(v), 10)
	}
	if a := math.Abs(v); a == 0 || (a >= 1e-6 && a < 1e21) {
		return strconv.AppendFloat(b, v, 'f', -1, 64)
	}
	x, _ := json.Marshal(v) // finite: checked before
	return append(b, x...)
}
