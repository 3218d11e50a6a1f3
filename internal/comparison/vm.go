package comparison

import (
	"fmt"
	"slices"
	"strings"
)

// vmNotes says, before the headline, that the results were measured in
// virtual machines (their files' vm.* environment, internal/vm): "in a
// VM (TCG)" with the caveat that emulated timings include the emulation,
// or "(KVM)"; sides measured under different accelerators, or some in a
// VM and some not, are said to be not comparable as they are.
func vmNotes(sides []Side) []string {
	var accels [][]string
	var any bool
	var details []string
	for _, s := range sides {
		var a []string
		for _, p := range s.Parts {
			e := PartEnv(p)
			v := e["vm.accel"]
			if v == "" {
				v = "none"
			} else {
				any = true
				d := fmt.Sprintf("%s vCPUs, %s, QEMU %s", e["vm.cpus"], e["vm.mem"], e["vm.qemu"])
				if m := e["vm.tcg"]; m != "" {
					d = fmt.Sprintf("%s vCPUs %s-threaded, %s, QEMU %s", e["vm.cpus"], m, e["vm.mem"], e["vm.qemu"])
				}
				if h := e["vm.host_cpu"]; h != "" {
					d += ", host " + h
				}
				if !slices.Contains(details, d) {
					details = append(details, d)
				}
			}
			if !slices.Contains(a, v) {
				a = append(a, v)
			}
		}
		accels = append(accels, a)
	}
	if !any {
		return nil
	}
	var all []string
	for _, a := range accels {
		for _, v := range a {
			if !slices.Contains(all, v) {
				all = append(all, v)
			}
		}
	}
	if len(all) > 1 {
		var per []string
		for i, a := range accels {
			per = append(per, fmt.Sprintf("%s %s", sideLabel(i), strings.Join(a, "+")))
		}
		return []string{fmt.Sprintf("measured in virtual machines under different accelerators, or some not in a VM (%s): the times are not comparable as they are", strings.Join(per, ", "))}
	}
	msg := fmt.Sprintf("measured in a VM (%s; %s)", strings.ToUpper(all[0]), strings.Join(details, "; "))
	if all[0] == "tcg" {
		msg += ": TCG emulates the CPU, and the timings include the emulation (compare them with each other, not with a bare machine's)"
	}
	return []string{msg}
}
