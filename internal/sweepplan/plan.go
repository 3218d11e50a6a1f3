package sweepplan

import (
	"math/rand/v2"
	"strings"

	"contend/internal/harness"
	"contend/internal/sweep"
	"contend/internal/workload"
)

// Axis is one swept parameter with its canonical values.
type Axis struct {
	Param  workload.Param
	Values []string
}

// Point is one configuration of a sweep.
type Point struct {
	Name   string          // "threads=4", "locks=1000 threads=4"
	Values workload.Values // complete, resolved
}

// Points returns the cartesian product of the axes over base (the fixed
// parameters), the first axis varying slowest, each point named by its
// swept values ("threads=4"). base is not modified.
func Points(base workload.Values, axes []Axis) []Point {
	pts := []Point{{Values: base.Clone()}}
	for _, a := range axes {
		var next []Point
		for _, p := range pts {
			for _, v := range a.Values {
				q := Point{Values: p.Values.Clone()}
				q.Values[a.Param.Name] = v
				q.Name = strings.TrimSpace(p.Name + " " + a.Param.Name + "=" + a.Param.Display(v))
				next = append(next, q)
			}
		}
		pts = next
	}
	return pts
}

// Plan returns the slots of a sweep of points configurations: warmup
// warm-up rounds (rounds -warmup..-1) then rounds measured rounds (0..rounds-1),
// each round running every point once. With order sweep.OrderShuffled each
// round is an independent random permutation drawn from seed (the same
// seed gives the same plan); with sweep.OrderFixed every round runs the points
// in their order. Taking repetitions in rounds spreads slow drift (heat,
// memory fragmentation, background load) evenly over the points instead
// of letting it bend the curve; shuffling also keeps a point from always
// following the same neighbour.
func Plan(points, rounds, warmup int, order string, seed int64) []harness.Slot {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x636f6e74656e64)) // "contend"
	var slots []harness.Slot
	for r := -warmup; r < rounds; r++ {
		perm := make([]int, points)
		for i := range perm {
			perm[i] = i
		}
		if order == sweep.OrderShuffled {
			rng.Shuffle(points, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		}
		for _, c := range perm {
			slots = append(slots, harness.Slot{Config: c, Warmup: r < 0, Round: r})
		}
	}
	return slots
}
