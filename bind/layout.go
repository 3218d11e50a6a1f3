package bind

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
