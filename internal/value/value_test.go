package value

import (
	"strings"
	"testing"
	"time"
)

func TestFraction(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
	}{{"5%", 0.05}, {" 2.5 % ", 0.025}, {"0.05", 0.05}, {"0", 0}, {"0%", 0}, {"100%", 1}, {"150", 150}} {
		got, err := Fraction(c.in)
		if err != nil || got != c.want {
			t.Errorf("Fraction(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, msg string }{
		{"5", "did you mean 5%?"}, {"x", "percentage"}, {"", "percentage"}, {"%", "percentage"}, {"NaN", "percentage"}, {"Inf%", "percentage"},
	} {
		if _, err := Fraction(c.in); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Fraction(%q): error %v, want one containing %q", c.in, err, c.msg)
		}
	}
}

func TestAlpha(t *testing.T) {
	for _, a := range []float64{1e-6, 0.01, 0.05, 0.49} {
		if err := Alpha(a); err != nil {
			t.Errorf("Alpha(%v): %v", a, err)
		}
	}
	for _, a := range []float64{0, -0.05, 0.5, 0.9, 1} {
		if err := Alpha(a); err == nil || !strings.Contains(err.Error(), AlphaRange) {
			t.Errorf("Alpha(%v): error %v, want one stating %q", a, err, AlphaRange)
		}
	}
	if a, err := ParseAlpha(" 0.01 "); err != nil || a != 0.01 {
		t.Errorf("ParseAlpha(0.01) = %v, %v", a, err)
	}
	if _, err := ParseAlpha("five"); err == nil {
		t.Error("ParseAlpha(five) accepted")
	}
}

func TestTimeout(t *testing.T) {
	if d, err := Timeout("90s"); err != nil || d != 90*time.Second {
		t.Errorf("Timeout(90s) = %v, %v", d, err)
	}
	for _, s := range []string{"0s", "-1s", "90", ""} {
		if _, err := Timeout(s); err == nil {
			t.Errorf("Timeout(%q) accepted", s)
		}
	}
}

// TestDecimal: only decimal notation is a number of a flag; strconv's hex,
// underscores, Inf and NaN are not (--alpha 0x1p-4 was 0.0625, --stride
// 1_000 was 1000 bytes).
func TestDecimal(t *testing.T) {
	for _, s := range []string{"0", "5", "+1", "-2", "0.05", ".5", "5.", "1e3", "1E-3", "2.5e+2"} {
		if !Decimal(s) {
			t.Errorf("Decimal(%q) = false", s)
		}
	}
	for _, s := range []string{"", "-", ".", "e3", "1e", "1e+", "0x1p-4", "0x10", "1_000", "Inf", "NaN", "infinity", "1.2.3", "1 2", "5%"} {
		if Decimal(s) {
			t.Errorf("Decimal(%q) = true", s)
		}
	}
	for _, s := range []string{"0x1p-4", "1_0e-2"} {
		if a, err := ParseAlpha(s); err == nil {
			t.Errorf("ParseAlpha(%q) = %v, want a refusal", s, a)
		}
		if f, err := Fraction(s); err == nil {
			t.Errorf("Fraction(%q) = %v, want a refusal", s, f)
		}
		x := Float{Max: 1e9, Accepted: "a number"}
		if err := x.Set(s); err == nil {
			t.Errorf("Float.Set(%q) = %v, want a refusal", s, x.X)
		}
	}
}
