# Segue: make run (daemon on its embedded default), make test (the whole suite).
# Both first install the Debian packages the build links against, when missing.

SWIFT ?= swift
PREFIX ?= /usr/local
# libpq-dev: SeguePostgres links libpq (the PostgreSQL store backend is built into every binary
# that opens a store, as the SQLite one is); a PostgreSQL server is needed only by the tests that
# start one (.ci/run installs postgresql-15; without it they are reported skipped).
DEB_PACKAGES := libzmq3-dev libsqlite3-dev libsystemd-dev libpq-dev pkg-config
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build release run test bench fuzz install clean format

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
	$(SWIFT) build -c release

run: release
	$(SWIFT) run -c release segued

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

bench: release
	$(SWIFT) run -c release segue-bench

# Install layout; override any of these, and DESTDIR for staging (make install DESTDIR=/tmp/stage).
BINDIR ?= $(PREFIX)/bin
SYSCONFDIR ?= /etc
UNITDIR ?= /etc/systemd/system
SYSUSERSDIR ?= /usr/lib/sysusers.d
TMPFILESDIR ?= /usr/lib/tmpfiles.d
DOCDIR ?= $(PREFIX)/share/doc/segue

## install: release build, then segued and segue, the systemd unit (its paths rewritten to BINDIR and
## DOCDIR), sysusers.d and tmpfiles.d entries, the docs, and /etc/segue/segued.json unless one exists.
install: release
	@bin="$$($(SWIFT) build -c release --show-bin-path)"; \
	set -e; \
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(SYSUSERSDIR)" "$(DESTDIR)$(TMPFILESDIR)" "$(DESTDIR)$(DOCDIR)"; \
	install -m 0755 "$$bin/segued" "$$bin/segue" "$(DESTDIR)$(BINDIR)/"; \
	sed -e 's|/usr/local/bin/segued|$(BINDIR)/segued|g' -e 's|/usr/local/share/doc/segue|$(DOCDIR)|g' \
	    -e 's|/etc/segue/segued.json|$(SYSCONFDIR)/segue/segued.json|g' config/segued.service > "$(DESTDIR)$(UNITDIR)/segued.service"; \
	chmod 0644 "$(DESTDIR)$(UNITDIR)/segued.service"; \
	install -m 0644 config/segue.sysusers.conf "$(DESTDIR)$(SYSUSERSDIR)/segue.conf"; \
	sed -e 's|/etc/segue|$(SYSCONFDIR)/segue|g' config/segue.tmpfiles.conf > "$(DESTDIR)$(TMPFILESDIR)/segue.conf"; \
	chmod 0644 "$(DESTDIR)$(TMPFILESDIR)/segue.conf"; \
	install -m 0644 docs/operations.md "$(DESTDIR)$(DOCDIR)/operations.md"; \
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
