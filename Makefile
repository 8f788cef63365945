# Segue: make run (daemon on its embedded default), make test (the whole suite).
# Both first install the Debian packages the build links against, when missing.

SWIFT ?= swift
PREFIX ?= /usr/local
DEB_PACKAGES := libzmq3-dev libsqlite3-dev libsystemd-dev pkg-config
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

clean:
	rm -rf .build

format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift
