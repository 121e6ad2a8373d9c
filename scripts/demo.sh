#!/bin/sh
# usage: demo.sh LIVELOG STORE
# The main job on real GitHub data shipped in Tests/Fixtures/github: ingest, queries from the
# indexes, a second collection of an app's own record type (Tests/Fixtures/apps), a live subscription receiving changesets from another process, history, verification,
# and the search app's scripting mode on recorded GitHub answers and against the local GitHub
# search service (scripts/github-service).
set -eu
livelog=$1
store=$2
root="$(cd "$(dirname "$0")/.." && pwd)"
data="$root/Tests/Fixtures/github"
apps="$root/Tests/Fixtures/apps"

# The processes started in the background are started directly (not through a shell function,
# whose $! is a subshell that killing leaves its child running) and stopped on every exit path.
watcher=""
service=""
cleanup() {
  for pid in $watcher $service; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -f "$store.watch" "$store.service"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

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
"$livelog" --store "$store" watch "full_name CONTAINS[c] 'tetris' AND language == 'Assembly'" \
  --sort stargazers_count:desc --limit 8 > "$store.watch" 2>&1 &
watcher=$!
sleep 1
ll ingest --every-version search-responses/05_*.json search-responses/11_*.json search-responses/06_*.json
# The watcher sees other processes' commits within about 10 ms; give it a moment, then stop it.
sleep 1
kill "$watcher" 2>/dev/null || true
wait "$watcher" 2>/dev/null || true
watcher=""
cat "$store.watch"

step "Its history: the rename cjauvin/tetris-c64 -> cjauvin/tetris-464 under one id"
ll log | awk -F '\t' '$4 == 4731946'

step "The tetris results between two versions, and as they were in 2014"
ll diff "full_name CONTAINS[c] 'tetris' AND language == 'Assembly'" --sort stargazers_count:desc \
  --from $((before + 10)) --to "$(version)"
ll query "full_name CONTAINS[c] 'tetris' AND language == 'Assembly'" --sort stargazers_count:desc \
  --limit 5 --as-of $((before + 10))

step "A collection of an app's own type: 1,656 open-source iOS apps, its schema from a file"
# dkhamsing/open-source-ios-apps (CC0-1.0) as of 2026-07-19, keyed by source URL (Tests/Fixtures/apps).
ll collection create apps --schema "$apps/apps.schema.json"
ll ingest --collection apps "$apps/apps.ndjson"
ll query --collection apps "title CONTAINS[c] 'chat' AND ANY tags == 'swift'" --sort stars:desc --limit 5

step "A live query on apps while the list's real changes of 2026-07-20 to 08-21 arrive in two commits"
"$livelog" --store "$store" watch --collection apps "ANY tags == 'swift' AND stars >= 5000" \
  --sort stars:desc --limit 6 > "$store.watch" 2>&1 &
watcher=$!
sleep 1
ll ingest --collection apps "$apps/changes-1.ndjson" "$apps/changes-2.ndjson"
sleep 1
kill "$watcher" 2>/dev/null || true
wait "$watcher" 2>/dev/null || true
watcher=""
cat "$store.watch"

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

step "The local GitHub search service: GET /search/repositories from the shipped repositories"
# Port 0: the service takes a free port and says which once it accepts connections. It starts at
# step 8 of its real histories and moves one step per search (Docs/GitHubClient.md).
: > "$store.service"  # there before the service opens it, so that the first read finds it
python3 "$root/scripts/github-service" --port 0 --epoch 8 > "$store.service" 2>&1 &
service=$!
url=""
tries=0
while [ -z "$url" ]; do
  url=$(sed -n 's/^listening on //p' "$store.service" || true)
  [ -n "$url" ] && break
  if ! kill -0 "$service" 2>/dev/null || [ "$tries" -ge 200 ]; then
    cat "$store.service" >&2
    echo "error: the local GitHub search service did not start" >&2
    exit 1
  fi
  tries=$((tries + 1))
  sleep 0.1
done
echo "listening on $url"
service_store="$store-service"
rm -rf "$service_store"
for term in swift animation json chat; do
  echo
  GITHUB_TOKEN="" "$livelog" --store "$service_store" search --once --term "$term" --language Swift \
    --base-url "$url"
done

step "chat again, one step of real history later: stars changed, hilen/TSWeChat is now lanceylai/TSWeChat"
GITHUB_TOKEN="" "$livelog" --store "$service_store" search --once --term chat --language Swift \
  --base-url "$url"

echo
echo "The full-screen app (type a term; Ctrl-R searches again, one step of history later):"
echo "  on the local service:  python3 $root/scripts/github-service --port 8089 &"
echo "                         $livelog --store $service_store search --base-url http://127.0.0.1:8089"
echo "  on the recordings:     $livelog --store $search_store search --offline $data/recorded --latency 300"
echo "  on GitHub itself:      $livelog --store $service_store search   (GITHUB_TOKEN raises the rate limit)"
