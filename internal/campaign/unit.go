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
func Unit(exe, dir string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `[Unit]
Description=contend campaign step for %s
After=multi-user.target
ConditionPathExists=%s

[Service]
Type=oneshot
ExecStart=%s campaign step --at-boot %s
TimeoutStartSec=infinity
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
`, specifierEscape(dir), specifierEscape(filepath.Join(dir, ArmedFile)), systemdQuote(exe), systemdQuote(dir))
	return b.String()
}

// specifierEscape escapes the % of s as %%: systemd expands specifiers
// (%c, %n ...) in Description=, Condition*= and most other settings
// (systemd.unit(5), "Specifiers").
func specifierEscape(s string) string {
	return strings.ReplaceAll(s, "%", "%%")
}

// systemdQuote quotes a word for an ExecStart line.
func systemdQuote(s string) string {
	if !strings.ContainsAny(s, " \t\"'\\$%;") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `$$`, `%`, `%%`)
	return `"` + r.Replace(s) + `"`
}
