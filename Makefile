# lprojd — build, test, demo, fuzz and benchmark.
# Every target installs the Debian packages in debian-packages.txt first if
# any is missing (as root, or through sudo).

SHELL := /bin/bash
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
SWIFTC ?= $(dir $(SWIFT))swiftc
PACKAGES := $(shell grep -v '^\#' debian-packages.txt)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
FUZZ_RUNS ?= 1000000
FUZZ_PROTOCOL_RUNS ?= 10000000
FUZZ_SECONDS ?= 0
FUZZ_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BIN_DEBUG := .build/debug
BIN_RELEASE := .build/release
VENV := .build/venv

# Where `make install` puts things (DESTDIR stages them elsewhere).
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
DESTDIR ?=
BINDIR := $(PREFIX)/bin
MANDIR := $(PREFIX)/share/man
DOCDIR := $(PREFIX)/share/doc/lprojd
UNITDIR := $(PREFIX)/lib/systemd/system
USERUNITDIR := $(PREFIX)/lib/systemd/user
SYSUSERSDIR := $(PREFIX)/lib/sysusers.d
TMPFILESDIR := $(PREFIX)/lib/tmpfiles.d
BASHCOMPDIR := $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR := $(PREFIX)/share/zsh/vendor-completions
FISHCOMPDIR := $(PREFIX)/share/fish/vendor_completions.d
VERSION := 0.2.0
STAGE := .build/stage
DEB := .build/lprojd_$(VERSION)-1_$(shell dpkg --print-architecture 2>/dev/null || echo amd64).deb

.PHONY: all deps build release test demo fuzz bench soak clean install uninstall stage deb

all: build

## deps: install the missing Debian packages.
deps:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

## release: optimized binaries, the Swift runtime and Foundation linked in
## (they start faster, and run where only Debian's libraries are installed).
## Linked with the toolchain's lld: gold warns about glibc's mktemp inside
## the static Foundation, on every link.
release: deps
	$(SWIFT) build -c release --static-swift-stdlib -Xswiftc -use-ld=lld

## test: build everything and run every test (all XCTest; Swift Testing is
## switched off so that no empty "0 tests" run closes the output), then one
## plain "N passed, N failed" line. The installed tree and the Debian
## package are built first (release binaries): PackagingTests check them.
test: deps deb $(VENV)/installed
	$(SWIFT) build --build-tests
	@set -o pipefail; LPROJ_STAGE=$(CURDIR)/$(STAGE) LPROJ_DEB=$(CURDIR)/$(DEB) LPROJ_PYTHON=$(CURDIR)/$(VENV)/bin/python LPROJ_SWIFT=$(SWIFT) \
	  $(SWIFT) test --skip-build --disable-swift-testing 2>&1 | tee .build/test.log
	@awk '/^Test Case .* passed/ {p++} /^Test Case .* failed/ {f++} END {printf "%d passed, %d failed\n", p, f}' .build/test.log

## The Python the tests run translators' tools with: Debian's, in a virtual
## environment holding the pinned packages of Tests/Tools/requirements.txt.
$(VENV)/installed: Tests/Tools/requirements.txt | deps
	rm -rf $(VENV)
	/usr/bin/python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r Tests/Tools/requirements.txt
	touch $@

## demo: lint the example bundle, resolve keys as an app would, then run
## lprojd on a copy of it with lprojctl tail following a few live edits, and
## lproj-demo following the daemon (interactive on a terminal).
demo: build
	@echo "== lprojctl lint Examples/Demo/Resources"
	@$(BIN_DEBUG)/lprojctl lint Examples/Demo/Resources
	@for lang in zh-HK en-AU ar ja; do \
	  echo "== lprojctl get item_count --bundle Examples/Demo/Resources --language $$lang --arg 2"; \
	  $(BIN_DEBUG)/lprojctl get item_count --bundle Examples/Demo/Resources --language $$lang --arg 2 || exit $$?; \
	done
	@Examples/demo.sh $(BIN_DEBUG)

## fuzz: libFuzzer over the three parsers (FUZZ_RUNS executions, seeded from the
## corpus) and over the daemon's request handling (FUZZ_PROTOCOL_RUNS), then
## every input each kept replayed once with leak detection on.
FUZZ_ASAN := ASAN_OPTIONS=malloc_context_size=0:quarantine_size_mb=16
FUZZ_LSAN := LSAN_OPTIONS=suppressions=Fuzz/lsan.supp
fuzz: deps
	mkdir -p .build/fuzz fuzz-artifacts
	@# The parsers import the CLinux and CByteScan shims: their headers as modules, their C files compiled beside.
	printf 'module CLinux {\n  header "%s/Sources/CLinux/include/lproj_linux.h"\n  export *\n}\nmodule CByteScan {\n  header "%s/Sources/CByteScan/include/lproj_byte_scan.h"\n  export *\n}\n' "$(CURDIR)" "$(CURDIR)" > .build/fuzz/module.modulemap
	$(dir $(SWIFT))clang -O1 -g -fsanitize=fuzzer-no-link,address -c Sources/CLinux/lproj_linux.c -I Sources/CLinux/include -o .build/fuzz/lproj_linux.o
	$(dir $(SWIFT))clang -O1 -g -fsanitize=fuzzer-no-link,address -c Sources/CByteScan/lproj_byte_scan.c -I Sources/CByteScan/include -o .build/fuzz/lproj_byte_scan.o
	@# The parsers' modules (paths, tables, formats) compiled as one, their imports of each other left out.
	rm -rf .build/fuzz/src && mkdir -p .build/fuzz/src
	for f in Sources/LprojPaths/*.swift Sources/LprojTables/*.swift $$(find Sources/LprojFormats -name '*.swift'); do \
	  sed -E '/^(@_spi\([A-Za-z]+\) )?import Lproj/d' "$$f" > .build/fuzz/src/$$(basename "$$f"); done
	$(SWIFTC) -O -g -sanitize=fuzzer,address -parse-as-library -module-name LprojTablesFuzz -package-name lprojd \
	  -Xcc -fmodule-map-file=.build/fuzz/module.modulemap .build/fuzz/lproj_linux.o .build/fuzz/lproj_byte_scan.o \
	  .build/fuzz/src/*.swift Fuzz/FuzzTables.swift -o .build/fuzz/fuzz-tables 2>&1 \
	  | { grep -v 'Cannot export local symbol' || true; }
	test -x .build/fuzz/fuzz-tables
	rm -rf .build/fuzz/seeds && mkdir -p .build/fuzz/seeds .build/fuzz/work
	find ../shared/corpus -type f \( -name '*.strings' -o -name '*.stringsdict' -o -name '*.xcstrings' \) -size -64k \
	  | while read f; do cp "$$f" ".build/fuzz/seeds/$$(echo "$$f" | md5sum | cut -c1-16).$${f##*.}"; done
	cp Fuzz/seeds/* .build/fuzz/seeds/
	@# Leak checks after every input make libFuzzer ~20x slower (the Swift
	@# runtime's caches grow), so the search runs without them...
	$(FUZZ_ASAN) .build/fuzz/fuzz-tables -runs=$(FUZZ_RUNS) -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 -dict=Fuzz/tables.dict \
	  -detect_leaks=0 -artifact_prefix=fuzz-artifacts/ -print_final_stats=1 .build/fuzz/work .build/fuzz/seeds
	@# ...and every input it found interesting is then run once with them
	@# (with allocation stacks: LeakSanitizer reports nothing without them).
	$(FUZZ_LSAN) .build/fuzz/fuzz-tables -runs=0 -detect_leaks=1 -artifact_prefix=fuzz-artifacts/ \
	  .build/fuzz/work .build/fuzz/seeds
	@# The protocol: request lines into an in-process DaemonCore (Fuzz/Protocol, a target only LPROJ_FUZZ adds),
	@# seeded from Fuzz/protocol-seeds. The search runs without AddressSanitizer (2.5x as many inputs a second),
	@# on every core (FUZZ_JOBS processes sharing one corpus, FUZZ_PROTOCOL_RUNS in all); every input it kept is
	@# then replayed once by the AddressSanitizer build with leak detection on.
	LPROJ_FUZZ=1 $(SWIFT) build -c release --build-path .build/fuzz-protocol-fast --product lprojd-fuzz-protocol \
	  -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library -Xswiftc -enable-testing 2>&1 \
	  | { grep -v 'Cannot export local symbol' || true; }
	LPROJ_FUZZ=1 $(SWIFT) build -c release --build-path .build/fuzz-protocol --product lprojd-fuzz-protocol \
	  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -enable-testing 2>&1 \
	  | { grep -v 'Cannot export local symbol' || true; }
	mkdir -p .build/fuzz/protocol-work
	for job in $$(seq $(FUZZ_JOBS)); do \
	  .build/fuzz-protocol-fast/release/lprojd-fuzz-protocol -runs=$$(( $(FUZZ_PROTOCOL_RUNS) / $(FUZZ_JOBS) )) -reload=1 \
	    -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=30 -detect_leaks=0 -artifact_prefix=fuzz-artifacts/ \
	    -print_final_stats=1 .build/fuzz/protocol-work Fuzz/protocol-seeds > .build/fuzz/protocol-$$job.log 2>&1 & \
	done; status=0; for job in $$(jobs -p); do wait $$job || status=1; done; \
	grep -h 'stat::number_of_executed_units' .build/fuzz/protocol-*.log; exit $$status
	$(FUZZ_ASAN) $(FUZZ_LSAN) .build/fuzz-protocol/release/lprojd-fuzz-protocol -runs=0 -detect_leaks=1 -artifact_prefix=fuzz-artifacts/ \
	  .build/fuzz/protocol-work Fuzz/protocol-seeds

## bench: every benchmark, each beside its peer (docs/BENCHMARKS.md).
bench: release
	$(BIN_RELEASE)/lproj-bench parse ../shared/corpus
	$(BIN_RELEASE)/lproj-bench parse --generate 1000,10000,100000
	$(BIN_RELEASE)/lproj-bench latency
	$(BIN_RELEASE)/lproj-bench fanout
	$(BIN_RELEASE)/lproj-bench crawl
	$(BIN_RELEASE)/lproj-bench lookup
	$(BIN_RELEASE)/lproj-bench requests
	$(BIN_RELEASE)/lproj-bench deploy
	$(BIN_RELEASE)/lproj-bench edit
	$(BIN_RELEASE)/lproj-bench studio
	$(BIN_RELEASE)/lproj-bench catalog
	$(BIN_RELEASE)/lproj-bench workers --serves 1
	$(BIN_RELEASE)/lproj-bench workers --serves 4
	$(BIN_RELEASE)/lproj-bench history

## soak: an hour of lproj-bench soak (lprojd and 20 LiveBundle processes under
## random saves, batches, rollbacks, stops, kill -9, ENOSPC, descriptor
## exhaustion); outside `make test`. Needs root (tmpfs, prlimit).
soak: release
	$(BIN_RELEASE)/lproj-bench soak --minutes 60 --processes 20

## install: the release binaries, config, units, sysusers.d and tmpfiles.d
## entries, man pages, completions and docs under PREFIX (default
## /usr/local; DESTDIR stages them). An existing config is kept.
install: release
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SYSCONFDIR)/lprojd $(DESTDIR)$(UNITDIR) $(DESTDIR)$(USERUNITDIR) \
	  $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
	  $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR) $(DESTDIR)$(DOCDIR)
	install -m 0755 $(BIN_RELEASE)/lprojd $(BIN_RELEASE)/lprojctl $(DESTDIR)$(BINDIR)/
	[ -e $(DESTDIR)$(SYSCONFDIR)/lprojd/lprojd.conf ] || install -m 0644 config/lprojd.conf $(DESTDIR)$(SYSCONFDIR)/lprojd/lprojd.conf
	for unit in lprojd.service lprojd-user.service; do \
	  sed -e 's|@bindir@|$(BINDIR)|g' -e 's|@sysconfdir@|$(SYSCONFDIR)|g' -e 's|@prefix@|$(PREFIX)|g' systemd/$$unit.in > .build/$$unit; \
	done
	install -m 0644 .build/lprojd.service $(DESTDIR)$(UNITDIR)/lprojd.service
	install -m 0644 systemd/lprojd.socket $(DESTDIR)$(UNITDIR)/lprojd.socket
	install -m 0644 .build/lprojd-user.service $(DESTDIR)$(USERUNITDIR)/lprojd.service
	install -m 0644 packaging/sysusers.conf $(DESTDIR)$(SYSUSERSDIR)/lprojd.conf
	install -m 0644 packaging/tmpfiles.conf $(DESTDIR)$(TMPFILESDIR)/lprojd.conf
	gzip -9n < man/lprojctl.1 > $(DESTDIR)$(MANDIR)/man1/lprojctl.1.gz
	gzip -9n < man/lprojd.conf.5 > $(DESTDIR)$(MANDIR)/man5/lprojd.conf.5.gz
	gzip -9n < man/lprojd.8 > $(DESTDIR)$(MANDIR)/man8/lprojd.8.gz
	install -m 0644 completions/lprojctl.bash $(DESTDIR)$(BASHCOMPDIR)/lprojctl
	install -m 0644 completions/lprojd.bash $(DESTDIR)$(BASHCOMPDIR)/lprojd
	install -m 0644 completions/_lprojctl completions/_lprojd $(DESTDIR)$(ZSHCOMPDIR)/
	install -m 0644 completions/lprojctl.fish completions/lprojd.fish $(DESTDIR)$(FISHCOMPDIR)/
	install -m 0644 README.md docs/PROTOCOL.md docs/OPERATING.md docs/CLIENT.md docs/TABLES.md docs/DEPLOYING.md docs/STUDIO.md docs/CATALOGS.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 systemd/lprojd-metrics.conf $(DESTDIR)$(DOCDIR)/lprojd-metrics.conf

## uninstall: what install put there (the config is kept unless it is unchanged).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/lprojd $(DESTDIR)$(BINDIR)/lprojctl
	rm -f $(DESTDIR)$(UNITDIR)/lprojd.service $(DESTDIR)$(UNITDIR)/lprojd.socket $(DESTDIR)$(USERUNITDIR)/lprojd.service
	rm -f $(DESTDIR)$(SYSUSERSDIR)/lprojd.conf $(DESTDIR)$(TMPFILESDIR)/lprojd.conf
	rm -f $(DESTDIR)$(MANDIR)/man1/lprojctl.1.gz $(DESTDIR)$(MANDIR)/man5/lprojd.conf.5.gz $(DESTDIR)$(MANDIR)/man8/lprojd.8.gz
	rm -f $(DESTDIR)$(BASHCOMPDIR)/lprojctl $(DESTDIR)$(BASHCOMPDIR)/lprojd $(DESTDIR)$(ZSHCOMPDIR)/_lprojctl $(DESTDIR)$(ZSHCOMPDIR)/_lprojd
	rm -f $(DESTDIR)$(FISHCOMPDIR)/lprojctl.fish $(DESTDIR)$(FISHCOMPDIR)/lprojd.fish
	rm -rf $(DESTDIR)$(DOCDIR)
	if cmp -s config/lprojd.conf $(DESTDIR)$(SYSCONFDIR)/lprojd/lprojd.conf; then \
	  rm -f $(DESTDIR)$(SYSCONFDIR)/lprojd/lprojd.conf; rmdir $(DESTDIR)$(SYSCONFDIR)/lprojd 2>/dev/null || true; \
	else echo "kept $(DESTDIR)$(SYSCONFDIR)/lprojd/lprojd.conf (changed)"; fi

## stage: `make install` for /usr into .build/stage (what the package holds).
stage:
	rm -rf $(STAGE)
	$(MAKE) install DESTDIR=$(CURDIR)/$(STAGE) PREFIX=/usr SYSCONFDIR=/etc

## deb: the Debian package, from the staged install (packaging/make-deb).
deb: stage
	packaging/make-deb $(STAGE) $(DEB) $(VERSION)

clean:
	rm -rf .build fuzz-artifacts
