# Segue: make run (daemon on its embedded default), make test (the whole suite).
# Both first install the Debian packages the build links against, when missing.

SWIFT ?= swift
PREFIX ?= /usr/local
# libpq-dev: SeguePostgres links libpq (the PostgreSQL store backend is built into every binary
# that opens a store, as the SQLite one is); a PostgreSQL server is needed only by the tests that
# start one (.ci/run installs postgresql-15; without it they are reported skipped).
# libmicrohttpd-dev: SegueHTTP serves `segue view`'s page with it.
DEB_PACKAGES := libzmq3-dev libsqlite3-dev libsystemd-dev libpq-dev libmicrohttpd-dev pkg-config
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Release builds link the Swift runtime and Foundation into each binary: a host needs no Swift
# toolchain to run segued or segue, and without calls across shared libraries the engine's part of a
# command's round trip is ~9 % shorter (docs/performance.md, "A waiting command's critical path, and
# a static runtime"). SwiftPM's flag, not unsafeFlags in Package.swift, which would keep any package
# from depending on SegueClient by version. Debug builds stay dynamic, to link the tests quickly.
RELEASE := -c release --static-swift-stdlib

.PHONY: deps build release run test test-postgres-pass test-release bench fuzz install install-built clean format

## deps: install the system libraries (apt) if any is missing.
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && $(SUDO) DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build $(RELEASE)

# `swift run` takes no --static-swift-stdlib: the release build's own binaries are run instead.
# RUN_ARGS: segued's options, e.g. RUN_ARGS='--config /etc/segue/segued.json'.
run: release
	"$$($(SWIFT) build $(RELEASE) --show-bin-path)/segued" $(RUN_ARGS)

# The daemon's integration tests run twice: on SQLite with everything else, then on PostgreSQL
# (SEGUE_TEST_STORE=postgres: each daemon gets a database of its own on a server the run starts).
# Tests of what only SQLite has, and tests that choose their backends themselves, run in the first
# pass only. Without postgresql-15 the second pass reports its cases skipped.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	@$(MAKE) --no-print-directory test-postgres-pass
	@$(MAKE) --no-print-directory test-release

## test-release: the release binaries `make run` and `make install` build (the Swift runtime linked
## in, RELEASE above) through the daemon's smoke tests and the real-systemd tests (needs a test build).
test-release:
	$(SWIFT) build $(RELEASE) --product segued
	$(SWIFT) build $(RELEASE) --product segue
	SEGUE_TEST_BINARIES="$$($(SWIFT) build $(RELEASE) --show-bin-path)" \
	  $(SWIFT) test --skip-build --filter 'IntegrationTests.(DaemonSmokeTests|SystemdServiceTests)'
	@$(MAKE) --no-print-directory release
	@! ldd "$$($(SWIFT) build $(RELEASE) --show-bin-path)/segued" | grep -q libswiftCore \
	  || { echo "the release segued links the Swift runtime dynamically" >&2; exit 1; }
	@echo "make run: starts the release segued, which stops cleanly on SIGINT"; dir=$$(mktemp -d); \
	  setsid $(MAKE) --no-print-directory run \
	    RUN_ARGS="--data-dir $$dir/data --command tcp://127.0.0.1:* --publish tcp://127.0.0.1:*" > $$dir/log 2>&1 & \
	  pid=$$!; for i in $$(seq 600); do grep -q 'segued: Ready: commands on' $$dir/log && break; sleep 0.1; done; \
	  kill -INT -$$pid; wait $$pid; \
	  if grep -q 'segued: Ready: commands on' $$dir/log && grep -q 'segued: Stopped cleanly' $$dir/log; then \
	    rm -rf "$$dir"; else cat $$dir/log >&2; rm -rf "$$dir"; exit 1; fi

## test-postgres-pass: the integration tests again, every daemon on PostgreSQL (needs a test build).
test-postgres-pass:
	SEGUE_TEST_STORE=postgres $(SWIFT) test --skip-build --filter IntegrationTests

bench: release
	"$$($(SWIFT) build $(RELEASE) --show-bin-path)/segue-bench"

# Install layout; override any of these, and DESTDIR for staging (make install DESTDIR=/tmp/stage).
BINDIR ?= $(PREFIX)/bin
SYSCONFDIR ?= /etc
UNITDIR ?= /etc/systemd/system
SYSUSERSDIR ?= /usr/lib/sysusers.d
TMPFILESDIR ?= /usr/lib/tmpfiles.d
DOCDIR ?= $(PREFIX)/share/doc/segue
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
# The crash backtracer the unit names (SWIFT_BACKTRACE=): the static one of the toolchain that built
# segued, which works under MemoryDenyWriteExecute= (docs/operations.md, "Crash backtraces").
SWIFT_BACKTRACER ?= $(shell $(SWIFT) -print-target-info 2>/dev/null | sed -n 's|.*"runtimeResourcePath": *"\(.*\)/lib/swift".*|\1|p')/libexec/swift/linux/swift-backtrace-static

## install: release build, then `install-built` from it.
install: release
	@$(MAKE) --no-print-directory install-built BUILT="$$($(SWIFT) build $(RELEASE) --show-bin-path)"

## install-built: what `install` installs, with segued and segue taken from the build in BUILT (no
## build step; the systemd test stages its debug build this way): the systemd unit (its paths
## rewritten to BINDIR, SYSCONFDIR, DOCDIR and SWIFT_BACKTRACER), sysusers.d and tmpfiles.d entries, the docs,
## segue's man page and shell completions (generated by segue from its command tree), and
## /etc/segue/segued.json unless one exists.
install-built:
	@set -e; \
	[ -n "$(BUILT)" ] && [ -x "$(BUILT)/segued" ] && [ -x "$(BUILT)/segue" ] || { \
	  echo "install-built: BUILT=DIR must name a build holding segued and segue (got '$(BUILT)')" >&2; exit 2; }; \
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(SYSUSERSDIR)" "$(DESTDIR)$(TMPFILESDIR)" "$(DESTDIR)$(DOCDIR)"; \
	install -m 0755 "$(BUILT)/segued" "$(BUILT)/segue" "$(DESTDIR)$(BINDIR)/"; \
	[ -x "$(SWIFT_BACKTRACER)" ] || echo "warning: no Swift backtracer at '$(SWIFT_BACKTRACER)' (set SWIFT_BACKTRACER=): crashes under the unit will have no backtrace" >&2; \
	sed -e 's|/usr/local/bin/segued|$(BINDIR)/segued|g' -e 's|/usr/local/share/doc/segue|$(DOCDIR)|g' \
	    -e 's|/etc/segue/segued.json|$(SYSCONFDIR)/segue/segued.json|g' \
	    -e 's|swift-backtrace=/usr/libexec/swift/linux/swift-backtrace-static|swift-backtrace=$(SWIFT_BACKTRACER)|' \
	    config/segued.service > "$(DESTDIR)$(UNITDIR)/segued.service"; \
	chmod 0644 "$(DESTDIR)$(UNITDIR)/segued.service"; \
	install -m 0644 config/segue.sysusers.conf "$(DESTDIR)$(SYSUSERSDIR)/segue.conf"; \
	sed -e 's|/etc/segue|$(SYSCONFDIR)/segue|g' config/segue.tmpfiles.conf > "$(DESTDIR)$(TMPFILESDIR)/segue.conf"; \
	chmod 0644 "$(DESTDIR)$(TMPFILESDIR)/segue.conf"; \
	for doc in docs/*.md; do install -m 0644 "$$doc" "$(DESTDIR)$(DOCDIR)/"; done; \
	sed -e 's|](docs/images/|](images/|g' README.md > "$(DESTDIR)$(DOCDIR)/README.md"; chmod 0644 "$(DESTDIR)$(DOCDIR)/README.md"; \
	install -d "$(DESTDIR)$(DOCDIR)/images" "$(DESTDIR)$(DOCDIR)/examples"; \
	install -m 0644 docs/images/*.png "$(DESTDIR)$(DOCDIR)/images/"; \
	install -m 0644 docs/examples/*.py "$(DESTDIR)$(DOCDIR)/examples/"; \
	install -d "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(BASHCOMPDIR)" "$(DESTDIR)$(ZSHCOMPDIR)" "$(DESTDIR)$(FISHCOMPDIR)"; \
	"$(BUILT)/segue" help --man > "$(DESTDIR)$(MANDIR)/man1/segue.1"; chmod 0644 "$(DESTDIR)$(MANDIR)/man1/segue.1"; \
	"$(BUILT)/segue" completion bash > "$(DESTDIR)$(BASHCOMPDIR)/segue"; \
	"$(BUILT)/segue" completion zsh > "$(DESTDIR)$(ZSHCOMPDIR)/_segue"; \
	"$(BUILT)/segue" completion fish > "$(DESTDIR)$(FISHCOMPDIR)/segue.fish"; \
	install -d -m 0750 "$(DESTDIR)$(SYSCONFDIR)/segue"; \
	if [ -e "$(DESTDIR)$(SYSCONFDIR)/segue/segued.json" ]; then \
	  echo "Keeping existing $(DESTDIR)$(SYSCONFDIR)/segue/segued.json (the new example is config/segued.json)"; \
	else \
	  install -m 0640 config/segued.json "$(DESTDIR)$(SYSCONFDIR)/segue/segued.json"; \
	fi; \
	echo "Installed into $(DESTDIR)/. Next, as root: systemd-sysusers; systemd-tmpfiles --create segue.conf;"; \
	echo "  systemctl daemon-reload; systemctl enable --now segued"

clean:
	rm -rf .build

format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

FUZZ_SECONDS ?= 600
## fuzz: builds the libFuzzer targets (request codec, decide/evolve) with swiftc and runs each for
## FUZZ_SECONDS (default 600) from Fuzz/corpus; FUZZ_MERGE=1 minimizes the findings back into it.
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run.sh
