package bind

/*
#include <stddef.h>
#include <stdint.h>

int ct_mutex_layout(uintptr_t *addr, size_t *size, int n);
*/
import "C"

import "reflect"

var paramStructs [][2]reflect.Type

// registerParams records that the parameter struct goType is passed to C
// as cType (cgo's view of the C struct): each bind/NAME.go calls it in its
// init, so that TestParamLayouts checks the pair field by field.
func registerParams(goType, cType reflect.Type) {
	paramStructs = append(paramStructs, [2]reflect.Type{goType, cType})
}

// ParamStructs returns every parameter struct of this package with cgo's
// view of its C struct: internal/workload's tests check that every
// workload reads one of them.
func ParamStructs() [][2]reflect.Type { return paramStructs }

// mutexGlobals returns the addresses and sizes of native/mutex.c's
// globals, the work mutex first (a hook for the layout test: test files
// cannot use cgo).
func mutexGlobals() (addr []uintptr, size []uintptr) {
	var a [16]C.uintptr_t
	var s [16]C.size_t
	n := int(C.ct_mutex_layout(&a[0], &s[0], C.int(len(a))))
	for i := range min(n, len(a)) {
		addr = append(addr, uintptr(a[i]))
		size = append(size, uintptr(s[i]))
	}
	return addr, size
}
