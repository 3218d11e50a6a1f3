package bind

/*
#include "faultme.h"
#include "mutex.h"
#include "osim.h"
#include "plugin.h"
#include "semop_multi.h"
#include "sysbench_mutex.h"
*/
import "C"

import "reflect"

// ParamStructs pairs every parameter struct of this package with cgo's
// view of the C struct it is passed to C as: TestParamLayouts checks them
// field by field, and internal/workload's tests check that every workload
// reads one of them. A new workload adds its pair here.
func ParamStructs() [][2]reflect.Type {
	return [][2]reflect.Type{
		{reflect.TypeOf(FaultmeParams{}), reflect.TypeOf(C.struct_ct_faultme_params{})},
		{reflect.TypeOf(MutexParams{}), reflect.TypeOf(C.struct_ct_mutex_params{})},
		{reflect.TypeOf(OsimParams{}), reflect.TypeOf(C.struct_ct_osim_params{})},
		{reflect.TypeOf(PluginParams{}), reflect.TypeOf(C.struct_ct_plugin_params{})},
		{reflect.TypeOf(SemopMultiParams{}), reflect.TypeOf(C.struct_ct_semop_multi_params{})},
		{reflect.TypeOf(SysbenchMutexParams{}), reflect.TypeOf(C.struct_ct_sbm_params{})},
	}
}
