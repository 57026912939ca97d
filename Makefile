# lprojd — build, test, demo, fuzz and benchmark.
# Every target installs the Debian packages in debian-packages.txt first if
# any is missing (as root, or through sudo).

SHELL := /bin/bash
SWIFT ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
SWIFTC ?= $(dir $(SWIFT))swiftc
PACKAGES := $(shell grep -v '^\#' debian-packages.txt)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
FUZZ_RUNS ?= 1000000
FUZZ_SECONDS ?= 0
BIN_DEBUG := .build/debug
BIN_RELEASE := .build/release

.PHONY: all deps build release test demo fuzz bench clean

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
## plain "N passed, N failed" line.
test: deps
	$(SWIFT) build --build-tests
	@set -o pipefail; $(SWIFT) test --skip-build --disable-swift-testing 2>&1 | tee .build/test.log
	@awk '/^Test Case .* passed/ {p++} /^Test Case .* failed/ {f++} END {printf "%d passed, %d failed\n", p, f}' .build/test.log

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
## corpus), then every input it kept replayed once with leak detection on.
FUZZ_ASAN := ASAN_OPTIONS=malloc_context_size=0:quarantine_size_mb=16
FUZZ_LSAN := LSAN_OPTIONS=suppressions=Fuzz/lsan.supp
fuzz: deps
	mkdir -p .build/fuzz fuzz-artifacts
	$(SWIFTC) -O -g -sanitize=fuzzer,address -parse-as-library -module-name LprojTablesFuzz \
	  Sources/LprojTables/*.swift Fuzz/FuzzTables.swift -o .build/fuzz/fuzz-tables 2>&1 \
	  | { grep -v 'Cannot export local symbol' || true; }
	rm -rf .build/fuzz/seeds && mkdir -p .build/fuzz/seeds .build/fuzz/work
	find ../shared/corpus -type f \( -name '*.strings' -o -name '*.stringsdict' -o -name '*.xcstrings' \) -size -64k \
	  | while read f; do cp "$$f" ".build/fuzz/seeds/$$(echo "$$f" | md5sum | cut -c1-16).$${f##*.}"; done
	cp Fuzz/seeds/* .build/fuzz/seeds/
	@# Leak checks after every input make libFuzzer ~20x slower (the Swift
	@# runtime's caches grow), so the search runs without them...
	$(FUZZ_ASAN) .build/fuzz/fuzz-tables -runs=$(FUZZ_RUNS) -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 \
	  -detect_leaks=0 -artifact_prefix=fuzz-artifacts/ -print_final_stats=1 .build/fuzz/work .build/fuzz/seeds
	@# ...and every input it found interesting is then run once with them
	@# (with allocation stacks: LeakSanitizer reports nothing without them).
	$(FUZZ_LSAN) .build/fuzz/fuzz-tables -runs=0 -detect_leaks=1 -artifact_prefix=fuzz-artifacts/ \
	  .build/fuzz/work .build/fuzz/seeds

## bench: every benchmark, each beside its peer (docs/BENCHMARKS.md).
bench: release
	$(BIN_RELEASE)/lproj-bench parse ../shared/corpus
	$(BIN_RELEASE)/lproj-bench parse --generate 1000,10000,100000
	$(BIN_RELEASE)/lproj-bench latency
	$(BIN_RELEASE)/lproj-bench fanout
	$(BIN_RELEASE)/lproj-bench crawl
	$(BIN_RELEASE)/lproj-bench lookup

clean:
	rm -rf .build fuzz-artifacts
