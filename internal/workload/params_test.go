package workload

import (
	"strings"
	"testing"

	"contend/internal/limits"
)

// TestParseSizeRefuses: texts that are not a whole number of bytes within
// int64 are refused, never wrapped or rounded. Before, a negative count of
// a unit overflowed into a small positive size (-18014398509481920K was
// 64 KiB), "1.5" was rounded to 2 bytes, and strconv's hex and underscore
// forms were sizes.
func TestParseSizeRefuses(t *testing.T) {
	for in, want := range map[string]string{
		"-18014398509481920K":   "too small",
		"-9223372036854775807K": "too small",
		"-9007199254740993GiB":  "too small",
		"9007199254740993GiB":   "too large",
		"1.5":                   "not a whole number of bytes",
		"0.1KiB":                "not a whole number of bytes",
		"-0.5":                  "not a whole number of bytes",
		"1e-400KiB":             "not a whole number of bytes",
		"0x1p12":                "not a size",
		"1_024":                 "not a size",
		"Inf":                   "not a size",
		"NaN":                   "not a size",
		"1e":                    "not a size",
		".K":                    "not a size",
	} {
		n, err := ParseSize(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSize(%q) = %d, %v; want an error saying %q", in, n, err, want)
		}
	}
	for in, want := range map[string]int64{
		"4096": 4096, "4k": 4096, "4KiB": 4096, "1.5G": 3 << 29, "1e3": 1000, "+1": 1, "0.5KiB": 512,
		"-1": -1, "1GB": 1e9, "8TiB": 8 << 40, " 2 MiB ": 2 << 20, "1.25e1KiB": 12800,
	} {
		if n, err := ParseSize(in); err != nil || n != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, n, err, want)
		}
	}
}

// TestParseIntTooSmall: a negative integer beyond int64 is said to be too
// small (it was "too large").
func TestParseIntTooSmall(t *testing.T) {
	p := Param{Name: "threads", Kind: Int, Min: 1, Max: 10}
	if _, err := p.Parse("-9223372036854775809"); err == nil || !strings.Contains(err.Error(), "too small") {
		t.Errorf("Parse: %v", err)
	}
	if _, err := p.Parse("9223372036854775808"); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("Parse: %v", err)
	}
}

// TestFaultmeMemoryBelowPageStride: a stride below the page reads every
// page of --mem once, so where read faults allocate real pages the run
// needs --mem of RAM, not one page per read (--stride 1 over 32 MiB was
// refused as needing 128 GiB).
func TestFaultmeMemoryBelowPageStride(t *testing.T) {
	m := limits.Machine{MemAvailable: 1 << 30, NoZeroPage: true}
	check := func(given map[string]string) error {
		v, err := Faultme.Resolve(given)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Faultme.Check(v, m)
		return err
	}
	for _, stride := range []string{"1", "100", "4096"} {
		if err := check(map[string]string{"threads": "2", "mem": "32MiB", "stride": stride}); err != nil {
			t.Errorf("--stride %s over 32MiB with 1GiB available: %v", stride, err)
		}
	}
	err := check(map[string]string{"threads": "2", "mem": "2GiB", "stride": "1"})
	if err == nil || !strings.Contains(err.Error(), "allocates 2GiB") {
		t.Errorf("--stride 1 over 2GiB with 1GiB available: %v; want a refusal naming 2GiB", err)
	}
	err = check(map[string]string{"threads": "2", "mem": "1GiB", "stride": "8192"})
	if err != nil {
		t.Errorf("--stride 8192 over 1GiB (512MiB of pages) with 1GiB available: %v", err)
	}
}

// TestFaultmeStacksOfTheStackLimit: faultme's threads take the default
// stack, whose size is the stack limit (ulimit -s; 2 MiB on x86-64 when
// unlimited), and the address-space check counts that size, not a fixed
// 8 MiB: 20 stacks of 64 MiB do not fit in 1 GiB, 200 of 2 MiB do.
func TestFaultmeStacksOfTheStackLimit(t *testing.T) {
	check := func(threads string, stack int64) error {
		v, err := Faultme.Resolve(map[string]string{"threads": threads, "mem": "1MiB"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Faultme.Check(v, limits.Machine{AddressSpace: 1 << 30, ThreadStack: stack})
		return err
	}
	if err := check("20", 64<<20); err == nil || !strings.Contains(err.Error(), "20 thread stacks of 64MiB") {
		t.Errorf("20 threads of 64MiB stacks under a 1GiB RLIMIT_AS: %v; want a refusal naming the stacks", err)
	}
	if err := check("200", 2<<20); err != nil {
		t.Errorf("200 threads of 2MiB stacks under a 1GiB RLIMIT_AS: %v", err)
	}
}
