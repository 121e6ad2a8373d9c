#!/usr/bin/env bash
# usage: scripts/crash-harness.sh [--kills N] [--durability durable|no-meta-sync|no-sync|both]
#                                 [--batch N] [--writers N] [--lines N] [--seed N] [--livelog PATH]
#                                 [--work DIR] [--keep]
#
# Kills a writing `livelog ingest` with SIGKILL at random moments, N times per durability mode,
# together with a `livelog log --follow` reader stuck inside its read snapshot (its output is a
# pipe nobody reads), and after every kill reopens the store and checks:
#   - durable mode: every LSN the writer printed (`ingest --progress-lsn`, printed after the
#     commit returned) is in the store: `stats` version >= the last printed LSN, and
#     `log --from X --to X` prints event X;
#   - no-sync and no-meta-sync modes: the same figures, counted as commits lost instead of
#     failing (a process crash should lose nothing in any mode: only an OS crash can);
#   - every mode: `livelog verify` exits 0 (the log is contiguous, every checksum holds, and the
#     state equals its replay) and no reader slot is left held: the open cleared the slots of
#     the killed processes (`stats` stale_readers_cleared), and readers_active is at most 1 (a
#     follower that lives through the whole run, polling, keeps the environment open so that
#     LMDB cannot simply reset its reader table).
# Each round ingests fresh content (new ids, updates of earlier ones, deletes) in batches of
# --batch mutations (default 5) from --lines NDJSON lines (default 2000); with --writers N, N
# threads commit batches at once (`ingest --writers`), so that commits share fsyncs (group
# commit) and acknowledgements come in any order; a batch of more than 256 mutations takes the
# bulk path (a fold into the index segments) on every commit. The first round of each
# mode runs to completion to time the writer; kill delays are then drawn uniformly from the
# duration of its latest full run (a round that finishes before its kill times it again).
#
# Prints one line per mode:
#   RESULT mode=durable writers=1 batch=5 kills=200 completed=0 acknowledged=... lost=0 ... failures=0
# and exits 0 when nothing failed, 1 otherwise (2 for a usage error). Needs bash, awk and the
# livelog binary (default: the release build beside this script's package, else `livelog`).
set -u
kills=200 modes=both batch=5 writers=1 lines=2000 seed=$$ livelog= work= keep=0
while [ $# -gt 0 ]; do
  case $1 in
    --kills) kills=$2; shift 2 ;;
    --durability) modes=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --writers) writers=$2; shift 2 ;;
    --lines) lines=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --livelog) livelog=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h | --help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "crash-harness: unknown option $1" >&2; exit 2 ;;
  esac
done
case $modes in durable | no-sync | no-meta-sync) ;; both) modes="durable no-sync" ;; *)
  echo "crash-harness: --durability takes durable, no-meta-sync, no-sync or both" >&2; exit 2 ;;
esac
for number in "$kills" "$batch" "$writers" "$lines" "$seed"; do
  case $number in '' | *[!0-9]*) echo "crash-harness: '$number' is not a whole number" >&2; exit 2 ;; esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "$livelog" ]; then
  for candidate in "$root/.build/release/livelog" "$root/.build/debug/livelog"; do
    [ -x "$candidate" ] && { livelog=$candidate; break; }
  done
  [ -z "$livelog" ] && livelog=$(command -v livelog || true)
fi
[ -x "$livelog" ] || { echo "crash-harness: no livelog binary (build it, or give --livelog PATH)" >&2; exit 2; }
if [ -z "$work" ]; then work=$(mktemp -d "${TMPDIR:-/tmp}/livelog-crash.XXXXXX"); else mkdir -p "$work"; fi
witness= reader= writer=
# Every process the harness starts ends with it, however it ends (a failure, an interrupt).
cleanup() {
  for pid in $witness $reader $writer; do kill -KILL "$pid" 2> /dev/null; wait "$pid" 2> /dev/null; done
  [ "$keep" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
RANDOM=$seed
mkfifo "$work/reader.fifo"
exec 3<> "$work/reader.fifo" # held open, never read

now_ms() { echo $(($(date +%s%N) / 1000000)); }
json_field() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" "$2"; }

# NDJSON for round $1: ids (round*131 + i) mod 5000, so rounds insert new ids and update old ones;
# every 25th line deletes an id. The round number is in every record, so every upsert changes.
generate() {
  awk -v round="$1" -v lines="$lines" 'BEGIN {
    for (i = 0; i < lines; i++) {
      id = (round * 131 + i * 7) % 5000 + 1
      if (i % 25 == 24) { printf "{\"delete\": %d}\n", (id * 3) % 5000 + 1; continue }
      printf "{\"id\": %d, \"full_name\": \"crash/r%d\", \"description\": \"round %d line %d\", ", id, id, round, i
      printf "\"stargazers_count\": %d, \"language\": \"%s\", \"topics\": [\"t%d\"]}\n", round * 10 + i % 10, (i % 3 ? "Swift" : "C"), i % 7
    }
  }'
}

status=0
for mode in $modes; do
  store=$work/$mode.store
  rm -rf "$store"
  kill_count=0 completed=0 acknowledged=0 acked=0 lost=0 in_flight=0 stale=0 max_readers=0 failures=0
  window=0 round=0
  # A follower that lives through the whole mode keeps the environment open, so LMDB never
  # resets its reader table on a fresh open: slots of killed processes must be cleared by
  # mdb_reader_check at the next open, which is what is checked.
  "$livelog" --store "$store" ingest - < /dev/null > /dev/null # creates the empty store
  "$livelog" --store "$store" log --follow --from 999999999999 > /dev/null 2>&1 &
  witness=$!
  while [ "$kill_count" -lt "$kills" ]; do
    round=$((round + 1))
    if [ "$round" -gt $((kills * 3 + 10)) ]; then
      echo "crash-harness: $mode: too many rounds finished before their kill" >&2
      failures=$((failures + 1))
      break
    fi
    generate "$round" > "$work/input.ndjson"
    # The reader writes into a pipe nobody reads: once it is full, the reader blocks inside its
    # read snapshot, like a stuck consumer, and dies holding its reader slot.
    "$livelog" --store "$store" log --follow --format ndjson > "$work/reader.fifo" 2> /dev/null &
    reader=$!
    started=$(now_ms)
    "$livelog" --store "$store" ingest --batch "$batch" --writers "$writers" --durability "$mode" --progress-lsn \
      "$work/input.ndjson" > "$work/progress" 2> "$work/writer.err" &
    writer=$!
    if [ "$window" -gt 0 ]; then
      delay=$((RANDOM * window / 32768))
      sleep "$((delay / 1000)).$(printf '%03d' $((delay % 1000)))"
      kill -KILL "$writer" 2> /dev/null
    fi
    wait "$writer" 2> /dev/null
    exit_status=$?
    writer=
    # The kill window follows the writer's latest full run (it slows as the store grows).
    [ "$exit_status" = 0 ] && window=$(($(now_ms) - started))
    kill -KILL "$reader" 2> /dev/null
    wait "$reader" 2> /dev/null
    reader=
    case $exit_status in
      137) kill_count=$((kill_count + 1)) ;;
      0) completed=$((completed + 1)) ;;
      *)
        echo "crash-harness: $mode round $round: the writer failed (exit $exit_status):" >&2
        cat "$work/writer.err" >&2
        failures=$((failures + 1))
        ;;
    esac
    printed=$(grep -cE '^[0-9]+$' "$work/progress")
    acknowledged=$((acknowledged + printed))
    # The highest: concurrent writers acknowledge in any order, and LSNs are contiguous, so a
    # store that holds the highest holds every one below it.
    last=$(grep -E '^[0-9]+$' "$work/progress" | sort -n | tail -n 1)
    [ -n "$last" ] && acked=$last

    # Reopen and check.
    if ! "$livelog" --store "$store" stats --format json > "$work/stats.json" 2> "$work/check.err"; then
      echo "crash-harness: $mode round $round: stats failed:" >&2
      cat "$work/check.err" >&2
      failures=$((failures + 1))
      break
    fi
    version=$(json_field version "$work/stats.json")
    active=$(json_field readers_active "$work/stats.json")
    cleared=$(json_field stale_readers_cleared "$work/stats.json")
    used=$(json_field readers_used "$work/stats.json")
    stale=$((stale + cleared))
    [ "$used" -gt "$max_readers" ] && max_readers=$used
    if [ "$version" -lt "$acked" ]; then
      if [ "$mode" = durable ]; then
        echo "crash-harness: $mode round $round: LSN $acked was acknowledged, the store ends at $version" >&2
        failures=$((failures + 1))
      fi
      lost=$((lost + acked - version))
      acked=$version
    elif [ "$version" -gt "$acked" ] && [ "$exit_status" = 137 ]; then
      # Committed but killed before the writer printed it: allowed, and counted.
      in_flight=$((in_flight + 1))
    fi
    acked=$version
    if [ "$version" -gt 0 ]; then
      event=$("$livelog" --store "$store" log --from "$version" --to "$version" --format ndjson 2>&1)
      case $event in
        "{\"lsn\":$version,"*) ;;
        *)
          echo "crash-harness: $mode round $round: event $version is not readable: $event" >&2
          failures=$((failures + 1))
          ;;
      esac
    fi
    if ! "$livelog" --store "$store" verify > "$work/verify.out" 2>&1; then
      echo "crash-harness: $mode round $round: verify failed:" >&2
      cat "$work/verify.out" >&2
      failures=$((failures + 1))
      cp -r "$store" "$work/failed-$mode-$round.store"
    fi
    # The witness holds a slot only for the instant of its version poll.
    if [ "$active" -gt 1 ]; then
      echo "crash-harness: $mode round $round: $active reader slots still held after the kill" >&2
      failures=$((failures + 1))
    fi
    [ "$failures" -gt 0 ] && break
  done
  kill -KILL "$witness" 2> /dev/null
  wait "$witness" 2> /dev/null
  witness=
  events=$(json_field events "$work/stats.json")
  echo "RESULT mode=$mode writers=$writers batch=$batch kills=$kill_count completed=$completed rounds=$round acknowledged=$acknowledged" \
    "lost=$lost committed_unacknowledged=$in_flight version=${version:-0} events=${events:-0}" \
    "stale_readers_cleared=$stale max_readers_used=$max_readers window_ms=$window failures=$failures"
  [ "$failures" -gt 0 ] && status=1
done
exit $status
