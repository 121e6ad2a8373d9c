# LiveLog — the two commands of the quick start are `make demo` and `make test`.
# Every target installs what it needs and is missing (as root through apt-get; otherwise it prints
# the exact command to run).

SWIFT ?= swift
STORE ?= $(CURDIR)/.build/demo.store
BENCH_JSON ?= $(CURDIR)/Docs/benchmarks/results.json

.PHONY: all build test demo bench bench-quick docs format lint deps deps-bench clean crash fuzz sanitize

all: build

deps:
	@scripts/ensure-package.sh lmdb /usr/include/lmdb.h liblmdb-dev

deps-bench: deps
	@scripts/ensure-package.sh sqlite3 /usr/include/sqlite3.h libsqlite3-dev

build: deps
	$(SWIFT) build

# The tests run optimized: the differential query tests check thousands of random queries
# against a brute-force scan, which takes minutes unoptimized. -enable-testing keeps
# `@testable import` working.
TEST_FLAGS = -c release -Xswiftc -enable-testing

test: deps
	$(SWIFT) build $(TEST_FLAGS) --build-tests
	$(SWIFT) build $(TEST_FLAGS) --product livelog
	$(SWIFT) test $(TEST_FLAGS) --skip-build

demo: deps
	$(SWIFT) build -c release --product livelog
	@scripts/demo.sh "$$($(SWIFT) build -c release --show-bin-path)/livelog" "$(STORE)"

bench: deps-bench
	cd Benchmarks && $(SWIFT) build -c release
	cd Benchmarks && "$$($(SWIFT) build -c release --show-bin-path)/livelog-bench" --json "$(BENCH_JSON)"

bench-quick: deps-bench
	cd Benchmarks && $(SWIFT) build -c release
	cd Benchmarks && "$$($(SWIFT) build -c release --show-bin-path)/livelog-bench" --quick --json "$(CURDIR)/.build/bench-quick.json"

# Reliability (Docs/Reliability.md): the long crash harness, the fuzzers, the sanitizers.
CRASH_KILLS ?= 200
FUZZ_SECONDS ?= 600

crash: deps
	$(SWIFT) build -c release --product livelog
	scripts/crash-harness.sh --kills $(CRASH_KILLS) --livelog "$$($(SWIFT) build -c release --show-bin-path)/livelog"

fuzz: deps
	scripts/fuzz.sh query $(FUZZ_SECONDS)
	scripts/fuzz.sh json $(FUZZ_SECONDS)
	scripts/fuzz.sh event $(FUZZ_SECONDS)

sanitize: deps
	$(SWIFT) test --sanitize=thread --scratch-path .build/tsan --filter ConcurrencyStressTests
	LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan-suppressions.txt \
	  $(SWIFT) test --sanitize=address --scratch-path .build/asan --filter ConcurrencyStressTests

docs: deps
	@scripts/build-docs.sh

format:
	swift-format format --in-place --recursive --configuration .swift-format Sources Tests Benchmarks/Sources Benchmarks/Package.swift Package.swift

lint:
	swift-format lint --recursive --configuration .swift-format Sources Tests Benchmarks/Sources

clean:
	rm -rf .build Benchmarks/.build
