#!/bin/sh
# usage: demo.sh LIVELOG STORE
# The main job on real GitHub data shipped in Tests/Fixtures/github: ingest, queries from the
# indexes, a live subscription receiving changesets from another process, history, verification,
# and the search app's scripting mode on recorded GitHub answers.
set -eu
livelog=$1
store=$2
data="$(cd "$(dirname "$0")/.." && pwd)/Tests/Fixtures/github"
ll() { "$livelog" --store "$store" "$@"; }
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
version() { ll stats --format json | sed 's/.*"version":\([0-9]*\).*/\1/'; }

rm -rf "$store"
cd "$data"

step "Ingest 4,280 real repository objects (3,965 distinct ids) from five NDJSON files"
ll ingest api-repos/*.ndjson

step "Ingest the same files again: identical upserts write no event"
ll ingest api-repos/*.ndjson

step "Ingest repos-2022.csv: 23,291 repositories found by GitHub search in April 2022"
ll ingest --durability no-sync repos-2022.csv

step "The seed's query, answered from the substring and equality indexes"
ll query "full_name CONTAINS[c] 'anim' AND language == 'Swift'" --sort stargazers_count:desc
ll explain "full_name CONTAINS[c] 'anim' AND language == 'Swift'"

step "A live subscription in another process, while the tetris search of 2014, 2019 and 2020 arrives"
before=$(version)
# Started directly, not through `ll`: `$!` must be the watcher itself, not a subshell around it.
"$livelog" --store "$store" watch "full_name CONTAINS[c] 'tetris' AND language == 'Assembly'" \
  --sort stargazers_count:desc --limit 8 > "$store.watch" 2>&1 &
watcher=$!
trap 'kill "$watcher" 2>/dev/null || true' EXIT
trap 'exit 1' INT TERM HUP
sleep 1
ll ingest --every-version search-responses/05_*.json search-responses/11_*.json search-responses/06_*.json
# The watcher sees other processes' commits within about 10 ms; give it a moment, then stop it.
sleep 1
kill "$watcher" 2>/dev/null || true
wait "$watcher" 2>/dev/null || true
trap - EXIT INT TERM HUP
cat "$store.watch"
rm -f "$store.watch"

step "Its history: the rename cjauvin/tetris-c64 -> cjauvin/tetris-464 under one id"
ll log | awk -F '\t' '$4 == 4731946'

step "The tetris results between two versions, and as they were in 2014"
ll diff "full_name CONTAINS[c] 'tetris' AND language == 'Assembly'" --sort stargazers_count:desc \
  --from $((before + 10)) --to "$(version)"
ll query "full_name CONTAINS[c] 'tetris' AND language == 'Assembly'" --sort stargazers_count:desc \
  --limit 5 --as-of $((before + 10))

step "Replay the log and verify: the rebuilt state equals the live one"
ll verify

step "The store"
ll stats

step "The search app's scripting mode, offline: GitHub's (recorded) answer for tetris in Assembly"
echo "(into an empty cache: the initial result, then the changeset the fetch's upserts produced)"
search_store="$store-search"
rm -rf "$search_store"
"$livelog" --store "$search_store" search --once --term tetris --language Assembly \
  --offline recorded --format json

step "The same search again: the answer upserts identical repositories, so the changeset is empty"
"$livelog" --store "$search_store" search --once --term tetris --language Assembly \
  --offline recorded --format json
echo
echo "The full-screen app: $livelog --store $search_store search --offline $data/recorded --latency 300"
