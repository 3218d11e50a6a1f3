#!/bin/sh
# guest.sh login|watch: the guest side of contend's end-to-end campaign
# test (e2e/, images from scripts/e2e/guest-image.sh), installed in the
# guest as /usr/local/lib/contend-e2e/guest.sh. Every line it prints starts
# with "contend-e2e: " and goes to the serial console.
#
#   login  root's login shell on ttyS0, in every boot: in the first boot
#          only, runs docs/campaigns.md's sequence (campaign init with
#          --a-kexec/--b-kexec, unit, install and enable it, arm, step).
#   watch  contend-e2e-watch.service, in every boot after the campaign's
#          unit: says which kernel is up; when the campaign is no longer
#          armed (finished or stopped), writes its status and report to
#          /var/lib/contend-e2e and powers off.
#
# /usr/local/lib/contend-e2e/kernels.env (KA, KB: the releases of sides A
# and B; VARIANT) and scenario.env (MODE=abba or fault, BOOTS, SETTLE,
# RUN) come from the test. MODE=fault boots kernel A for side B (a wrong
# --b-kexec): the campaign must stop at boot 2, disarmed.
set -u
lib=/usr/local/lib/contend-e2e
state=/var/lib/contend-e2e
dir=/var/lib/kc
. $lib/kernels.env
. $lib/scenario.env
bootid=$(cat /proc/sys/kernel/random/boot_id)

say() { echo "contend-e2e: $*"; }

logind() { systemctl is-active systemd-logind.service 2>/dev/null; }

# finish WHY: the campaign's status and report into $state, then power off.
finish() {
	case $(systemctl is-system-running 2>/dev/null) in
	stopping)
		say "not finishing ($1): the system is shutting down"
		exit 0
		;;
	esac
	say "finish: $1"
	mkdir -p $state
	if [ -f $dir/plan.json ]; then
		contend campaign status $dir >$state/status.txt 2>&1
		echo $? >$state/status.rc
		contend campaign report --full $dir >$state/report.txt 2>&1
		echo $? >$state/report.rc
		say "---- status"
		cat $state/status.txt
		say "---- report (exit $(cat $state/report.rc))"
		cat $state/report.txt
		say "---- end"
	fi
	echo "$1" >$state/finished
	sync
	systemctl poweroff
	exit 0
}

# run CMD...: says the command, then runs it.
run() {
	say "# $*"
	"$@"
}

login() {
	if [ -e $state/started ]; then
		exit 0
	fi
	mkdir -p $state
	echo "$bootid" >$state/started
	sync
	say "scenario $MODE in the $VARIANT image: kernel $(uname -r), boot $bootid, logind $(logind)"
	bk=$KB
	if [ "$MODE" = fault ]; then
		bk=$KA
	fi
	# shellcheck disable=SC2086 # SETTLE and RUN are word lists
	run contend campaign init $dir --boots "$BOOTS" --order abba \
		--a-kexec /boot/vmlinuz-"$KA" --a-initrd /boot/initrd.img-"$KA" --a-release "$KA" \
		--b-kexec /boot/vmlinuz-"$bk" --b-initrd /boot/initrd.img-"$bk" --b-release "$KB" \
		$SETTLE -- $RUN || finish "campaign init failed"
	run contend campaign unit $dir || finish "campaign unit failed"
	run cp $dir/contend-campaign.service /etc/systemd/system/ || finish "cp failed"
	run systemctl daemon-reload || finish "daemon-reload failed"
	run systemctl enable contend-campaign.service || finish "enable failed"
	run contend campaign arm $dir || finish "campaign arm failed"
	run contend campaign step $dir
	rc=$?
	say "step exited $rc"
	if [ $rc -ne 0 ] || [ ! -e $dir/armed ]; then
		finish "the step of the first boot exited $rc"
	fi
	say "armed: waiting for the reboot"
	# The shutdown ends this shell.
	sleep 100000
}

watch() {
	say "up: kernel $(uname -r), boot $bootid, logind $(logind)"
	if [ ! -e $state/started ] || [ "$(cat $state/started)" = "$bootid" ]; then
		exit 0 # the first boot: its login shell runs the scenario
	fi
	if [ -e $dir/armed ]; then
		say "armed: the campaign goes on"
		exit 0
	fi
	finish "the campaign is not armed after the step of this boot"
}

case ${1:-} in
login) login ;;
watch) watch ;;
*)
	echo "usage: $0 login|watch" >&2
	exit 2
	;;
esac
