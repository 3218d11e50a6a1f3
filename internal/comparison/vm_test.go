package comparison

import (
	"strings"
	"testing"

	"contend/internal/results"
)

func vmSide(accels ...string) Side {
	var s Side
	for _, a := range accels {
		env := map[string]string{}
		if a != "" {
			env = map[string]string{"vm.accel": a, "vm.cpus": "2", "vm.mem": "1024 MiB", "vm.qemu": "7.2.22", "vm.host_cpu": "Some CPU"}
		}
		s.Parts = append(s.Parts, Part{Name: a, File: &results.File{Env: env, Configs: []results.Config{{}}}, Configs: []int{0}})
	}
	return s
}

func TestVMNotes(t *testing.T) {
	for _, c := range []struct {
		name      string
		a, b      []string
		want, not string
	}{
		{"TCG", []string{"tcg", "tcg"}, []string{"tcg"}, "measured in a VM (TCG; 2 vCPUs, 1024 MiB, QEMU 7.2.22, host Some CPU): TCG emulates the CPU, and the timings include the emulation", ""},
		{"KVM", []string{"kvm"}, []string{"kvm"}, "measured in a VM (KVM; 2 vCPUs, 1024 MiB, QEMU 7.2.22, host Some CPU)", "emulat"},
		{"mixed", []string{"kvm"}, []string{"tcg", "kvm"}, "under different accelerators, or some not in a VM (A kvm, B tcg+kvm): the times are not comparable", ""},
		{"half in a VM", []string{""}, []string{"tcg"}, "(A none, B tcg)", ""},
	} {
		got := vmNotes([]Side{vmSide(c.a...), vmSide(c.b...)})
		if len(got) != 1 || !strings.Contains(got[0], c.want) || c.not != "" && strings.Contains(got[0], c.not) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	// The thread mode of TCG, where recorded, is said with the vCPUs.
	single := []Side{vmSide("tcg"), vmSide("tcg")}
	for _, s := range single {
		s.Parts[0].File.Env["vm.tcg"] = "single"
	}
	if got := vmNotes(single); len(got) != 1 || !strings.Contains(got[0], "(TCG; 2 vCPUs single-threaded, 1024 MiB") {
		t.Errorf("single-threaded TCG: %q", got)
	}
	if got := vmNotes([]Side{vmSide(""), vmSide("")}); got != nil {
		t.Errorf("no VM: %q", got)
	}
}
