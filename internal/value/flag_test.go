package value

import (
	"flag"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// setCase is one text given to a flag value: the value it must become,
// or the words its error must contain.
type setCase struct {
	in   string
	want any      // the value Get returns after Set, when ok
	errs []string // words of the error, when refused
}

func checkSet(t *testing.T, name string, mk func() flag.Getter, cases []setCase) {
	t.Helper()
	for _, c := range cases {
		v := mk()
		err := v.Set(c.in)
		switch {
		case c.errs == nil && err != nil:
			t.Errorf("%s.Set(%q): %v", name, c.in, err)
		case c.errs == nil && v.Get() != c.want:
			t.Errorf("%s.Set(%q): Get = %v, want %v", name, c.in, v.Get(), c.want)
		case c.errs != nil && err == nil:
			t.Errorf("%s.Set(%q) accepted (%v)", name, c.in, v.Get())
		case c.errs != nil:
			for _, w := range c.errs {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s.Set(%q): error %q lacks %q", name, c.in, err, w)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("%s.Set(%q): error of several lines: %q", name, c.in, err)
			}
		}
	}
}

func TestIntFlag(t *testing.T) {
	runs := func() flag.Getter { return &Int{N: 6, Min: 1, Max: 100000} }
	checkSet(t, "Int", runs, []setCase{
		{in: "3", want: 3}, {in: " 12 ", want: 12}, {in: "+5", want: 5}, {in: "100000", want: 100000},
		{in: "0", errs: []string{"0 is out of range", "accepted: an integer from 1 to 100000"}},
		{in: "100001", errs: []string{"100001 is out of range"}},
		{in: "-1", errs: []string{"-1 is out of range"}},
		{in: "x", errs: []string{`"x" is not an integer`, "accepted: an integer from 1 to 100000"}},
		{in: "1.5", errs: []string{"not an integer"}}, {in: "1e9", errs: []string{"not an integer"}}, {in: "", errs: []string{`"" is not an integer`}},
		{in: "99999999999999999999", errs: []string{"99999999999999999999 is out of range", "from 1 to 100000"}},
	})
	seed := func() flag.Getter { return &Int{N: 1, Min: 0, Max: math.MaxInt} }
	checkSet(t, "seed", seed, []setCase{{in: "0", want: 0}, {in: "-1", errs: []string{"a non-negative integer"}}})
	wide := func() flag.Getter { return &Int{Min: math.MinInt, Max: math.MaxInt} }
	checkSet(t, "any", wide, []setCase{{in: "-7", want: -7}, {in: "z", errs: []string{"accepted: an integer"}}})
	if s := runs().(*Int).String(); s != "6" {
		t.Errorf("default shown as %q, want 6", s)
	}
	if s := (&Int{Min: 1, Max: 9}).String(); s != "" {
		t.Errorf("an Int without a default (N below Min) shows %q", s)
	}
}

func TestFloatFlag(t *testing.T) {
	psi := func() flag.Getter { return &Float{X: 10, Max: 100, Accepted: "a percentage from 0 to 100"} }
	checkSet(t, "Float", psi, []setCase{
		{in: "0", want: 0.0}, {in: "99.5", want: 99.5},
		{in: "101", errs: []string{"101 is not accepted", "accepted: a percentage from 0 to 100"}},
		{in: "-1", errs: []string{"is not accepted"}},
		{in: "NaN", errs: []string{`"NaN" is not a number`}}, {in: "Inf", errs: []string{"not a number"}}, {in: "ten", errs: []string{"not a number"}},
	})
	if s := psi().(*Float).String(); s != "10" {
		t.Errorf("default shown as %q", s)
	}
}

func TestLevelFlag(t *testing.T) {
	mk := func() flag.Getter { l := Level(0.05); return &l }
	checkSet(t, "Level", mk, []setCase{
		{in: "0.01", want: 0.01}, {in: " 0.1 ", want: 0.1},
		{in: "5", errs: []string{"5 is not accepted", AlphaRange}},
		{in: "0.5", errs: []string{"0.5 is not accepted"}}, {in: "0", errs: []string{"0 is not accepted"}},
		{in: "x", errs: []string{`"x" is not a number`, AlphaRange}},
	})
	if s := mk().(*Level).String(); s != "0.05" {
		t.Errorf("default shown as %q", s)
	}
}

func TestPercentFlag(t *testing.T) {
	band := func() flag.Getter { return &Percent{Zero: true} }
	checkSet(t, "band", band, []setCase{
		{in: "0", want: 0.0}, {in: "2%", want: 0.02}, {in: "0.02", want: 0.02},
		{in: "2", errs: []string{`"2" is not accepted`, "did you mean 2%?"}},
		{in: "two", errs: []string{`"two" is not accepted; accepted: a percentage from 0 to below 100%`}},
		{in: "150%", errs: []string{"below 100%"}}, {in: "-1%", errs: []string{"from 0 to below 100%"}},
	})
	until := func() flag.Getter { return &Percent{} }
	checkSet(t, "until", until, []setCase{
		{in: "5%", want: 0.05}, {in: "0%", errs: []string{"above 0 and below 100%"}}, {in: "x", errs: []string{"above 0 and below 100%"}}, {in: "100%", errs: []string{"below 100%"}},
	})
	if s := band().(*Percent).String(); s != "0%" {
		t.Errorf("default shown as %q", s)
	}
	if s := (&Percent{F: 0.05}).String(); s != "5%" {
		t.Errorf("5%% shown as %q", s)
	}
	if s := until().(*Percent).String(); s != "" {
		t.Errorf("no default, shown as %q", s)
	}
}

func TestDurationFlag(t *testing.T) {
	timeout := func() flag.Getter { return &Duration{} }
	checkSet(t, "timeout", timeout, []setCase{
		{in: "90s", want: 90 * time.Second}, {in: "10m", want: 10 * time.Minute},
		{in: "0", errs: []string{`"0" is not accepted`, "accepted: a positive duration such as 90s or 10m"}},
		{in: "-1s", errs: []string{"a positive duration"}}, {in: "10", errs: []string{"not accepted"}}, {in: "later", errs: []string{"not accepted"}},
	})
	iv := func() flag.Getter {
		return &Duration{D: 500 * time.Millisecond, Min: 10 * time.Millisecond, Max: time.Minute}
	}
	checkSet(t, "interval", iv, []setCase{
		{in: "2s", want: 2 * time.Second},
		{in: "5ms", errs: []string{"accepted: a duration from 10ms to 1m such as 500ms"}}, {in: "2m", errs: []string{"from 10ms to 1m"}},
	})
	settle := func() flag.Getter { return &Duration{D: time.Minute, Max: time.Hour, Zero: true} }
	checkSet(t, "settle", settle, []setCase{{in: "0s", want: time.Duration(0)}, {in: "2h", errs: []string{"a duration from 0 to 1h"}}})
	// A floor without a ceiling is said (it was "a positive duration",
	// and --timeout took 1ns).
	floor := func() flag.Getter { return &Duration{Min: time.Millisecond} }
	checkSet(t, "timeout", floor, []setCase{{in: "1ms", want: time.Millisecond}, {in: "1ns", errs: []string{`"1ns" is not accepted; accepted: a duration of at least 1ms`}}})
	cost := func() flag.Getter { return &Duration{Max: 24 * time.Hour} }
	checkSet(t, "cost", cost, []setCase{{in: "25h", errs: []string{"a positive duration up to 24h"}}})
	for _, c := range []struct {
		v    *Duration
		want string
	}{{&Duration{}, ""}, {&Duration{D: time.Minute}, "1m"}, {&Duration{D: 10 * time.Minute}, "10m"}, {&Duration{D: time.Hour}, "1h"}, {&Duration{D: 90 * time.Second}, "1m30s"}, {&Duration{D: 500 * time.Millisecond}, "500ms"}} {
		if s := c.v.String(); s != c.want {
			t.Errorf("Duration %v shown as %q, want %q", c.v.D, s, c.want)
		}
	}
}

func TestBoolTextFlag(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	var pin, other BoolText
	fs.Var(&pin, "pin", "")
	fs.Var(&other, "other", "")
	if err := fs.Parse([]string{"--pin", "--other=maybe", "rest"}); err != nil {
		t.Fatal(err)
	}
	if pin != "true" || other != "maybe" || fs.NArg() != 1 {
		t.Errorf("--pin --other=maybe rest: pin %q, other %q, %d arguments; want true, maybe (kept for its reader), 1", pin, other, fs.NArg())
	}
}

func TestEnumFlag(t *testing.T) {
	mk := func() flag.Getter {
		return &Enum{W: "text", Words: []string{"text", "json", "original"}, Aliases: map[string]string{"js": "json"}, Refused: map[string]string{"csv": "csv is a sweep's table"}}
	}
	checkSet(t, "Enum", mk, []setCase{
		{in: "text", want: "text"},
		{in: "json", want: "json"},
		{in: "original", want: "original"},
		{in: "js", want: "json"},
		{in: "xml", errs: []string{`"xml" is not accepted; accepted: text, json, original`}},
		{in: "Text", errs: []string{`"Text" is not accepted`}},
		{in: " json", errs: []string{`" json" is not accepted`}},
		{in: "", errs: []string{`"" is not accepted; accepted: text, json, original`}},
		{in: "csv", errs: []string{`"csv" is not accepted: csv is a sweep's table; accepted: text, json, original`}},
	})
	v := mk().(*Enum)
	if got := v.Choices(); !slices.Equal(got, []string{"text", "json", "original"}) {
		t.Errorf("Choices = %q, want the words without the alias", got)
	}
	if v.String() != "text" || (&Enum{Words: []string{"a"}}).String() != "" || (*Enum)(nil).String() != "" {
		t.Errorf("String: %q, want the preset default, and empty without one", v.String())
	}
}
