#!/bin/sh
# usage: demo.sh LIVELOG STORE
# The main job on real GitHub data shipped in Tests/Fixtures/github: ingest, idempotent re-ingest,
# a real change stream, the log and the store's figures, and the search app's scripting mode on
# the recorded GitHub answers.
set -eu
livelog=$1
store=$2
data="$(cd "$(dirname "$0")/.." && pwd)/Tests/Fixtures/github"
ll() { "$livelog" --store "$store" "$@"; }
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

rm -rf "$store"
cd "$data"

step "Ingest 4,280 real repository objects (3,965 distinct ids) from five NDJSON files"
ll ingest api-repos/*.ndjson

step "Ingest the same files again: identical upserts write no event"
ll ingest api-repos/*.ndjson

step "A real change stream: the tetris search of 2014, 2019 and about 2020, every version kept"
ll ingest --every-version \
  search-responses/05_*.json search-responses/11_*.json search-responses/06_*.json

step "The log records the rename cjauvin/tetris-c64 -> cjauvin/tetris-464 under one id"
ll log | awk -F '\t' '$4 == 4731946' 

step "The last three events"
version=$(ll stats --format json | sed 's/.*"version":\([0-9]*\).*/\1/')
ll log --from $((version - 2))

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
