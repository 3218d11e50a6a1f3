// Package ab runs two configurations of a workload alternately in one boot:
// the order of the sides, the per-side prepare commands, and the tracefs
// event switch that side B turns on.
package ab

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Order is how the repetitions of sides A (0) and B (1) alternate.
type Order string

// Orders.
const (
	// OrderAB runs A B A B ...
	OrderAB Order = "ab"
	// OrderABBA runs A B B A A B B A ..., which cancels a linear drift
	// within every four repetitions.
	OrderABBA Order = "abba"
	// OrderRandom runs each pair in a random order (A B or B A), drawn
	// from a seeded generator: balanced after every pair, unpredictable
	// within it.
	OrderRandom Order = "random"
)

// Orders are the orders, as --order lists them.
var Orders = []Order{OrderAB, OrderABBA, OrderRandom}

// OrderNames returns the names of Orders, the words --order accepts.
func OrderNames() []string {
	ns := make([]string, len(Orders))
	for i, o := range Orders {
		ns[i] = string(o)
	}
	return ns
}

// ParseOrder checks an --order value.
func ParseOrder(s string) (Order, error) {
	if slices.Contains(Orders, Order(s)) {
		return Order(s), nil
	}
	return "", fmt.Errorf("--order: %q is not accepted; accepted: %s", s, strings.Join(OrderNames(), ", "))
}

// Pair returns the order of the sides in pair number i (from 0): [0 1] or
// [1 0].
func (o Order) Pair(i int, rng *rand.Rand) [2]int {
	switch o {
	case OrderABBA:
		if i%2 == 1 {
			return [2]int{1, 0}
		}
	case OrderRandom:
		if rng.IntN(2) == 1 {
			return [2]int{1, 0}
		}
	}
	return [2]int{0, 1}
}

// Sequence returns the sides of n pairs in run order.
func (o Order) Sequence(n int, seed uint64) []int {
	rng := NewRand(seed)
	var s []int
	for i := 0; i < n; i++ {
		p := o.Pair(i, rng)
		s = append(s, p[0], p[1])
	}
	return s
}

// NewRand returns the generator of OrderRandom for seed.
func NewRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }
