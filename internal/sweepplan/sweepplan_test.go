package sweepplan

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"contend/internal/sweep"
	"contend/internal/workload"
)

var (
	threadsP = workload.Param{Name: "threads", Kind: workload.Int, Min: 1, Max: 1 << 22, Unit: "threads"}
	memP     = workload.Param{Name: "mem", Kind: workload.Size, Min: 1, Max: 1 << 40, Unit: "bytes"}
	durP     = workload.Param{Name: "duration", Kind: workload.Duration, Min: int64(time.Millisecond), Max: int64(time.Hour)}
	thpP     = workload.Param{Name: "thp", Kind: workload.Enum, Choices: []string{"leave", "never", "huge"}}
)

func TestParseListGood(t *testing.T) {
	cases := []struct {
		p    workload.Param
		in   string
		want string
	}{
		{threadsP, "1,2,4,8", "1 2 4 8"},
		{threadsP, "4", "4"},
		{threadsP, " 8 , 1 ", "8 1"},
		{threadsP, "1..64x2", "1 2 4 8 16 32 64"},
		{threadsP, "1..100x2", "1 2 4 8 16 32 64"},
		{threadsP, "3..30x3", "3 9 27"},
		{threadsP, "1..10x1.5", "1 2 3 5 8"}, // 1, 1.5, 2.25, 3.4, 5.1, 7.6: rounded, repeats dropped
		{threadsP, "10..100+10", "10 20 30 40 50 60 70 80 90 100"},
		{threadsP, "10..95+10", "10 20 30 40 50 60 70 80 90"},
		{threadsP, "5..5+1", "5"},
		{threadsP, "1,2..8+2,16", "1 2 4 6 8 16"},
		{memP, "1MiB..8MiBx2", "1048576 2097152 4194304 8388608"},
		{memP, "1MiB..3MiB+1MiB", "1048576 2097152 3145728"},
		{durP, "100ms..300ms+100ms", "100000000 200000000 300000000"},
		{durP, "1..3+1", "1000000000 2000000000 3000000000"},
		{thpP, "never,huge", "never huge"},
	}
	for _, c := range cases {
		got, err := ParseList(c.p, c.in)
		if err != nil {
			t.Errorf("%s %q: %v", c.p.Name, c.in, err)
			continue
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("%s %q = %s, want %s", c.p.Name, c.in, s, c.want)
		}
	}
}

func TestParseListBad(t *testing.T) {
	cases := []struct {
		p    workload.Param
		in   string
		want string
	}{
		{threadsP, "", "empty list"},
		{threadsP, "1,,2", "empty item"},
		{threadsP, "0,1", "0 is out of range"},
		{threadsP, "1,2,2", "2 is given twice"},
		{threadsP, "1..8x2,4", "4 is given twice"},
		{threadsP, "1..8", "needs a step"},
		{threadsP, "8..1x2", "is reversed"}, {threadsP, "8..1", "is reversed: a range goes up, such as 1..8+1"},
		{threadsP, "1..8x1", "not a number above 1"},
		{threadsP, "1..8xq", "not a number above 1"},
		{threadsP, "1..x", `"1..x": a range needs both ends`}, {threadsP, "..8x2", `"..8x2": a range needs both ends`},
		{threadsP, "1..8+0", "not a positive integer"},
		{threadsP, "1..8+-1", "not a positive integer"},
		{threadsP, "1..1000+1", "more than 256 values"},
		{threadsP, "1..2000x1.001", "more than 256 values"},
		{threadsP, "0..8+2", "0 is out of range"},
		{threadsP, "1..5000000x2", "out of range"},
		{threadsP, "a,b", `"a" is not an integer`},
		{memP, "1MiB..2TiBx2", "out of range"},
		{memP, "1MiB..4MiB+ten", "not a positive size"},
		{thpP, "never..huge+1", "a range needs a numeric parameter"},
		{thpP, "never,sometimes", "not a choice"},
	}
	for _, c := range cases {
		_, err := ParseList(c.p, c.in)
		if err == nil {
			t.Errorf("%s %q: no error", c.p.Name, c.in)
			continue
		}
		var ue *workload.UsageError
		if !asUsage(err, &ue) {
			t.Errorf("%s %q: %v is not a usage error", c.p.Name, c.in, err)
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "--"+c.p.Name) {
			t.Errorf("%s %q: error %q lacks %q or the flag name", c.p.Name, c.in, err, c.want)
		}
	}
}

func asUsage(err error, ue **workload.UsageError) bool {
	u, ok := err.(*workload.UsageError)
	*ue = u
	return ok
}

func TestPlanRounds(t *testing.T) {
	const points, rounds, warmup = 5, 4, 1
	slots := Plan(points, rounds, warmup, sweep.OrderShuffled, 42)
	if len(slots) != points*(rounds+warmup) {
		t.Fatalf("%d slots, want %d", len(slots), points*(rounds+warmup))
	}
	var orders [][]int
	for r := -warmup; r < rounds; r++ {
		// Every round is one contiguous block holding every point once.
		block := slots[(r+warmup)*points : (r+warmup+1)*points]
		var cs []int
		for _, s := range block {
			if s.Round != r || s.Warmup != (r < 0) {
				t.Fatalf("round %d holds slot %+v", r, s)
			}
			cs = append(cs, s.Config)
		}
		orders = append(orders, slices.Clone(cs))
		slices.Sort(cs)
		if !slices.Equal(cs, []int{0, 1, 2, 3, 4}) {
			t.Fatalf("round %d runs %v, not every point once", r, cs)
		}
	}
	distinct := map[string]bool{}
	for _, o := range orders {
		distinct[fmt.Sprint(o)] = true
	}
	if len(distinct) < 2 {
		t.Errorf("shuffled rounds all have the same order %v", orders[0])
	}
	if again := Plan(points, rounds, warmup, sweep.OrderShuffled, 42); !slices.Equal(again, slots) {
		t.Error("the same seed gave another plan")
	}
	if other := Plan(points, rounds, warmup, sweep.OrderShuffled, 43); slices.Equal(other, slots) {
		t.Error("another seed gave the same plan")
	}
	fixed := Plan(3, 2, 0, sweep.OrderFixed, 99)
	var got []int
	for _, s := range fixed {
		got = append(got, s.Config)
	}
	if !slices.Equal(got, []int{0, 1, 2, 0, 1, 2}) {
		t.Errorf("fixed order %v", got)
	}
}

func TestPoints(t *testing.T) {
	base := workload.Values{"threads": "1", "mem": "4096"}
	pts := Points(base, []Axis{{memP, []string{"1048576", "2097152"}}, {threadsP, []string{"1", "2"}}})
	var names []string
	for _, p := range pts {
		names = append(names, p.Name)
	}
	want := "mem=1MiB threads=1|mem=1MiB threads=2|mem=2MiB threads=1|mem=2MiB threads=2"
	if strings.Join(names, "|") != want {
		t.Errorf("points %v", names)
	}
	if pts[3].Values["mem"] != "2097152" || pts[3].Values["threads"] != "2" || base["threads"] != "1" {
		t.Errorf("values %v, base %v", pts[3].Values, base)
	}
}
