// Package e2e holds contend's end-to-end tests: a whole campaign of
// 'contend campaign' with real kernels, a real systemd, the unit contend
// writes and real reboots (kexec), in QEMU guests built by
// scripts/e2e/guest-image.sh. They run only with CONTEND_E2E=1 (make e2e),
// as root, and take minutes: see TestCampaignReboots.
package e2e
