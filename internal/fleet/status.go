package fleet

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"contend/internal/results"
)

// HostMarker is the file the Ansible playbook (deploy/ansible) writes in
// each host's results directory, results/HOST/, holding the inventory name
// of the host. Key reads it for --by host: hosts of a local inventory
// share one real hostname, and an inventory name is what people read.
const HostMarker = ".contend-host"

// Key is the group of the result file at path for compare --by by:
// "host" (the inventory name in a HostMarker file in the file's directory
// or up to two directories above it, else the recorded environment's
// hostname), or "env.KEY" (the file's recorded environment value of KEY,
// such as env.cpu.model or env.kernel.release).
func Key(path string, f *results.File, by string) (string, error) {
	switch {
	case by == "host":
		dir := filepath.Dir(path)
		for i := 0; i < 3; i++ {
			if b, err := os.ReadFile(filepath.Join(dir, HostMarker)); err == nil {
				if h := strings.TrimSpace(string(b)); h != "" {
					return h, nil
				}
			}
			dir = filepath.Dir(dir)
		}
		if h := f.Env["hostname"]; h != "" {
			return h, nil
		}
		return "", fmt.Errorf("%s records no hostname and has no %s file beside it: group it with --by env.KEY", path, HostMarker)
	case strings.HasPrefix(by, "env.") && len(by) > 4:
		k := by[4:]
		if v, ok := f.Env[k]; ok && v != "" {
			return v, nil
		}
		return "", fmt.Errorf("%s records no environment key %q ('contend env' lists the keys)", path, k)
	}
	return "", fmt.Errorf("--by: %q is not accepted; accepted: host, env.KEY (a key of 'contend env', such as env.cpu.model)", by)
}

// A Host is an expected host and, when it gave no result, why: a
// line "HOST STATUS [REASON]" of the status file the playbook writes
// (results/fleet-status.txt).
type Host struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// ReadStatus reads a status file: one host per line, "HOST STATUS
// REASON...", '#' starts a comment.
func ReadStatus(path string) ([]Host, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var hs []Host
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) < 2 {
			return nil, fmt.Errorf("%s:%d: want 'HOST STATUS [REASON]', got %q", path, i+1, line)
		}
		hs = append(hs, Host{Name: fs[0], Status: fs[1], Reason: strings.Join(fs[2:], " ")})
	}
	return hs, nil
}
