# LiveLog — the two commands of the quick start are `make demo` and `make test`.
# Every target installs what it needs and is missing (as root through apt-get; otherwise it prints
# the exact command to run).

SWIFT ?= swift
STORE ?= $(CURDIR)/.build/demo.store
BENCH_JSON ?= $(CURDIR)/Docs/benchmarks/results.json
BENCH_QUICK_JSON ?= $(CURDIR)/Docs/benchmarks/results-quick.json
PYTHON ?= python3

.PHONY: all build test demo bench bench-quick bench-report docs format lint deps deps-nats-server deps-test deps-bench deps-report clean crash corrupt fuzz sanitize cluster

all: build

deps:
	@scripts/ensure-package.sh lmdb /usr/include/lmdb.h liblmdb-dev
	@scripts/ensure-package.sh libnats /usr/include/nats/nats.h libnats-dev

# The replication tests start their own JetStream servers (Docs/Replication.md).
deps-nats-server:
	@scripts/ensure-package.sh nats-server /usr/sbin/nats-server nats-server

# strace for the repair test that kills at each rename by fault injection (optional: without it
# that test is skipped and says so; the same kill points are covered through LIVELOG_CRASH_AT).
deps-test: deps deps-nats-server
	@scripts/ensure-package.sh strace /usr/bin/strace strace || echo "note: no strace; its repair test will be skipped"

deps-bench: deps deps-nats-server
	@scripts/ensure-package.sh sqlite3 /usr/include/sqlite3.h libsqlite3-dev

# Python 3 for the report generator; matplotlib for its charts (optional: without it the report
# is written without charts and says so).
deps-report:
	@scripts/ensure-matplotlib.sh

build: deps
	$(SWIFT) build

# The tests run optimized: the differential query tests check thousands of random queries
# against a brute-force scan, which takes minutes unoptimized. -enable-testing keeps
# `@testable import` working.
TEST_FLAGS = -c release -Xswiftc -enable-testing

# First the paths (none may differ from another only by case, which a Mac's default disk would
# merge) and the local GitHub search service's own checks (seconds); the Swift tests then use the
# service over HTTP. The fuzz targets, which SwiftPM does not build, are type-checked against the
# test build. The cluster's fault tests run last, on their own: beside the other suites' load,
# nats-server 2.9 once let a stale copy win an election after a leader kill, and a replica halted
# on the fork (Docs/Replication.md, "Fault tests").
test: deps-test
	@scripts/check-case-paths.sh
	PYTHONDONTWRITEBYTECODE=1 $(PYTHON) -m unittest discover -s scripts -t scripts -p 'test_*.py'
	$(SWIFT) build $(TEST_FLAGS) --build-tests
	scripts/check-fuzz-targets.sh "$$($(SWIFT) build $(TEST_FLAGS) --show-bin-path)/Modules"
	$(SWIFT) build $(TEST_FLAGS) --product livelog
	$(SWIFT) test $(TEST_FLAGS) --skip-build --skip ClusterTests
	$(SWIFT) test $(TEST_FLAGS) --skip-build --filter ClusterTests

demo: deps
	$(SWIFT) build -c release --product livelog
	@scripts/demo.sh "$$($(SWIFT) build -c release --show-bin-path)/livelog" "$(STORE)"

# `make bench` (10k, 100k and 1M records) and `make bench-quick` (10k, about two minutes) run every
# scenario and regenerate Docs/Benchmarks.md, its charts and README's headline from the JSON they
# keep in Docs/benchmarks/. The run records which commit and compiler produced its figures. When a
# scenario fails the report is still regenerated from what was measured, and make then fails.
BENCH_ENV = LIVELOG_COMMIT="$$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
	LIVELOG_TOOLCHAIN="$$($(SWIFT) --version 2>&1 | head -n 1)"
# Run from Benchmarks/, whose release build it is.
BENCH_BIN = "$$($(SWIFT) build -c release --show-bin-path)/livelog-bench"

# SwiftPM keeps the benchmark package's plan of LiveLog's sources (a path dependency) from its
# last build, so a source file added since would be missing: drop the plan, keep the objects.
BENCH_REPLAN = rm -f Benchmarks/.build/*/release/description.json

bench: deps-bench deps-report
	$(BENCH_REPLAN)
	cd Benchmarks && $(SWIFT) build -c release
	@mkdir -p "$(dir $(BENCH_JSON))"
	cd Benchmarks && $(BENCH_ENV) $(BENCH_BIN) --json "$(BENCH_JSON)"; status=$$?; \
	  cd "$(CURDIR)" && $(PYTHON) scripts/bench-report.py "$(BENCH_JSON)" && exit $$status

bench-quick: deps-bench deps-report
	$(BENCH_REPLAN)
	cd Benchmarks && $(SWIFT) build -c release
	@mkdir -p "$(dir $(BENCH_QUICK_JSON))"
	cd Benchmarks && $(BENCH_ENV) $(BENCH_BIN) --quick --json "$(BENCH_QUICK_JSON)"; status=$$?; \
	  cd "$(CURDIR)" && $(PYTHON) scripts/bench-report.py "$(BENCH_QUICK_JSON)" && exit $$status

# Regenerates the report from the full run's JSON, or the quick run's when there is no full run.
bench-report: deps-report
	$(PYTHON) scripts/bench-report.py

# Reliability (Docs/Reliability.md): the long crash harness, the long corruption campaign, the
# fuzzers, the sanitizers.
CRASH_KILLS ?= 200
CORRUPTIONS ?= 1000
CORRUPTION_SEED ?= 7
FUZZ_SECONDS ?= 600

# The replication cluster's fault tests (Docs/Replication.md) with CLUSTER_ROUNDS rounds of each
# fault; `make test` runs one or two.
CLUSTER_ROUNDS ?= 10

cluster: deps-test
	$(SWIFT) build $(TEST_FLAGS) --build-tests
	$(SWIFT) build $(TEST_FLAGS) --product livelog
	LIVELOG_CLUSTER_ROUNDS=$(CLUSTER_ROUNDS) $(SWIFT) test $(TEST_FLAGS) --skip-build --filter ClusterTests

# One writer in both durability modes; then concurrent writers, durable: small commits that share
# fsyncs (group commit), and commits of 300 changes that each fold into the index segments.
crash: deps
	$(SWIFT) build -c release --product livelog
	bin="$$($(SWIFT) build -c release --show-bin-path)/livelog" && \
	  scripts/crash-harness.sh --kills $(CRASH_KILLS) --livelog "$$bin" && \
	  scripts/crash-harness.sh --kills $(CRASH_KILLS) --writers 4 --batch 20 --durability durable --livelog "$$bin" && \
	  scripts/crash-harness.sh --kills $(CRASH_KILLS) --writers 3 --batch 300 --durability durable --livelog "$$bin"

# CORRUPTIONS random flips, zeroed runs and pages, meta-page flips and truncations of a real store;
# `make test` runs 48 of them.
corrupt: deps
	$(SWIFT) build $(TEST_FLAGS) --build-tests
	$(SWIFT) build $(TEST_FLAGS) --product livelog
	LIVELOG_CORRUPTIONS=$(CORRUPTIONS) LIVELOG_CORRUPTION_SEED=$(CORRUPTION_SEED) \
	  $(SWIFT) test $(TEST_FLAGS) --skip-build --filter CorruptionCampaignTests

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
