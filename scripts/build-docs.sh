#!/bin/sh
# Builds a DocC archive of the public API with the toolchain's own docc, from the symbol graphs
# that `swift package dump-symbol-graph` emits (no plugin package needed; unlike a build with
# -emit-symbol-graph, it emits them even when the modules are up to date).
# Output: .build/docs/LiveLog.doccarchive
set -eu
cd "$(dirname "$0")/.."
graphs=.build/docs/symbol-graphs
rm -rf .build/docs
mkdir -p "$graphs"
dumped=$(swift package dump-symbol-graph --minimum-access-level public 2>&1 | sed -n 's/^Files written to //p')
[ -d "$dumped" ] || { echo "swift package dump-symbol-graph wrote no symbol graphs" >&2; exit 1; }
# Only the project's library modules: not the tests, not the modules they import.
for module in LiveLog Changesets LMDB GitHubSearch; do
  cp "$dumped/$module".symbols.json "$dumped/$module"@*.symbols.json "$graphs"/ 2>/dev/null || true
  [ -f "$graphs/$module.symbols.json" ] || { echo "no symbol graph for $module" >&2; exit 1; }
done
docc convert Docs/LiveLog.docc \
  --additional-symbol-graph-dir "$graphs" \
  --output-path .build/docs/LiveLog.doccarchive \
  --fallback-display-name LiveLog \
  --fallback-bundle-identifier org.livelog.LiveLog \
  --emit-digest >/dev/null
echo "DocC archive: .build/docs/LiveLog.doccarchive ($(find .build/docs/LiveLog.doccarchive -name '*.json' | wc -l) pages)"
