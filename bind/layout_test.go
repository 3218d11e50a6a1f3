package bind

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// cClass is what a field is to C: a signed or unsigned integer of its
// size, or a pointer.
func cClass(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fmt.Sprintf("int%d", 8*t.Size())
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fmt.Sprintf("uint%d", 8*t.Size())
	case reflect.Ptr, reflect.UnsafePointer:
		return "pointer"
	case reflect.Struct:
		if t.NumField() == 1 && cClass(t.Field(0).Type) == "pointer" {
			return "pointer" // CString
		}
	}
	return t.String()
}

// cName is a field name without case and underscores: ReportFD and
// report_fd are both "reportfd".
func cName(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }

// fields returns the fields of t but cgo's padding (named _).
func fields(t reflect.Type) []reflect.StructField {
	var fs []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.Name != "_" {
			fs = append(fs, f)
		}
	}
	return fs
}

// TestParamLayouts checks that every parameter struct is its C struct, as
// cgo read it from the header: the same size, and field by field the same
// name, offset, size and signedness. A field added, moved, renamed or
// retyped on one side only fails here, not in a run.
func TestParamLayouts(t *testing.T) {
	pairs := ParamStructs()
	if len(pairs) < 6 {
		t.Fatalf("%d parameter structs, want one per native workload", len(pairs))
	}
	for _, p := range pairs {
		g, c := p[0], p[1]
		if g.Size() != c.Size() || g.Align() != c.Align() {
			t.Errorf("%s: size %d align %d, C %s: size %d align %d", g.Name(), g.Size(), g.Align(), c, c.Size(), c.Align())
		}
		gfs, cfs := fields(g), fields(c)
		if len(gfs) != len(cfs) {
			t.Errorf("%s has %d fields, its C struct %d", g.Name(), len(gfs), len(cfs))
			continue
		}
		for i := range gfs {
			gf, cf := gfs[i], cfs[i]
			if cName(gf.Name) != cName(cf.Name) || gf.Offset != cf.Offset || gf.Type.Size() != cf.Type.Size() || cClass(gf.Type) != cClass(cf.Type) {
				t.Errorf("%s field %d: %s %s at %d (%d bytes), C: %s %s at %d (%d bytes)", g.Name(), i,
					gf.Name, cClass(gf.Type), gf.Offset, gf.Type.Size(), cf.Name, cClass(cf.Type), cf.Offset, cf.Type.Size())
			}
		}
	}
}

// TestEnumChoices checks that the words of every enumerated parameter map
// to distinct values.
func TestEnumChoices(t *testing.T) {
	for _, e := range []Enum{THP(0), MutexVariant(0), SysbenchRand(0), Workers(0)} {
		seen := map[int64]string{}
		for _, c := range e.Choices() {
			if prev, dup := seen[c.Value]; dup {
				t.Errorf("%T: %s and %s are both %d", e, prev, c.Name, c.Value)
			}
			seen[c.Value] = c.Name
		}
	}
}

func TestCStringInterned(t *testing.T) {
	a, b := CStringOf("./x.so"), CStringOf("./x.so")
	if a != b || a.String() != "./x.so" || (CString{}).String() != "" {
		t.Errorf("CStringOf: %v %v %q", a, b, a.String())
	}
}

// TestMutexWorkMutexOwnsItsLines: the mutex workload's work mutex starts
// a 128-byte block (two cache lines, fetched together by adjacent-line
// prefetch) that no other global of native/mutex.c shares; left to the
// linker it shared a line with the gate mutex's tail.
func TestMutexWorkMutexOwnsItsLines(t *testing.T) {
	const block = 128
	addr, size := mutexGlobals()
	if len(addr) < 6 {
		t.Fatalf("%d globals, want the work mutex and 5 others", len(addr))
	}
	work := addr[0]
	if work%block != 0 {
		t.Errorf("work mutex at %#x, not at a %d-byte boundary", work, block)
	}
	if size[0] > block {
		t.Errorf("work mutex of %d bytes", size[0])
	}
	lo, hi := work&^(block-1), work&^(block-1)+block
	for i := 1; i < len(addr); i++ {
		if addr[i] < hi && addr[i]+size[i] > lo {
			t.Errorf("global %d of native/mutex.c at %#x (%d bytes) shares the work mutex's block [%#x, %#x)", i, addr[i], size[i], lo, hi)
		}
	}
}

// TestMutexGateOwnsItsLine: the gate mutex (the original's
// thread_start_mutex) has a cache line no other global of native/mutex.c
// shares, as in mainc.c's layout; left to the linker it shared one with
// the counters the threads increment in the loop.
func TestMutexGateOwnsItsLine(t *testing.T) {
	const line = 64
	addr, size := mutexGlobals()
	if len(addr) < 6 {
		t.Fatalf("%d globals, want the work mutex, the gate and 4 others", len(addr))
	}
	gate := addr[1]
	if gate%line != 0 || size[1] > line {
		t.Errorf("gate mutex at %#x (%d bytes), not alone on a %d-byte line", gate, size[1], line)
	}
	for i := 2; i < len(addr); i++ {
		if addr[i] < gate+line && addr[i]+size[i] > gate {
			t.Errorf("global %d of native/mutex.c at %#x (%d bytes) shares the gate's line [%#x, %#x)", i, addr[i], size[i], gate, gate+line)
		}
	}
}
