#!/usr/bin/python3
"""gen_mmtests.py writes the mmtests JSON files of the tests: runs as
compare-mmtests.pl --from-json reads them (an array of extract modules,
_TestName and _ResultData: per operation, per iteration, Values and
SampleNrs), with values drawn from a fixed seed. hackbench prefers lower
values (Amean), ebizzy higher (Hmean). ../../../examples/mmtests-hackbench.json is the same hackbench
runs in the shape of --json-export (the comparison object, its
_ExtractModules)."""
import json, random

rng = random.Random(41)

def module(name, test, ops, iters, shift, higher):
    data = {}
    for op, (centre, sd) in ops.items():
        its = []
        for i in range(iters):
            v = rng.gauss(centre * shift.get(op, 1.0), sd)
            its.append({"Values": [round(v, 6)], "SampleNrs": [i + 1]})
        data[op] = its
    m = {"_ModuleName": "Extract" + name, "_TestName": test, "_ResultData": data}
    if higher:
        m["_PreferredVal"] = "Higher"
    return m

hb = {"time-1": (0.45, 0.01), "time-4": (1.60, 0.05), "time-16": (6.1, 0.08)}
runs = [module("Hackbench", "6.2.0-rc3-vanilla", hb, 8, {}, False),
        module("Hackbench", "6.2.0-rc3-patched", hb, 8, {"time-16": 0.93, "time-4": 0.99}, False),
        module("Hackbench", "6.2.0-rc3-revert", hb, 8, {"time-1": 1.08}, False)]
json.dump(runs, open("hackbench.json", "w"), indent=1)
export = [dict(m, _Precision=4, _PreferredVal="Lower", _FieldLength=18,
               _Operations=["time-1", "time-4", "time-16"]) for m in runs]
json.dump({"_ModuleName": "CompareShellpackhackbench", "_FieldLength": 18, "_Precision": 4,
           "_ExtractModules": export}, open("../../../examples/mmtests-hackbench.json", "w"))

eb = {"total_rsec-1": (41000, 900), "total_rsec-8": (280000, 2500)}
runs = [module("Ebizzy", "6.8-base", eb, 6, {}, True),
        module("Ebizzy", "6.8-vma-locks", eb, 6, {"total_rsec-8": 1.04}, True)]
json.dump(runs, open("ebizzy.json", "w"), indent=1)
