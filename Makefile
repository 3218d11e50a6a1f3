# contend: nothing here is required; `go build ./...` and `go test ./...`
# work without make.
GO ?= go
BIN := bin/contend
# urfave/cli's man-page and markdown generators pull in blackfriday, whose
# package init costs about 0.6 ms in every repetition child; contend does
# not use them.
TAGS := -tags urfave_cli_no_docs

PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all build bpf man install uninstall run test race race-procs vet staticcheck lowest-go bench bench-vm bench-kbuild-bisect faithfulness faithfulness-wis fuzz e2e e2e-kbuild readme-outputs readme-check examples clean

all: build

build: man
	$(GO) build $(TAGS) -o $(BIN) ./cmd/contend
	$(GO) build -o bin/contend-plot ./cmd/contend-plot

# The man page, written from the command definitions by cmd/contend built
# with -tags contend_man (cmd/contend/internal/manpage: not in the contend binary).
man:
	@mkdir -p bin
	$(GO) run -tags contend_man,urfave_cli_no_docs ./cmd/contend >bin/contend.1.tmp
	mv bin/contend.1.tmp bin/contend.1

# contend and contend-plot in $(PREFIX)/bin, the man page, the bash and
# zsh completions (DESTDIR for a staged install, as packages do).
install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 755 $(BIN) bin/contend-plot $(DESTDIR)$(PREFIX)/bin/
	install -m 644 bin/contend.1 $(DESTDIR)$(PREFIX)/share/man/man1/contend.1
	./$(BIN) completion bash >$(DESTDIR)$(PREFIX)/share/bash-completion/completions/contend
	./$(BIN) completion zsh >$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_contend

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/contend $(DESTDIR)$(PREFIX)/bin/contend-plot \
		$(DESTDIR)$(PREFIX)/share/man/man1/contend.1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/contend \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_contend

# Regenerates the BPF objects and their Go loaders (internal/bpfobj, committed:
# a build needs no clang) from native/bpf/*.bpf.c with bpf2go; needs clang and
# the libbpf headers (Debian: apt-get install clang llvm libbpf-dev).
bpf:
	cd internal/bpfobj && $(GO) generate ./

# The example programs the manual's exec, ab exec and verify examples run
# (examples/src, contend's own): examples/bin/pagefault, mutexloop, semloop.
examples:
	./scripts/build-examples.sh examples/bin

# The main job at a size that fits a 2-core machine (under two minutes).
# RUN_FLAGS are make run's faultme flags: Rostedt's test reduced from 400
# threads x 10 GiB to 40 x 1 GiB (a few minutes on 2 cores).
RUN_FLAGS ?= --threads 40 --mem 1GiB -n 6

run: build
	./$(BIN) run faultme $(RUN_FLAGS) --out results/make-run-faultme.jsonl --replace

test: vet staticcheck
	$(GO) test -count=1 -timeout 20m ./...
	$(MAKE) race-procs

vet:
	$(GO) vet ./...

# staticcheck, pinned; installed into the Go bin directory when missing
# (through the Go module proxy).
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(shell $(GO) env GOPATH)/bin/staticcheck
staticcheck:
	@test -x $(STATICCHECK) || $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(STATICCHECK) $(TAGS) ./...

# The lowest Go that go.mod's go line allows (1.24: gonum and gonum/plot
# v0.17 need it; Debian 13 ships it, older Go fetches it through
# GOTOOLCHAIN=auto): with that toolchain, from the module proxy, every
# package and test compiles (go vet) and the unit tests of the packages
# without processes or kernel state pass (-short; about a minute here).
GO_MIN := $(shell awk '$$1 == "go" { print $$2; exit }' go.mod)
LOWEST_GO_PKGS := ./analysis ./internal/value ./internal/results ./internal/external ./internal/sweepplan ./internal/esc ./internal/limits ./internal/plural
lowest-go:
	GOTOOLCHAIN=go$(GO_MIN) $(GO) vet $(TAGS) ./...
	GOTOOLCHAIN=go$(GO_MIN) $(GO) test $(TAGS) -short -count=1 $(LOWEST_GO_PKGS)

race:
	$(GO) test -race -count=1 ./...

# The race detector over the packages that handle processes, signals,
# locks and journals (the whole suite under -race takes too long for CI).
RACE_PKGS := ./internal/harness ./internal/lock ./internal/ipcown ./internal/tracejournal ./internal/earlysig ./internal/campaign ./internal/ab
race-procs:
	$(GO) test -race -count=1 -timeout 15m $(RACE_PKGS)

# Start-up cost of the repetition child against a C program that does
# nothing; what result files cost (import + compare of 2 x 100,000 samples,
# appending one repetition to 10 and to 10,000); what the default evidence
# collectors cost faultme, mutex and osim (ab, under ~8 minutes).
bench: build
	./scripts/bench-results.sh
	./scripts/bench-startup.sh
	./scripts/bench-evidence.sh

# The reproductions against the original programs, built from the seed mails,
# 20 runs a side (more where 1000 threads spread the runs: see
# scripts/faithfulness.sh): the reduced sizes (faultme 40 x 1 GiB, mutex 100 x
# 30000 and 1000 x 20000, faultme 1, 2, 4 x 256 MiB), then the originals' own
# sizes (mutex 1000 x 300000, faultme 400 x 10 GiB: about an hour here);
# FAITHFULNESS_SETS=all leaves those out; one set: scripts/faithfulness.sh
# faultme-small. osim too, at both sizes, when OSIM_SRC names ipcscale's
# sem-lockunlock.c (GPL, so not in this repository).
FAITHFULNESS_SETS ?= all full
faithfulness: build
	for s in $(FAITHFULNESS_SETS); do ./scripts/faithfulness.sh $$s || exit 1; done
	./scripts/faithfulness-wis.sh

# wis against will-it-scale's own runner, built from ../shared/will-it-scale
# in a temporary directory (futex4, page_fault1, pthread_mutex1, sched_yield;
# thread and process mode).
faithfulness-wis: build
	./scripts/faithfulness-wis.sh

# Every new interesting input is minimized first, up to 60 s each by
# default, and those executions are not counted: the rate then reads
# 0 execs/s for seconds at a time. 200 executions per minimization keep the
# workers fuzzing (about 5x the executions in the same minute here).
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s -fuzzminimizetime 200x ./internal/results

# The end-to-end campaign (e2e/, TestCampaignReboots): Debian 12 guests in
# QEMU (TCG unless KVM boots), Debian's 6.1 generic and -rt kernels, the
# campaign commands of docs/campaigns.md and real kexec reboots, without and with
# logind, then a wrong kernel: 10 boots. As root; 13 minutes here at load
# 7-17 (about 40 s to 75 s a boot under TCG), plus 2 to 6 minutes per guest
# image the first time (cached in ~/.cache/contend-e2e or
# $$CONTEND_E2E_CACHE). CONTEND_E2E_KEEP=DIR keeps the consoles, the
# campaign directories and the guests' journals.
# Then the campaigns in VMs (TestVMCampaigns, docs/vm.md): generic against
# -rt, 4 boots a side, an A/A campaign, a kernel that panics, a SIGKILLed
# 'campaign run': about 3 minutes here at load 8-11. Then a kernel bisect
# through VMs (TestVMBisect, docs/bisect.md): 17 commits, a THP command line
# planted at commit 11, 22 to 24 boots: 2.3 minutes here at load 4-14, 8 at
# load 15-18 with one guest hung until --vm-timeout (then 5m, now 2m).
# Then 'contend reproduce MAIL --run --a-kernel --b-kernel' on a robot-style
# mail (TestVMReproduce, docs/lkml.md): 3 boots a side of a small wis test,
# the answer in the robot's layout: 2.2 minutes here at load 10-13.
e2e:
	CONTEND_E2E=1 $(GO) test -count=1 -timeout 85m -v -run 'TestCampaignReboots|TestVMCampaigns|TestVMBisect|TestVMReproduce|TestKernelTreeBisect|TestLargeGuest' ./e2e

# The end-to-end kernel-tree bisect alone, whatever the cache holds: its
# first run on a machine unpacks linux-source-6.1 and builds a clean
# kernel (docs/vm.md has the times); later runs rebuild what changed.
# make e2e runs it only with CONTEND_E2E_KBUILD=1 (.ci/run sets it when
# scripts/e2e/kbuild-cached.sh finds the cache filled, and runs this
# target after make e2e on a machine whose cache is empty, with
# E2E_KBUILD_TIMEOUT the CI time left).
E2E_KBUILD_TIMEOUT ?= 120m
e2e-kbuild:
	CONTEND_E2E=1 CONTEND_E2E_KBUILD=1 $(GO) test -count=1 -timeout $(E2E_KBUILD_TIMEOUT) -v -run 'TestKernelTreeBisect' ./e2e

# QEMU start to the workload's start under TCG, and a 10-boots-a-side
# faultme campaign in VMs (docs/vm.md; about 3 minutes).
bench-vm: build
	./scripts/bench-vm.sh

# A kernel bisect from a tree (issue 40's benchmark, not in CI): 32 commits
# of linux-source-6.1 (6.12 when installed), defconfig plus
# scripts/kernel/contend-guest.config, from an empty make O= directory and
# ccache, builds, TCG boots and runs included (goal: at most 2 hours on 2
# cores; docs/bisect.md). BENCH_KBUILD_TINY=1: 4 commits of the e2e's tree
# with its tinyconfig and ccache (minutes); BENCH_KBUILD_DRY=1: what would run.
bench-kbuild-bisect:
	./scripts/bench-kbuild-bisect.sh

# Every output README.md, docs/commands.md and docs/vm.md show (and docs/scaling-faultme.png), rewritten
# from small real runs on this machine, each block stamped with the date,
# the machine and the load (under two minutes); readme-check checks the
# blocks' format only (go test . -run TestReadmeOutputsFormat does too).
readme-outputs: build
	./scripts/readme-outputs.sh

readme-check:
	./scripts/readme-outputs.sh --check

clean:
	rm -rf bin examples/bin
