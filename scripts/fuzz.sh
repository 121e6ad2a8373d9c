#!/bin/sh
# usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
#        scripts/fuzz.sh build            (builds every target, runs none)
#
# Builds a libFuzzer target from Fuzz/ against the LiveLog sources instrumented for coverage
# (-sanitize=fuzzer,address), then runs it for SECONDS on one core. Targets:
#   query   Query(parsing:), Query.text round trip, compiled vs reference evaluator
#   json    RecordFile(source:bytes:).mutations(), record and JSON round trips
#   event   Event(decoding:lsn:), with and without a repaired checksum
# The corpus grows in .build/fuzz/corpus/TARGET (seeded from Fuzz/seeds/TARGET and, for json,
# Tests/Fixtures); crashes are written to .build/fuzz/artifacts/TARGET/. The last lines of the
# run (executions, coverage) are in .build/fuzz/TARGET.log. Exit status: 0 when no crash was
# found, 1 otherwise. Not part of `make test`: the fuzz targets are compiled here, not by SwiftPM.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
build=${FUZZ_BUILD:-$root/.build/fuzz}
swiftc=${SWIFTC:-swiftc}
target=${1:?usage: scripts/fuzz.sh query|json|event|build SECONDS}
mkdir -p "$build"

common="-swift-version 6 -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
  -O -enable-testing -sanitize=fuzzer,address -parse-as-library -I $build -I $root/Sources/CLMDB
  -I $root/Sources/CCRC32C/include"

# Rebuilds a module when any of its sources is newer than its object file.
module() {
  name=$1 dir=$2
  if [ -f "$build/$name.o" ] && [ -z "$(find "$dir" -name '*.swift' -newer "$build/$name.o")" ]; then
    return
  fi
  echo "compiling $name (instrumented) ..."
  # shellcheck disable=SC2046,SC2086
  "$swiftc" $common -module-name "$name" -wmo -c $(find "$dir" -name '*.swift' | sort) \
    -emit-module -emit-module-path "$build/$name.swiftmodule" -o "$build/$name.o"
}
# The C target the engine's checksums call (the processor's CRC32C instructions).
clang=${CLANG:-$(dirname "$(command -v "$swiftc")")/clang}
if [ ! -f "$build/crc32c.o" ] || [ Sources/CCRC32C/crc32c.c -nt "$build/crc32c.o" ]; then
  echo "compiling CCRC32C ..."
  "$clang" -O2 -fsanitize=address -I Sources/CCRC32C/include -c Sources/CCRC32C/crc32c.c -o "$build/crc32c.o"
fi
module Changesets Sources/Changesets
module LMDB Sources/LMDB
module LiveLog Sources/LiveLog

link() {
  name=$1 source=$2
  if [ -f "$build/fuzz-$name" ] && [ ! "$source" -nt "$build/fuzz-$name" ] \
    && [ ! "$build/LiveLog.o" -nt "$build/fuzz-$name" ] && [ ! "$build/crc32c.o" -nt "$build/fuzz-$name" ]; then
    return
  fi
  echo "linking fuzz-$name ..."
  # shellcheck disable=SC2086
  "$swiftc" $common "$source" "$build/Changesets.o" "$build/LMDB.o" "$build/LiveLog.o" "$build/crc32c.o" -llmdb \
    -use-ld=lld -o "$build/fuzz-$name"
}
link query Fuzz/QueryParserTarget.swift
link json Fuzz/RecordFileTarget.swift
link event Fuzz/EventDecoderTarget.swift

[ "$target" = build ] && exit 0
case $target in query | json | event) ;; *) echo "unknown target $target (query, json, event)" >&2; exit 2 ;; esac
seconds=${2:?usage: scripts/fuzz.sh TARGET SECONDS}
shift 2

corpus=$build/corpus/$target
artifacts=$build/artifacts/$target
mkdir -p "$corpus" "$artifacts"
[ -d "Fuzz/seeds/$target" ] && cp -n Fuzz/seeds/"$target"/* "$corpus"/ 2>/dev/null || true
if [ "$target" = json ]; then
  # Real API data, one small piece of each format.
  head -c 4000 Tests/Fixtures/github/api-repos/repos-00.ndjson | head -n 2 > "$corpus/api-lines.ndjson"
  cp -n Tests/Fixtures/github/search-responses/03_*.json "$corpus/search-response.json" 2>/dev/null || true
  head -n 3 Tests/Fixtures/github/repos-2022.csv > "$corpus/repos.csv"
fi
export LIVELOG_FUZZ_SEEDS=
[ "$target" = event ] && LIVELOG_FUZZ_SEEDS=$corpus
dictionary=
[ -f "Fuzz/$target.dict" ] && dictionary="-dict=Fuzz/$target.dict"
log=$build/$target.log
echo "fuzzing $target for $seconds s (log: $log) ..."
status=0
# shellcheck disable=SC2086
"$build/fuzz-$target" "$corpus" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix="$artifacts/" -print_final_stats=1 $dictionary "$@" > "$log" 2>&1 || status=$?
grep -E '^#[0-9]+.*(DONE|pulse)|stat::number_of_executed_units|stat::peak_rss|cov:' "$log" | tail -n 3
if [ "$status" != 0 ]; then
  echo "fuzz-$target found a problem (exit $status); inputs in $artifacts:" >&2
  ls "$artifacts" >&2
  grep -E 'Fatal error|ERROR: AddressSanitizer|SUMMARY' "$log" | head -n 5 >&2
  exit 1
fi
