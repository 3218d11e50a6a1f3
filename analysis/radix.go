package analysis

import (
	"math"
	"sort"
	"unsafe"
)

// radixMin is the length from which sortFloats sorts by radix.
const radixMin = 512

// sortFloats sorts xs (no NaN) in increasing order, leaving exactly what
// sort.Float64s leaves: an in-place most-significant-byte-first radix
// sort of the bits (orderedKey), several times faster on large samples,
// when xs holds no -0; equal float64s other than -0 and +0 are then the
// same bits, so any sort gives the same array. With a -0 (whose place
// among the +0s depends on the algorithm), or a NaN, it is sort.Float64s.
// It takes no memory beyond xs.
func sortFloats(xs []float64) {
	n := len(xs)
	if n < radixMin {
		sort.Float64s(xs)
		return
	}
	// The keys are written over the values, and back after.
	keys := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(xs))), n)
	for i, x := range xs {
		if x != x || (x == 0 && math.Signbit(x)) {
			for j := range i { // undo the keys made so far
				keys[j] = math.Float64bits(fromOrderedKey(keys[j]))
			}
			sort.Float64s(xs)
			return
		}
		keys[i] = orderedKey(x)
	}
	radixSort(keys, 56)
	for i, k := range keys {
		xs[i] = fromOrderedKey(k)
	}
}

// radixSort sorts keys by their bits from shift+7 down, in place: each
// byte's 256 buckets are filled by swapping each key into its bucket
// (American flag sort), then each bucket is sorted by the next byte. A
// byte every key shares is passed over; a small bucket is sorted by
// insertion.
func radixSort(keys []uint64, shift uint) {
	for {
		if len(keys) <= 32 {
			for i := 1; i < len(keys); i++ {
				for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
					keys[j], keys[j-1] = keys[j-1], keys[j]
				}
			}
			return
		}
		var count [256]int
		for _, k := range keys {
			count[byte(k>>shift)]++
		}
		if count[byte(keys[0]>>shift)] == len(keys) {
			if shift == 0 {
				return // every key the same
			}
			shift -= 8
			continue
		}
		var next, end [256]int
		at := 0
		for v, c := range count {
			next[v], at = at, at+c
			end[v] = at
		}
		for v := range 256 {
			for next[v] < end[v] {
				k := keys[next[v]]
				for d := byte(k >> shift); d != byte(v); d = byte(k >> shift) {
					keys[next[d]], k = k, keys[next[d]]
					next[d]++
				}
				keys[next[v]] = k
				next[v]++
			}
		}
		if shift == 0 {
			return
		}
		start := 0
		for _, c := range count {
			if c > 1 {
				radixSort(keys[start:start+c], shift-8)
			}
			start += c
		}
		return
	}
}
