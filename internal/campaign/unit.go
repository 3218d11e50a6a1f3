package campaign

import (
	"fmt"
	"path/filepath"
	"strings"
)

// UnitName is the name of the systemd unit of a campaign.
const UnitName = "contend-campaign.service"

// Unit returns a systemd oneshot unit that runs 'contend campaign step
// --at-boot DIR' once per boot, after the system is up. The step does
// nothing unless the campaign is armed. dir and exe must be absolute.
//
// RequiresMountsFor=DIR: the step starts after the file system of DIR is
// mounted, and a shutdown stops the step before it unmounts it, so the
// step's last ledger line is written. KillMode=mixed: stopping the unit
// (the shutdown that the step's own reboot starts) sends SIGTERM to the
// step alone, which records it (the reboot under way, or a stop before
// the reboot) and exits; what is left of its cgroup is killed then.
func Unit(exe, dir string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `[Unit]
Description=contend campaign step for %s
After=multi-user.target
ConditionPathExists=%s
RequiresMountsFor=%s

[Service]
Type=oneshot
ExecStart=%s campaign step --at-boot %s
TimeoutStartSec=infinity
KillMode=mixed
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
`, specifierEscape(dir), specifierEscape(filepath.Join(dir, ArmedFile)), pathWord(dir), systemdQuote(exe), systemdQuote(dir))
	return b.String()
}

// specifierEscape escapes the % of s as %%: systemd expands specifiers
// (%c, %n ...) in Description=, Condition*= and most other settings
// (systemd.unit(5), "Specifiers").
func specifierEscape(s string) string {
	return strings.ReplaceAll(s, "%", "%%")
}

// pathWord writes path as one word of a space-separated list of paths
// (RequiresMountsFor=): specifiers escaped, and in double quotes, with
// C escapes, when it holds a space, a quote or a backslash.
func pathWord(path string) string {
	s := specifierEscape(path)
	if !strings.ContainsAny(s, " \t\n\"'\\") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\t", `\t`, "\n", `\n`).Replace(s) + `"`
}

// systemdQuote quotes a word for an ExecStart line.
func systemdQuote(s string) string {
	if !strings.ContainsAny(s, " \t\"'\\$%;") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `$$`, `%`, `%%`)
	return `"` + r.Replace(s) + `"`
}
