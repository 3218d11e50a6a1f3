package env

import (
	"encoding/json"
	"os"
	"strings"

	"contend/internal/esc"
)

// VMEnvVar is the variable through which contend's init in a virtual
// machine (internal/vm) hands the facts about the machine (the
// accelerator, vCPUs, memory, QEMU, the host's CPU) to the command it
// runs: a JSON object of "vm.*" keys.
const VMEnvVar = "CONTEND_VM_ENV"

// vmFacts returns the vm.* and kbuild.* keys of $CONTEND_VM_ENV (the
// virtual machine; the kernel's build when contend built it,
// internal/kbuild); a key of another name or a value with a control
// character is left out.
func vmFacts() Fingerprint {
	s := os.Getenv(VMEnvVar)
	if s == "" {
		return nil
	}
	var m map[string]string
	if json.Unmarshal([]byte(s), &m) != nil {
		return nil
	}
	f := Fingerprint{}
	for k, v := range m {
		if (strings.HasPrefix(k, "vm.") || strings.HasPrefix(k, "kbuild.")) && esc.Check(k, k) == nil && esc.Check(k, v) == nil {
			f[k] = v
		}
	}
	return f
}
