package campaign

import (
	"fmt"
	"path/filepath"
	"strings"

	"contend/internal/esc"
)

// UnitName is the name of the systemd unit of a campaign.
const UnitName = "contend-campaign.service"

// Unit returns a systemd oneshot unit that runs 'contend campaign step
// --at-boot DIR' once per boot, after the system is up. The step does
// nothing unless the campaign is armed. dir and exe must be absolute and
// free of control characters (esc.Check: a newline would start a
// directive of its own); what else they hold is escaped as
// systemd.syntax(7) and systemd.unit(5) say (unitValue, execWord,
// pathWord).
//
// RequiresMountsFor=DIR: the step starts after the file system of DIR is
// mounted, and a shutdown stops the step before it unmounts it, so the
// step's last ledger line is written. KillMode=mixed: stopping the unit
// (the shutdown that the step's own reboot starts) sends SIGTERM to the
// step alone, which records it (the reboot under way, or a stop before
// the reboot) and exits; what is left of its cgroup is killed then.
func Unit(exe, dir string) (string, error) {
	for _, x := range []struct{ what, s string }{{"the contend binary", exe}, {"the campaign directory", dir}} {
		if err := esc.Check(x.what, x.s); err != nil {
			return "", err
		}
		if !filepath.IsAbs(x.s) {
			return "", fmt.Errorf("%s: %q is not an absolute path", x.what, x.s)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `[Unit]
Description=contend campaign step for "%s"
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
`, unitValue(dir), unitValue(filepath.Join(dir, ArmedFile)), pathWord(dir), execWord(exe), execWord(dir))
	return b.String(), nil
}

// unitValue escapes s for a setting that expands specifiers (%c, %n ...:
// Description=, Condition*=; systemd.unit(5), "Specifiers"): % as %%.
// s holds no control character (a line break would end the setting); a
// trailing backslash, which would join the next line (systemd.syntax(7)),
// is never last: Description= quotes the directory, and the condition's
// path ends in /armed.
func unitValue(s string) string {
	return strings.ReplaceAll(s, "%", "%%")
}

// execWord quotes a word of an ExecStart= line (systemd.service(5),
// "Command lines"): within double quotes a backslash and a double quote
// are escaped with a backslash (C escapes are decoded there), $ is $$
// (environment variables are expanded) and % is %% (specifiers). A word
// that needs none of it, and starts with none of ExecStart's prefixes
// (@ - : + !), is written as it is.
func execWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'\\$%;") && !strings.ContainsAny(s[:1], "@-:+!") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `$$`, `%`, `%%`)
	return `"` + r.Replace(s) + `"`
}

// pathWord writes path as one word of a space-separated list of paths
// (RequiresMountsFor=): specifiers escaped, and in double quotes, with
// C escapes, when it holds a space, a quote or a backslash (path holds no
// control character: Unit refuses them).
func pathWord(path string) string {
	s := unitValue(path)
	if !strings.ContainsAny(s, " \t\"'\\") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
