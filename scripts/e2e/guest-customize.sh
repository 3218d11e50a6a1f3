#!/usr/bin/env bash
# guest-customize.sh TREE VARIANT: mmdebstrap's customize hook of
# guest-image.sh (part of the recipe: its text is in the cache key).
# Configures the guest's root file system TREE on the host.
set -euo pipefail
root=$1 variant=$2

echo contend-e2e >"$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tcontend-e2e\n' >"$root/etc/hosts"
echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' >"$root/etc/fstab"
# A persistent journal: read on the host after the run (journalctl -D).
mkdir -p "$root/var/log/journal"

# kexec-tools must not load a kernel of its own at shutdown: the
# campaign's step loads the next one with 'kexec -l'.
if grep -q '^LOAD_KEXEC=' "$root/etc/default/kexec" 2>/dev/null; then
	sed -i 's/^LOAD_KEXEC=.*/LOAD_KEXEC=false/' "$root/etc/default/kexec"
else
	echo LOAD_KEXEC=false >>"$root/etc/default/kexec"
fi

# root, without a password, logged in on the serial console; its login
# shell runs the scenario (guest.sh login) in the first boot: docs/campaigns.md's
# commands typed at a root shell.
chroot "$root" passwd -d root >/dev/null
mkdir -p "$root/etc/systemd/system/serial-getty@ttyS0.service.d"
cat >"$root/etc/systemd/system/serial-getty@ttyS0.service.d/autologin.conf" <<'EOF'
[Service]
ExecStart=
ExecStart=-/sbin/agetty --autologin root --noclear --keep-baud 115200,38400,9600 %I $TERM
EOF
cat >>"$root/root/.profile" <<'EOF'

# contend e2e (scripts/e2e/guest-customize.sh): the scenario, on the serial console.
if [ "$(tty)" = /dev/ttyS0 ] && [ -x /usr/local/lib/contend-e2e/guest.sh ]; then
	/usr/local/lib/contend-e2e/guest.sh login
fi
EOF

# Once per boot, after the campaign's step: a campaign that stopped or
# finished is reported and the guest powers off (QEMU exits).
cat >"$root/etc/systemd/system/contend-e2e-watch.service" <<'EOF'
[Unit]
Description=contend e2e: report a stopped or finished campaign, then power off
After=multi-user.target contend-campaign.service
ConditionPathExists=/usr/local/lib/contend-e2e/guest.sh

[Service]
Type=oneshot
ExecStart=/usr/local/lib/contend-e2e/guest.sh watch
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
EOF
mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
ln -sf ../contend-e2e-watch.service "$root/etc/systemd/system/multi-user.target.wants/contend-e2e-watch.service"

# Nothing else runs in the guest: timers that would start work during a
# measurement are masked.
for u in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service fstrim.timer; do
	ln -sf /dev/null "$root/etc/systemd/system/$u"
done

case $variant in
minimal)
	# No dbus in this image; logind could not start: masked, so that
	# 'systemctl kexec' takes its path without logind every time.
	ln -sf /dev/null "$root/etc/systemd/system/systemd-logind.service"
	;;
logind)
	[[ -x $root/usr/bin/dbus-daemon || -x $root/usr/bin/dbus-broker ]] || {
		echo "guest-customize.sh: the logind image has no dbus" >&2
		exit 1
	}
	;;
esac
