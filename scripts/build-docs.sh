#!/bin/sh
# Builds a DocC archive of the public API with the toolchain's own docc, from the compiler's
# symbol graphs (no plugin package needed). Output: .build/docs/LiveLog.doccarchive
set -eu
cd "$(dirname "$0")/.."
graphs=.build/docs/symbol-graphs
rm -rf .build/docs
mkdir -p "$graphs"
for module in LiveLog Changesets LMDB; do
  swift build --target "$module" \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public >/dev/null
done
# Only the project's modules: the compiler also emits graphs of the modules they import.
find "$graphs" -name '*.symbols.json' ! -name 'LiveLog*' ! -name 'Changesets*' ! -name 'LMDB*' -delete
docc convert Docs/LiveLog.docc \
  --additional-symbol-graph-dir "$graphs" \
  --output-path .build/docs/LiveLog.doccarchive \
  --fallback-display-name LiveLog \
  --fallback-bundle-identifier org.livelog.LiveLog \
  --emit-digest >/dev/null
echo "DocC archive: .build/docs/LiveLog.doccarchive ($(find .build/docs/LiveLog.doccarchive -name '*.json' | wc -l) pages)"
