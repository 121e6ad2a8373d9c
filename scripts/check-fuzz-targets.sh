#!/bin/sh
# usage: scripts/check-fuzz-targets.sh MODULES_DIR
# Type-checks every libFuzzer target in Fuzz/ against the modules of a `-enable-testing` build, so
# that a change of the API they call fails `make test` instead of waiting for the next
# `make fuzz` (which compiles them with the sanitizers, outside SwiftPM).
set -eu
cd "$(dirname "$0")/.."
modules=${1:?usage: scripts/check-fuzz-targets.sh MODULES_DIR}
swiftc=${SWIFTC:-swiftc}
status=0
for target in Fuzz/*.swift; do
  "$swiftc" -typecheck -swift-version 6 -enable-upcoming-feature ExistentialAny \
    -enable-upcoming-feature InternalImportsByDefault -parse-as-library \
    -I "$modules" -I Sources/CLMDB -I Sources/CCRC32C/include "$target" || { echo "error: $target does not compile; see above" >&2; status=1; }
done
exit $status
