#!/usr/bin/env python3
"""Turns the JSON of a `livelog-bench` run into Docs/Benchmarks.md, its charts and README's headline.

usage: scripts/bench-report.py [RESULTS.json] [--baseline FILE] [--output FILE] [--readme FILE]
                               [--no-charts] [--no-readme]
       scripts/bench-report.py --add-to-baseline RUN.json... [--describe TEXT] [--commit REV]
                               [--baseline FILE]

Every figure in the outputs is computed from RESULTS.json (by default Docs/benchmarks/results.json,
or results-quick.json when no full run exists) and from the baseline it is compared with (by default
Docs/benchmarks/baseline.json, when it exists); the only numbers written here are the goals of the
issues, which are targets, not measurements, and the tolerance of the comparison with the baseline.
The charts go to benchmarks/ beside the report. They need matplotlib; without it the report is still
written and says why it has no charts. Standard library otherwise.

--add-to-baseline copies the comparisons of one or more runs into the baseline file (a case measured
again replaces the one there), so that a baseline can be put together from runs of several
scenarios; --describe says what the baseline is (which code it measured), --commit its commit.
"""

import argparse
import json
import math
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The sizes at which the issues state their goals. A run without that size (a quick run) reports
# the goal as not measured, with its largest comparable figure for orientation only.
MILLION = 1_000_000

# A case of the baseline holds when this run's ratio is at least (1 - this) times the baseline's: a
# ratio on a machine shared with other builds moves by some percent between runs of the same code,
# and a case that merely wobbled must not read as having fallen.
HOLD_TOLERANCE = 0.10

# README's generated block lives between these markers; text outside them is never touched.
README_BEGIN = "<!-- bench:begin -->"
README_END = "<!-- bench:end -->"

# Fixed names of the chart files, so that a run without matplotlib can remove stale ones.
CHARTS = {
    "query": "query-latency.svg",
    "ingest": "ingest-throughput.svg",
    "live": "live-latency.svg",
    "changesets": "changesets.svg",
    "scaling": "throughput-by-size.svg",
}

# Scenarios in the order a reader meets them, with what each measures (the report's intros; the
# figures come from the JSON). Scenarios not listed here still get a table, after these.
SCENARIOS = {
    "ingest": (
        "Ingest",
        "Commit throughput of `Store.write` for batches of 1, 100 and 10,000 generated repositories, "
        "durable (an fsync per commit) and no-sync, beside the ceiling: the very event bytes "
        "LiveLog's log stores, appended to one LMDB database with one put per record (no state, no "
        "lookups). Each commit is timed on its own, from the typed records (making the mutations, "
        "which reads every field; the ceiling's bytes are encoded already); the size column is the "
        "number of records written. Since 81636f3 the mutations are made inside the timed region: "
        "figures from before are not comparable. The durable batches of 100 and 10,000 also run into a "
        "collection that declares `Repository`'s fields without indexes (the cases named *no indexes*): "
        "the log and the state alone, the scope issue 2's goal was set for. Each case's ceiling appends "
        "the bytes of its own log, timed in its own turn, so two cases' ratios may differ by the ceilings' "
        "noise as well as by LiveLog's times.",
    ),
    "commit": (
        "Small durable commits",
        "What an app does most: a durable commit of a page of 30 search results, 15 new and 15 "
        "already stored (more stars, a later `updated_at`), into a store of the real fixtures "
        "(`repos-2022` and `api-repos`, the smallest size) and, in a full run, into larger ones "
        "padded with generated records. The peer is SQLite in WAL mode with `synchronous=FULL` and "
        "LiveLog's own index set (FTS5 trigram and B-trees), fed the same pages; it files a stored "
        "row's text and topics again only when they changed. Each commit is timed on its own, "
        "LiveLog's from the typed records (making the mutations) as SQLite's from binding them.",
    ),
    "group": (
        "Group commit",
        "Durable commits of one new record each from 1 and from 4 threads at once. LiveLog's "
        "commits that arrive while another is being flushed share the next transaction and its "
        "fsyncs; the peer is raw LMDB, where each durable append from each thread pays its own. "
        "Latencies are per commit, LiveLog's from the typed record; the notes give commits per "
        "second over the whole run.",
    ),
    "query": (
        "Query",
        "The seed's query, `full_name CONTAINS[c] term` with and without `AND language == 'Swift'`, "
        "for terms matched by about 5%, 0.5% and 0.02% of the names, plus descriptions, `AND`, "
        "`OR`, `NOT`, `BEGINSWITH`, star ranges and top-20s, beside SQLite on the same rows: a "
        "`LIKE '%term%'` scan, an FTS5 `trigram` index and B-tree indexes. The rare term is also "
        "ANDed with an unselective part (the data's most frequent language, and "
        "`stargazers_count > 10`), beside FTS5 joined with the B-tree condition. Also indexed ingest "
        "(both engines with every index, no fsync, batches of 10,000, each timed from the typed "
        "records: LiveLog's making its mutations, SQLite's binding), bytes per record, and the "
        "time to open the full store against an empty one. LiveLog's bytes per record are its whole "
        "map in use, and by part: state (each collection's databases other than its indexes, and "
        "the store's `meta` and `catalog` tables), indexes, the log, and free pages (pages LMDB "
        "holds for reuse after copy-on-write), which add up to the whole. Cases prefixed "
        "`repos-2022:` ran on the 23,291 real records.",
    ),
    "changesets": (
        "Changesets",
        "The batch diff beside the standard library's `difference(from:).inferringMoves()` on "
        "DifferenceKit's published cases, the generic path with `String` ids alone, and the "
        "incrementally maintained sorted result (`SortedRows.apply`, 10 changed records per "
        "operation) beside re-sorting every row and diffing the whole result.",
    ),
    "live": (
        "Live queries",
        "From the start of a commit until every live query holds its changeset, for 1, 100 and "
        "1,000 seed-style live queries and commits of 1, 10 and 100 records, beside re-running "
        "every query and diffing its whole result (what an engine without incremental maintenance "
        "does on every write).",
    ),
    "replay": (
        "Replay",
        "Rebuilding state and indexes from the log beside first-time ingest of the same events, "
        "at every size of the run: each store gets the generated records in batches of 10,000, then "
        "updates in batches of 10,000, a quarter as many as the records (one batch at least). The "
        "size column counts events; the `records` note is the store's records. At the largest size "
        "only (each takes minutes at 1M): verifying the store, and as-of queries at several depths "
        "beside replaying the prefix and querying it.",
    ),
    "replication": (
        "Replication",
        "Commits through a NATS JetStream stream, on one loopback server (1 copy) and on a "
        "3-server loopback cluster (3 copies), beside the same commits on a local store in the same "
        "run; a new replica's catch-up; replica lag under load (from a writer's acknowledgement to "
        "a follower in the same process applying the commit), 3 copies beside 1; and the failover "
        "write gap: from a kill -9 of the stream's leader to the first acknowledged write begun "
        "after it (no peer). Each commit is timed on its own.",
    ),
}

# A data set's name prefixing a case (`repos-2022: ...`); the query scenario's `AND: `, `OR: ` and
# `NOT: ` prefixes name operators, not data sets.
DATASET = r"(?!(?:AND|OR|NOT): )[\w.-]+"
CONTAINS_CASE = re.compile(
    rf"^(?:(?P<dataset>{DATASET}): )?CONTAINS\[c\] '(?P<term>[^']*)' \((?P<label>[^)]*)\)"
    r"(?P<swift> \+ Swift)? vs (?P<peer>LIKE|FTS5)$"
)
# A rare term ANDed with an unselective condition (issue 16), beside SQLite FTS5.
AND_PART_CASE = re.compile(
    rf"^(?:(?P<dataset>{DATASET}): )?AND: CONTAINS\[c\] '(?P<term>[^']*)' \((?P<label>[^)]*)\) "
    r"AND (?P<other>.+) vs FTS5$"
)
INGEST_CASE = re.compile(r"^batch (?P<batch>\d+), (?P<durability>.+)$")
LIVE_CASE = re.compile(r"^(?P<queries>\d+) live queries, (?P<changed>\d+) records per commit$")


# ---------------------------------------------------------------------------------------------
# Formatting


def fmt_duration(seconds):
    """The benchmark's own units (ns, µs, ms, s), so that the report reads like its console."""
    if seconds is None:
        return "–"
    if seconds < 1e-6:
        return f"{seconds * 1e9:.0f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def fmt_duration_tick(seconds):
    """A chart tick in the same units, without padding digits: 200 µs, 1 ms, 5 s."""
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:g} {unit}"
    return f"{seconds * 1e9:g} ns"


def fmt_number(value):
    """Three significant digits with thousands separators: timings this noisy have no more."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    rounded = float(f"{value:.3g}")
    return f"{rounded:,.0f}" if abs(rounded) >= 1000 else f"{rounded:.3g}"


def fmt_note(value):
    """Counts (result rows, moves) exactly; rates and averages like any other measurement."""
    return f"{int(value):,}" if float(value).is_integer() else fmt_number(value)


def fmt_ratio(ratio):
    return "–" if ratio is None else f"{fmt_number(ratio)}x"


def fmt_size(size):
    return f"{size:,}"


def fmt_spread(stats):
    """The median absolute deviation over the median, as a percentage: how noisy a figure is.
    Left out below three samples, where it says nothing."""
    return f" ±{stats['spread'] * 100:.0f}%" if stats["samples"] >= 3 else ""


def short_size(size):
    """1M, 100k, 23,291: the sizes as the issues name them."""
    if size >= MILLION and size % MILLION == 0:
        return f"{size // MILLION}M"
    if size >= 1000 and size % 1000 == 0:
        return f"{size // 1000}k"
    return fmt_size(size)


# ---------------------------------------------------------------------------------------------
# Reading the results


class Results:
    """The comparisons of one run, with the look-ups the report needs."""

    def __init__(self, document):
        self.metadata = document.get("metadata", {})
        self.comparisons = document.get("comparisons", [])

    def scenarios(self):
        """Scenario names in the report's order: known ones first, then any others as they come."""
        present = list(dict.fromkeys(c["scenario"] for c in self.comparisons))
        return [s for s in SCENARIOS if s in present] + [s for s in present if s not in SCENARIOS]

    def of(self, scenario):
        return [c for c in self.comparisons if c["scenario"] == scenario]

    def find(self, scenario, name, size=None):
        """The comparison with this exact name (and size, if given; else the largest size)."""
        matches = [c for c in self.of(scenario) if c["name"] == name]
        if size is not None:
            matches = [c for c in matches if c["size"] == size]
        return max(matches, key=lambda c: c["size"]) if matches else None

    def contains_cases(self):
        """The CONTAINS[c] cases as (comparison, parts of its name): dataset (None for generated
        data), term, label and selectivity ("common", "medium", "rare"), swift (the language
        filter) and peer ("LIKE" or "FTS5")."""
        for c in self.of("query"):
            match = CONTAINS_CASE.match(c["name"])
            if match:
                yield c, {
                    "dataset": match["dataset"],
                    "term": match["term"],
                    "selectivity": match["label"].split(",")[0].strip(),
                    "label": match["label"],
                    "swift": bool(match["swift"]),
                    "peer": match["peer"],
                }

    def generated_sizes(self, scenario):
        """Sizes of the generated data sets (cases without a data-set prefix)."""
        return sorted({c["size"] for c in self.of(scenario) if not has_dataset(c)})


def has_dataset(comparison):
    """Whether the case ran on a named data set (`repos-2022: ...`) rather than generated data."""
    return re.match(rf"^{DATASET}: ", comparison["name"]) is not None


def median(comparison, side="ours"):
    figure = comparison.get(side)
    return figure["stats"]["median"] if figure else None


def ratio(comparison):
    """Peer time over LiveLog time: above 1, LiveLog is that many times faster."""
    peer = comparison.get("peer")
    ours = comparison["ours"]["stats"]["median"]
    if not peer or ours <= 0:
        return None
    return peer["stats"]["median"] / ours


def throughput(comparison, side="ours"):
    """Items per second of one side (records, rows, events)."""
    figure = comparison.get(side)
    if not figure or figure["stats"]["median"] <= 0:
        return None
    return figure["itemsPerOperation"] / figure["stats"]["median"]


# ---------------------------------------------------------------------------------------------
# Goals: each issue's targets checked against the measured figures


class Goal:
    """One checked target: which issue, what it asks, what was measured, and the verdict."""

    def __init__(self, issue, goal, measured, status):
        self.issue, self.goal, self.measured, self.status = issue, goal, measured, status


def verdict(ok):
    return "met" if ok else "missed"


def not_at(size, fallback, describe):
    """A goal stated at `size` that this run did not reach; the largest figure, for orientation."""
    if fallback is None:
        return f"not run at {short_size(size)}", "not measured"
    # A replay case's size counts events; the sizes the goals name count records.
    return (
        f"not run at {short_size(size)}; at {short_size(records_of(fallback) or fallback['size'])}: "
        f"{describe(fallback)} (indicative only)",
        "not measured",
    )


def goal_at_size(results, scenario, name, size, describe, check):
    """A goal on one named case at one size: met / missed there, else not measured."""
    comparison = results.find(scenario, name, size)
    if comparison is None:
        return not_at(size, results.find(scenario, name), describe)
    return describe(comparison), verdict(check(comparison))


def ingest_goals(results):
    goals = []
    for batch in (100, 10_000):
        # Issue 2 set this goal for the log and the state, before indexes existed: it is checked
        # on a collection that declares Repository's fields without indexes; the figure with
        # Repository's indexes stands beside it.
        plain = results.find("ingest", f"batch {batch}, durable, no indexes")
        indexed = results.find("ingest", f"batch {batch}, durable")
        text = (
            f"batched durable ingest (batch {batch:,}) within 3x of raw LMDB append of the same bytes "
            "(set before indexes: checked on a collection without indexes)"
        )
        if plain is None or ratio(plain) is None:
            goals.append(Goal(2, text, "case not in this run", "not measured"))
            continue
        slower = 1 / ratio(plain)
        measured = (
            f"LiveLog {fmt_duration(median(plain))} vs raw {fmt_duration(median(plain, 'peer'))} "
            f"per commit: {fmt_number(slower)}x the raw time"
        )
        if indexed is not None and ratio(indexed):
            measured += (
                f"; with Repository's indexes {fmt_duration(median(indexed))} vs raw "
                f"{fmt_duration(median(indexed, 'peer'))}: {fmt_number(1 / ratio(indexed))}x"
            )
        goals.append(Goal(2, text, measured, verdict(slower <= 3)))
    return goals


def query_goals(results):
    goals = []
    cases = list(results.contains_cases())
    generated = [(c, p) for c, p in cases if p["dataset"] is None]

    # p50 under 1 ms for a selective term with a language filter: the medium and rare terms.
    for selectivity in ("medium", "rare"):
        picks = [
            (c, p)
            for c, p in generated
            if p["swift"] and p["peer"] == "LIKE" and p["selectivity"] == selectivity
        ]
        at = [c for c, _ in picks if c["size"] == MILLION]
        label = next((p["label"] for _, p in picks), selectivity)
        text = f"p50 < 1 ms at 1M: selective term ({label}) + language"
        describe = lambda c: f"'{CONTAINS_CASE.match(c['name'])['term']}': {fmt_duration(median(c))}"
        if at:
            goals.append(Goal(3, text, describe(at[0]), verdict(median(at[0]) < 1e-3)))
        else:
            largest = max((c for c, _ in picks), key=lambda c: c["size"], default=None)
            goals.append(Goal(3, text, *not_at(MILLION, largest, describe)))

    # At least 20x the LIKE scan and faster than FTS5 trigram, for every CONTAINS case at 1M.
    by_case = {}
    for c, p in generated:
        by_case.setdefault((p["label"], p["swift"]), {}).setdefault(c["size"], {})[p["peer"]] = c
    if not by_case:
        goals.append(
            Goal(
                3,
                "≥ 20x LIKE scan and faster than FTS5 trigram, per case",
                "no CONTAINS cases",
                "not measured",
            )
        )
    for (label, swift), sizes in by_case.items():
        text = f"≥ 20x LIKE and > 1x FTS5 at 1M: CONTAINS[c] ({label}){' + Swift' if swift else ''}"

        def describe(peers):
            return ", ".join(f"{fmt_ratio(ratio(peers[k]))} {k}" for k in ("LIKE", "FTS5") if k in peers)

        if MILLION in sizes:
            peers = sizes[MILLION]
            like, fts = peers.get("LIKE"), peers.get("FTS5")
            ok = like is not None and fts is not None and ratio(like) >= 20 and ratio(fts) > 1
            goals.append(Goal(3, text, describe(peers), verdict(ok)))
        else:
            largest = max(sizes)
            goals.append(
                Goal(
                    3,
                    text,
                    f"not run at 1M; at {short_size(largest)}: {describe(sizes[largest])} (indicative only)",
                    "not measured",
                )
            )

    # Indexed ingest at least 1.5x SQLite + FTS5's rows per second.
    name = "indexed ingest, batch 10000, no-sync"
    measured, status = goal_at_size(
        results,
        "query",
        name,
        MILLION,
        lambda c: f"{fmt_number(throughput(c))} vs {fmt_number(throughput(c, 'peer'))} rows/s: {fmt_ratio(ratio(c))}",
        lambda c: ratio(c) >= 1.5,
    )
    goals.append(Goal(3, "indexed ingest ≥ 1.5x SQLite + FTS5 rows/s (1M)", measured, status))

    # Bytes per record: a figure to show beside SQLite's, not a threshold.
    comparison = results.find("query", name, MILLION) or results.find("query", name)
    if comparison and "LiveLog bytes/record" in comparison.get("notes", {}):
        notes = comparison["notes"]
        measured = (
            f"at {short_size(comparison['size'])}: LiveLog {fmt_number(notes['LiveLog bytes/record'])} B, "
            f"SQLite {fmt_number(notes.get('SQLite bytes/record'))} B per record"
        )
        goals.append(Goal(3, "bytes per record beside SQLite's", measured, "reported"))
    else:
        goals.append(Goal(3, "bytes per record beside SQLite's", "not in this run", "not measured"))

    # Opening a full store about as fast as an empty one; "about" is read as within 2x.
    measured, status = goal_at_size(
        results,
        "query",
        "open store and read its version",
        MILLION,
        lambda c: f"{fmt_duration(median(c))} vs empty {fmt_duration(median(c, 'peer'))}",
        lambda c: median(c) <= 2 * median(c, "peer"),
    )
    goals.append(Goal(3, "opening a 1M store ≈ opening an empty one (read as: within 2x)", measured, status))
    return goals


def changeset_goals(results):
    goals = []
    name = "batch diff 100k: -10k +10k ~2000"
    comparison = results.find("changesets", name, 100_000)
    if comparison is None:
        goals.append(
            Goal(4, "100,000-id diff ≤ 15 ms and ≥ 100x the stdlib", "case not in this run", "not measured")
        )
    else:
        goals.append(
            Goal(
                4,
                "100,000-id diff ≤ 15 ms",
                fmt_duration(median(comparison)),
                verdict(median(comparison) <= 15e-3),
            )
        )
        goals.append(
            Goal(
                4,
                "100,000-id diff ≥ 100x the stdlib's `difference` + `inferringMoves`",
                f"{fmt_ratio(ratio(comparison))} ({fmt_duration(median(comparison, 'peer'))})",
                verdict(ratio(comparison) is not None and ratio(comparison) >= 100),
            )
        )
    sorted_cases = [c for c in results.of("changesets") if c["name"].startswith("sorted apply ")]
    at = [c for c in sorted_cases if c["size"] == MILLION]
    text = "incremental sorted result, 1M rows / 10 changes ≤ 50 µs"
    describe = lambda c: f"{fmt_duration(median(c))} ({fmt_ratio(ratio(c))} re-sort + diff)"
    if at:
        goals.append(Goal(4, text, describe(at[0]), verdict(median(at[0]) <= 50e-6)))
    else:
        goals.append(
            Goal(
                4, text, *not_at(MILLION, max(sorted_cases, key=lambda c: c["size"], default=None), describe)
            )
        )
    return goals


def live_goals(results):
    name = "1000 live queries, 10 records per commit"
    goals = []
    measured, status = goal_at_size(
        results, "live", name, MILLION, lambda c: fmt_duration(median(c)), lambda c: median(c) <= 10e-3
    )
    goals.append(Goal(5, "1,000 live queries, 10 changed records ≤ 10 ms (1M records)", measured, status))
    measured, status = goal_at_size(
        results,
        "live",
        name,
        MILLION,
        lambda c: f"{fmt_ratio(ratio(c))} ({fmt_duration(median(c, 'peer'))} re-run + diff)",
        lambda c: ratio(c) is not None and ratio(c) >= 50,
    )
    goals.append(Goal(5, "the same ≥ 50x re-run + diff (1M records)", measured, status))
    return goals


def replay_goals(results):
    """Issue 6's scenario may not exist yet; its cases are found by words, not exact names."""
    cases = results.of("replay")
    if not cases:
        return [
            Goal(
                6,
                "replay ≥ 300,000 events/s, within 2x of first-time ingest",
                "no replay scenario in this run",
                "not measured",
            )
        ]
    every = [c for c in cases if "every index" in c["name"].lower()]
    if not every:
        return [
            Goal(
                6,
                "replay with every index ≥ 300,000 events/s",
                "no 'replay with every index' case",
                "not measured",
            )
        ]
    comparison = max(every, key=lambda c: c["size"])
    notes = comparison.get("notes", {})
    # Prefer the scenario's own events/s note; else items per operation over the median.
    rate = next((v for k, v in notes.items() if "events/s" in k and "ingest" not in k.lower()), None)
    rate = rate if rate is not None else throughput(comparison)
    where = f"{comparison['name']} at {short_size(comparison['size'])}"
    goals = [
        Goal(
            6,
            "replay with every index ≥ 300,000 events/s",
            f"{fmt_number(rate)} events/s ({where})",
            verdict(rate >= 300_000),
        )
    ]
    if comparison.get("peer"):
        slower = 1 / ratio(comparison)
        measured = f"{fmt_number(slower)}x the time of {comparison['peer']['engine']}"
        goals.append(Goal(6, "replay within 2x of first-time ingest", measured, verdict(slower <= 2)))
    else:
        goals.append(
            Goal(6, "replay within 2x of first-time ingest", "no ingest figure beside it", "not measured")
        )
    return goals


# ---------------------------------------------------------------------------------------------
# Issues 16 (read path) and 17 (write path): each goal beside the baseline's figure for it

BETWEEN_CASE = "stargazers_count BETWEEN {1000, 2000}"
PREFIX_CASE = "BEGINSWITH[c] 'react' (name)"
PREFIX_NOCASE_CASE = "BEGINSWITH[c] 'react' (name) vs NOCASE index"
INDEXED_INGEST_CASE = "indexed ingest, batch 10000, no-sync"
COMMIT_PAGE_CASE = "durable page of 30 (15 new, 15 updated)"
REPLAY_CASE = "replay with every index"
VERIFY_CASE = "verify (log checks, replay, compare)"
AS_OF_CASE = re.compile(r"^as-of (?P<query>.+), (?P<depth>\d+)% of the log back$")


def contains_case(results, selectivity, peer, size, swift=False):
    """The generated data's CONTAINS[c] case of a selectivity ("common", "medium", "rare") and a
    peer, found by its label since the term is picked from the data (None: the largest size)."""
    matches = [
        c
        for c, p in results.contains_cases()
        if p["dataset"] is None
        and p["selectivity"] == selectivity
        and p["peer"] == peer
        and p["swift"] == swift
        and (size is None or c["size"] == size)
    ]
    return max(matches, key=lambda c: c["size"]) if matches else None


def records_of(comparison):
    """Records of the store a case ran on. The replay scenario's cases are sized in events and note
    their records; a run from before that note (replay at its largest size only) has none."""
    if comparison["scenario"] != "replay":
        return comparison["size"]
    records = comparison.get("notes", {}).get("records")
    return int(records) if records is not None else None


def replay_case(results, match, size):
    """The replay scenario's case whose name passes `match`, on the store of `size` records (None:
    the largest store). A case of an older run without a records note stands for the 1M store when
    it has at least 1M events: that run measured replay at its largest size only."""
    cases = [c for c in results.of("replay") if match(c["name"])]
    if not cases:
        return None
    if size is None:
        return max(cases, key=lambda c: (records_of(c) or 0, c["size"]))
    noted = [c for c in cases if records_of(c) is not None]
    if noted:
        return next((c for c in noted if records_of(c) == size), None)
    largest = max(cases, key=lambda c: c["size"])
    return largest if largest["size"] >= size else None


def worst_as_of(results, query, size):
    """The as-of case of `query` with the largest p50 over every depth, on the store of `size`
    records (None: the largest store); that store's cases all share one size."""
    anchor = replay_case(results, lambda n: (m := AS_OF_CASE.match(n)) and m["query"] == query, size)
    if anchor is None:
        return None
    cases = [
        c
        for c in results.of("replay")
        if c["size"] == anchor["size"] and (m := AS_OF_CASE.match(c["name"])) and m["query"] == query
    ]
    return max(cases, key=median)


def checked(issue, text, results, baseline, locate, describe, check, size=MILLION, reported=False):
    """A goal on the case `locate(results, size)` finds (`locate(results, None)`: the largest there
    is, for orientation when the run did not reach `size`), with the baseline's figure beside it.
    `reported`: a figure shown without a threshold."""
    comparison = locate(results, size)
    if comparison is None and locate(results, None) is None:
        measured, status = "case not in this run", "not measured"
    elif comparison is None:
        measured, status = not_at(size, locate(results, None), describe)
    else:
        measured = describe(comparison)
        status = "reported" if reported else verdict(check(comparison))
    before = locate(baseline, size) if baseline is not None else None
    measured += f"; before: {describe(before)}" if before is not None else "; before: not in the baseline"
    return Goal(issue, text, measured, status)


def vs_peer(comparison):
    """A ratio with both medians: '2.5x (LiveLog 1.2 ms, SQLite FTS5 trigram 3.0 ms)'."""
    return (
        f"{fmt_ratio(ratio(comparison))} (LiveLog {fmt_duration(median(comparison))}, "
        f"{comparison['peer']['engine']} {fmt_duration(median(comparison, 'peer'))})"
    )


def bytes_parts(comparison):
    """LiveLog's bytes per record beside SQLite's, with LiveLog's parts."""
    notes = comparison.get("notes", {})
    total, sqlite = notes.get("LiveLog bytes/record"), notes.get("SQLite bytes/record")
    parts = [
        (label, notes[key])
        for label, key in (
            ("state", "LiveLog state B/record"),
            ("indexes", "LiveLog indexes B/record"),
            ("log", "LiveLog log B/record"),
            ("free pages", "LiveLog free pages B/record"),
        )
        if key in notes
    ]
    if parts and "LiveLog free pages B/record" not in notes and total:
        # A run from before the free-pages note: what no database holds is the rest of the map.
        parts.append(("rest of the map", total - sum(value for _, value in parts)))
    text = f"LiveLog {fmt_number(total)} B"
    if parts:
        text += " (" + ", ".join(f"{label} {fmt_number(value)}" for label, value in parts) + ")"
    text += f" vs SQLite {fmt_number(sqlite)} B per record"
    if total and sqlite:
        text += f": {fmt_number(total / sqlite)}x"
    return text


def bytes_ratio(comparison):
    notes = comparison.get("notes", {})
    total, sqlite = notes.get("LiveLog bytes/record"), notes.get("SQLite bytes/record")
    return total / sqlite if total and sqlite else None


def and_part_cases(results, size):
    """The generated data's ANDs of a rare term and an unselective part at `size` (None: the
    largest size of each), each with the rare term's own case (same LiveLog query without the
    unselective part, at the same size), as (AND case, alone case, the unselective part)."""
    found = {}
    for c in results.of("query"):
        match = AND_PART_CASE.match(c["name"])
        if match is None or match["dataset"] is not None or (size is not None and c["size"] != size):
            continue
        key = match["other"]
        if key not in found or c["size"] > found[key][0]["size"]:
            alone = results.find(
                "query", f"CONTAINS[c] '{match['term']}' ({match['label']}) vs FTS5", c["size"]
            )
            found[key] = (c, alone, key)
    return list(found.values())


def and_part_other(other):
    """An AND case's unselective part with the language named by kind, so that the goal's row is
    the same whichever language the data's most frequent is."""
    return re.sub(r"^language == '[^']*'$", "language == (the most frequent)", other)


def read_path_goals(results, baseline):
    """Issue 16: the read path at 1M records, each ratio peer p50 / LiveLog p50."""
    goals = []
    for selectivity, threshold in (("common", 2), ("medium", 3)):
        label = next(
            (p["label"] for _, p in results.contains_cases() if p["selectivity"] == selectivity),
            selectivity,
        )
        goals.append(
            checked(
                16,
                f"CONTAINS[c] ({label}) ≥ {threshold}x SQLite FTS5 trigram (1M)",
                results,
                baseline,
                lambda r, size, s=selectivity: contains_case(r, s, "FTS5", size),
                lambda c: f"'{CONTAINS_CASE.match(c['name'])['term']}': {vs_peer(c)}",
                lambda c, t=threshold: ratio(c) >= t,
            )
        )
    goals.append(
        checked(
            16,
            f"`{BETWEEN_CASE}` ≥ 2x SQLite's B-tree index (1M)",
            results,
            baseline,
            lambda r, size: r.find("query", BETWEEN_CASE, size),
            vs_peer,
            lambda c: ratio(c) >= 2,
        )
    )
    goals.append(
        checked(
            16,
            "`name BEGINSWITH[c] 'react'` ≥ 50x SQLite's LIKE scan (1M)",
            results,
            baseline,
            lambda r, size: r.find("query", PREFIX_CASE, size),
            vs_peer,
            lambda c: ratio(c) >= 50,
        )
    )
    goals.append(
        checked(
            16,
            "the same beside SQLite's `COLLATE NOCASE` index on `name` (1M)",
            results,
            baseline,
            lambda r, size: r.find("query", PREFIX_NOCASE_CASE, size),
            vs_peer,
            None,
            reported=True,
        )
    )
    goals.append(
        checked(
            16,
            "bytes per record ≤ 1x SQLite's, the log included (1M; LiveLog's whole map in use, SQLite's "
            "file; the store's `meta` and `catalog` tables count as state)",
            results,
            baseline,
            lambda r, size: (
                c if (c := r.find("query", INDEXED_INGEST_CASE, size)) and bytes_ratio(c) else None
            ),
            bytes_parts,
            lambda c: bytes_ratio(c) <= 1,
        )
    )
    # An AND of a selective and an unselective part costs about the selective part alone.
    others = [and_part_other(other) for _, _, other in and_part_cases(results, None)]
    if not others:
        goals.append(
            Goal(
                16,
                "rare term AND an unselective part ≤ 2x the rare term alone, LiveLog's p50 (1M)",
                "no such case in this run",
                "not measured",
            )
        )
    for shown in others:

        def locate(r, size, shown=shown):
            """The AND case with its rare term's own case beside it, as `alone`."""
            return next(
                (
                    dict(c, alone=alone)
                    for c, alone, o in and_part_cases(r, size)
                    if and_part_other(o) == shown
                ),
                None,
            )

        def describe(c):
            match = AND_PART_CASE.match(c["name"])
            text = f"'{match['term']}' AND {match['other']}: {fmt_duration(median(c))}"
            if c["alone"] is None:
                return text + ", the rare term alone not measured"
            return (
                f"{text}, alone {fmt_duration(median(c['alone']))}: "
                f"{fmt_number(median(c) / median(c['alone']))}x ({fmt_ratio(ratio(c))} FTS5)"
            )

        goals.append(
            checked(
                16,
                f"rare term AND `{shown}` ≤ 2x the rare term alone, LiveLog's p50 (1M)",
                results,
                baseline,
                locate,
                describe,
                lambda c: c["alone"] is not None and median(c) <= 2 * median(c["alone"]),
            )
        )
    goals.append(held_goal(results, baseline))
    return goals


def median_batch_rate(c):
    """Bulk ingest's records/s by its median batch (which merges no segments)."""
    return c["notes"].get("LiveLog rows/s", throughput(c))


def bulk_ingest_rate(c):
    """Bulk ingest's records/s as the goal judges it: sustained (every batch, merges included)
    where the run has it, else by the median batch (runs before the sustained rate was noted)."""
    return c["notes"].get("LiveLog sustained rows/s", median_batch_rate(c))


def bulk_ingest_rates(c):
    """The judged rate, with the median batch's beside it when they differ."""
    median_rate = f"{fmt_number(median_batch_rate(c))} records/s"
    if "LiveLog sustained rows/s" not in c["notes"]:
        return median_rate
    return f"sustained {fmt_number(bulk_ingest_rate(c))} records/s (median batch {median_rate})"


def write_path_goals(results, baseline):
    """Issue 17: the write path."""
    goals = []

    def commit_page(r, size):
        return r.find("commit", COMMIT_PAGE_CASE, size)

    def real_store(r):
        """The case on the store of the real fixtures alone: the smallest size it ran at."""
        cases = [c for c in r.of("commit") if c["name"] == COMMIT_PAGE_CASE]
        return min(cases, key=lambda c: c["size"]) if cases else None

    text = (
        "durable page of 30 (15 new, 15 updated) ≥ 1.5x SQLite WAL `synchronous=FULL`, at the store "
        "of the real fixtures (about 27k records)"
    )
    now, before = real_store(results), real_store(baseline) if baseline is not None else None
    if now is None:
        measured, status = "no commit scenario in this run", "not measured"
    else:
        measured, status = f"{fmt_size(now['size'])} records: {vs_peer(now)}", verdict(ratio(now) >= 1.5)
    measured += f"; before: {vs_peer(before)}" if before is not None else "; before: not in the baseline"
    goals.append(Goal(17, text, measured, status))
    goals.append(
        checked(
            17, "the same at 1M records", results, baseline, commit_page, vs_peer, lambda c: ratio(c) >= 1.5
        )
    )
    goals.append(
        checked(
            17,
            "bulk ingest with every index, no fsync, batches of 10,000 ≥ 150,000 records/s (1M)",
            results,
            baseline,
            lambda r, size: r.find("query", INDEXED_INGEST_CASE, size),
            bulk_ingest_rates,
            lambda c: bulk_ingest_rate(c) >= 150_000,
        )
    )
    goals.append(
        checked(
            17,
            "durable commit of 1 record ≤ 2x the raw LMDB durable append",
            results,
            baseline,
            lambda r, size: r.find("ingest", "batch 1, durable"),
            lambda c: (
                f"LiveLog {fmt_duration(median(c))} vs raw {fmt_duration(median(c, 'peer'))}: "
                f"{fmt_number(1 / ratio(c))}x the raw time"
            ),
            lambda c: median(c) <= 2 * median(c, "peer"),
        )
    )

    def replay_rate(c):
        notes = c.get("notes", {})
        return notes.get("replay events/s", throughput(c))

    goals.append(
        checked(
            17,
            "replay with every index ≥ 300,000 events/s (1M records)",
            results,
            baseline,
            lambda r, size: replay_case(r, lambda n: n == REPLAY_CASE, size),
            lambda c: f"{fmt_number(replay_rate(c))} events/s over {fmt_size(c['size'])} events",
            lambda c: replay_rate(c) >= 300_000,
        )
    )

    def as_of_text(c):
        return f"{fmt_duration(median(c))} ({AS_OF_CASE.match(c['name'])['depth']}% of the log back)"

    goals.append(
        checked(
            17,
            "as-of seed query ≤ 100 ms at any depth: the slowest depth's p50 (1M records)",
            results,
            baseline,
            lambda r, size: worst_as_of(r, "seed query", size),
            as_of_text,
            lambda c: median(c) <= 0.1,
        )
    )
    goals.append(
        checked(
            17,
            "as-of top 20 by stars: the slowest depth's p50 (1M records)",
            results,
            baseline,
            lambda r, size: worst_as_of(r, "top 20 by stars", size),
            as_of_text,
            None,
            reported=True,
        )
    )
    goals.append(
        checked(
            17,
            "verify of the replay scenario's store ≤ 5 s (1M records)",
            results,
            baseline,
            lambda r, size: replay_case(r, lambda n: n == VERIFY_CASE, size),
            lambda c: f"{fmt_duration(median(c))} over {fmt_size(c['size'])} events",
            lambda c: median(c) <= 5,
        )
    )
    return goals


# ---------------------------------------------------------------------------------------------
# Every query case at 1M against the baseline


class Held:
    """One query case at 1M, before (the baseline) and now."""

    def __init__(self, name, before, now, own_goal):
        self.name, self.before, self.now, self.own_goal = name, before, now, own_goal

    @property
    def status(self):
        if self.now is None or ratio(self.now) is None:
            return "not measured"
        if self.before is None or ratio(self.before) is None:
            return "new"
        return "held" if ratio(self.now) >= (1 - HOLD_TOLERANCE) * ratio(self.before) else "fell"


def has_own_goal(comparison):
    """Whether an issue-16 goal of its own sets this case a higher mark than holding its ratio."""
    match = CONTAINS_CASE.match(comparison["name"])
    if match:
        selectivity = match["label"].split(",")[0].strip()
        return (
            match["dataset"] is None
            and not match["swift"]
            and match["peer"] == "FTS5"
            and selectivity in ("common", "medium")
        )
    return comparison["name"] in (BETWEEN_CASE, PREFIX_CASE)


def held_cases(results, baseline):
    """Every query comparison at 1M of the baseline or of this run, in the baseline's order (then
    this run's new cases), or [] when this run has no 1M query figures."""
    if baseline is None or not any(c["size"] == MILLION for c in results.of("query")):
        return []
    now = {c["name"]: c for c in results.of("query") if c["size"] == MILLION and c.get("peer")}
    before = {c["name"]: c for c in baseline.of("query") if c["size"] == MILLION and c.get("peer")}
    names = list(before) + [n for n in now if n not in before]
    return [
        Held(n, before.get(n), now.get(n), has_own_goal(now.get(n) or before.get(n))) for n in names
    ]


def held_goal(results, baseline):
    text = (
        f"every other query case keeps its ratio or better (1M; within {HOLD_TOLERANCE:.0%} for "
        "noise, see below)"
    )
    if baseline is None or not baseline.comparisons:
        return Goal(16, text, "no baseline", "not measured")
    rows = [h for h in held_cases(results, baseline) if not h.own_goal and h.status in ("held", "fell")]
    if not rows:
        return Goal(16, text, "this run has no query figures at 1M", "not measured")
    fell = [h for h in rows if h.status == "fell"]
    measured = f"{len(rows) - len(fell)} of {len(rows)} held"
    missing = [
        h for h in held_cases(results, baseline) if not h.own_goal and h.status == "not measured"
    ]
    if missing:
        measured += f", {len(missing)} of the baseline's not in this run"
    if fell:
        measured += "; fell: " + ", ".join(
            f"{h.name} {fmt_ratio(ratio(h.before))} → {fmt_ratio(ratio(h.now))}" for h in fell
        )
    return Goal(16, text, measured, verdict(not fell))


def all_goals(results, baseline=None):
    """Every issue's goals; issues 16 and 17 show the baseline's figure beside this run's."""
    return (
        ingest_goals(results)
        + query_goals(results)
        + changeset_goals(results)
        + live_goals(results)
        + replay_goals(results)
        + read_path_goals(results, baseline)
        + write_path_goals(results, baseline)
    )


# ---------------------------------------------------------------------------------------------
# Headline ratios (the report's top section and README's block)


class Headline:
    """One quoted ratio: what it compares, the ratio (or range), and the shorter label under which
    README quotes it (None: the report only)."""

    def __init__(self, label, ratios, readme=None):
        low, high = min(ratios), max(ratios)
        self.label = label
        self.text = (
            fmt_ratio(low) if fmt_ratio(low) == fmt_ratio(high) else f"{fmt_ratio(low)}–{fmt_ratio(high)}"
        )
        self.readme = readme


def headline(results):
    """The ratios worth quoting, each at the largest size this run reached for it."""
    lines = []
    generated = [(c, p) for c, p in results.contains_cases() if p["dataset"] is None and p["swift"]]
    if generated:
        size = max(c["size"] for c, _ in generated)
        for peer, engine in (("LIKE", "SQLite LIKE scan"), ("FTS5", "SQLite FTS5 trigram")):
            ratios = [ratio(c) for c, p in generated if c["size"] == size and p["peer"] == peer]
            if ratios:
                label = f"seed query (term + language, three selectivities), {short_size(size)} records, vs {engine}"
                lines.append(
                    Headline(label, ratios, readme=f"seed query vs {peer} ({short_size(size)} records)")
                )
    real = [(c, p) for c, p in results.contains_cases() if p["dataset"] and p["swift"]]
    for peer, engine in (("LIKE", "SQLite LIKE scan"), ("FTS5", "SQLite FTS5 trigram")):
        ratios = [ratio(c) for c, p in real if p["peer"] == peer]
        if ratios:
            label = f"the same on the {fmt_size(real[0][0]['size'])} real {real[0][1]['dataset']} records, vs {engine}"
            lines.append(Headline(label, ratios))
    sizes = results.generated_sizes("query")
    ingest = results.find("query", "indexed ingest, batch 10000, no-sync", sizes[-1]) if sizes else None
    if ingest and ratio(ingest):
        label = f"indexed ingest rows/s, {short_size(ingest['size'])} records, vs SQLite + FTS5 trigram"
        lines.append(Headline(label, [ratio(ingest)], readme="indexed ingest vs SQLite + FTS5"))
    for case, label in (
        ("durable", "durable ingest"),
        ("no-sync", "no-sync ingest"),
        ("durable, no indexes", "durable ingest into a collection without indexes"),
    ):
        raw = results.find("ingest", f"batch 10000, {case}")
        if raw and ratio(raw):
            lines.append(
                Headline(
                    f"{label}, batches of 10,000, vs raw LMDB append (no state, no indexes)",
                    [ratio(raw)],
                )
            )
    diff = results.find("changesets", "batch diff 100k: -10k +10k ~2000")
    if diff and ratio(diff):
        lines.append(
            Headline(
                "100,000-id diff vs the stdlib's difference + inferringMoves",
                [ratio(diff)],
                readme="100k-id diff vs the stdlib",
            )
        )
    sorted_cases = [
        c for c in results.of("changesets") if c["name"].startswith("sorted apply ") and c.get("peer")
    ]
    if sorted_cases:
        c = max(sorted_cases, key=lambda c: c["size"])
        lines.append(
            Headline(
                f"sorted result of {short_size(c['size'])} rows, 10 changes, vs re-sort + diff", [ratio(c)]
            )
        )
    live = results.find("live", "1000 live queries, 10 records per commit")
    if live and ratio(live):
        label = f"1,000 live queries after a 10-record commit, {short_size(live['size'])} records, vs re-run + diff"
        lines.append(Headline(label, [ratio(live)], readme="1,000 live queries vs re-run + diff"))
    return lines


# ---------------------------------------------------------------------------------------------
# Charts


def make_charts(results, directory):
    """Writes the charts this run has data for; returns {key: file name} of those written."""
    import matplotlib

    matplotlib.use("Agg")  # no display on the build machine
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    # Reproducible SVGs: no timestamp, fixed element ids, so regenerating unchanged data is no diff.
    matplotlib.rcParams["svg.hashsalt"] = "livelog-bench"
    matplotlib.rcParams["font.size"] = 9
    duration_axis = FuncFormatter(lambda v, _: fmt_duration_tick(v))
    count_axis = FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}")
    written = {}

    def log_axes(axis, y_format, x_ticks=None):
        """Log scales with ticks in the benchmark's units; the measured sizes themselves as x ticks,
        since a run has only a few and the default labels (2x10^4) hide them. Call after plotting."""
        axis.set_yscale("log")
        low, high = axis.get_ylim()
        # 1-2-5 steps crowd the axis beyond a few decades; then powers of ten only.
        steps = (1.0, 2.0, 5.0) if high / low <= 1e3 else (1.0,)
        axis.yaxis.set_major_locator(LogLocator(base=10, subs=steps))
        axis.yaxis.set_major_formatter(y_format)
        axis.yaxis.set_minor_formatter(NullFormatter())
        if x_ticks is not None:
            axis.set_xscale("log")
            axis.set_xticks(sorted(set(x_ticks)))
            axis.xaxis.set_major_formatter(count_axis)
            axis.xaxis.set_minor_formatter(NullFormatter())
        axis.grid(True, which="major", alpha=0.3)

    def save(figure, key):
        figure.tight_layout()
        figure.savefig(directory / CHARTS[key], format="svg", metadata={"Date": None})
        plt.close(figure)
        written[key] = CHARTS[key]

    colours = {"LiveLog": "#1f6feb", "LIKE": "#cf222e", "FTS5": "#bf8700", "peer": "#cf222e"}

    # 1. The seed query (term + language) by data size, one panel per selectivity.
    generated = [(c, p) for c, p in results.contains_cases() if p["swift"]]
    selectivities = list(dict.fromkeys(p["label"] for _, p in generated if p["dataset"] is None))
    if selectivities:
        figure, axes = plt.subplots(
            1, len(selectivities), figsize=(4 * len(selectivities), 3.6), sharey=True, squeeze=False
        )
        for axis, label in zip(axes[0], selectivities):
            key = label.split(",")[0]
            for dataset, marker_fill in ((None, None), ("real", "none")):
                rows = [
                    (c, p)
                    for c, p in generated
                    if p["label"].split(",")[0] == key and ((p["dataset"] is None) == (dataset is None))
                ]
                series = {"LiveLog": {}, "LIKE": {}, "FTS5": {}}
                for c, p in rows:
                    series["LiveLog"][c["size"]] = median(c)
                    series[p["peer"]][c["size"]] = median(c, "peer")
                for name, points in series.items():
                    if not points:
                        continue
                    xs = sorted(points)
                    title = {"LiveLog": "LiveLog", "LIKE": "SQLite LIKE", "FTS5": "SQLite FTS5 trigram"}[name]
                    axis.plot(
                        xs,
                        [points[x] for x in xs],
                        marker="o" if dataset is None else "s",
                        linestyle="-" if dataset is None else "none",
                        color=colours[name],
                        markerfacecolor=marker_fill or colours[name],
                        label=title if dataset is None else f"{title}, real repos-2022",
                    )
            log_axes(axis, duration_axis, [c["size"] for c, _ in generated])
            axis.set_title(f"'{label}' term + language")
            axis.set_xlabel("records")
        axes[0][0].set_ylabel("p50 latency (log)")
        axes[0][-1].legend(fontsize=7)
        figure.suptitle("Seed query: full_name CONTAINS[c] term AND language == 'Swift'")
        save(figure, "query")

    # 2. Ingest: indexed rows/s by data size beside SQLite + FTS5, and raw commits by batch size.
    indexed = [c for c in results.of("query") if c["name"].endswith("indexed ingest, batch 10000, no-sync")]
    batches = [(c, INGEST_CASE.match(c["name"])) for c in results.of("ingest")]
    batches = [(c, m) for c, m in batches if m]
    if indexed or batches:
        figure, axes = plt.subplots(1, 2, figsize=(9, 3.6), squeeze=False)
        left, right = axes[0]
        for real in (False, True):
            rows = sorted((c for c in indexed if has_dataset(c) == real), key=lambda c: c["size"])
            for side, name, colour in (
                ("ours", "LiveLog", colours["LiveLog"]),
                ("peer", "SQLite + FTS5 trigram", colours["peer"]),
            ):
                if rows:
                    left.plot(
                        [c["size"] for c in rows],
                        [throughput(c, side) for c in rows],
                        marker="s" if real else "o",
                        linestyle="none" if real else "-",
                        color=colour,
                        markerfacecolor="none" if real else colour,
                        label=f"{name}, real repos-2022" if real else name,
                    )
        left.set_title("Indexed ingest (batches of 10,000, no fsync)")
        left.set_xlabel("records")
        left.set_ylabel("rows/s (log)")
        for durability, style in (("durable", "-"), ("no-sync", "--"), ("durable, no indexes", ":")):
            rows = sorted(
                ((c, m) for c, m in batches if m["durability"] == durability),
                key=lambda cm: int(cm[1]["batch"]),
            )
            if rows:
                xs = [int(m["batch"]) for _, m in rows]
                right.plot(
                    xs,
                    [throughput(c) for c, _ in rows],
                    marker="o",
                    linestyle=style,
                    color=colours["LiveLog"],
                    label=f"LiveLog, {durability}",
                )
                if "no indexes" in durability:
                    continue  # the same raw appends as the durable line's
                right.plot(
                    xs,
                    [throughput(c, "peer") for c, _ in rows],
                    marker="o",
                    linestyle=style,
                    color="#57606a",
                    label=f"raw LMDB append, {durability}",
                )
        right.set_title("Commit throughput by batch size")
        right.set_xlabel("records per commit")
        right.set_ylabel("records/s (log)")
        log_axes(left, count_axis, [c["size"] for c in indexed])
        log_axes(right, count_axis, [int(m["batch"]) for _, m in batches])
        for axis in (left, right):
            if axis.has_data():
                axis.legend(fontsize=7)
        save(figure, "ingest")

    # 3. Live queries: latency by number of live queries, at the largest data size of the run.
    live = [(c, LIVE_CASE.match(c["name"])) for c in results.of("live")]
    live = [(c, m) for c, m in live if m]
    if live:
        size = max(c["size"] for c, _ in live)
        live = [(c, m) for c, m in live if c["size"] == size]
        figure, axis = plt.subplots(figsize=(6, 3.8))
        greys = ["#1f6feb", "#8250df", "#0a7b83"]
        for index, changed in enumerate(sorted({int(m["changed"]) for _, m in live})):
            rows = sorted(
                ((c, m) for c, m in live if int(m["changed"]) == changed),
                key=lambda cm: int(cm[1]["queries"]),
            )
            xs = [int(m["queries"]) for _, m in rows]
            colour = greys[index % len(greys)]
            axis.plot(
                xs,
                [median(c) for c, _ in rows],
                marker="o",
                color=colour,
                label=f"LiveLog, {changed} changed",
            )
            axis.plot(
                xs,
                [median(c, "peer") for c, _ in rows],
                marker="x",
                linestyle="--",
                color=colour,
                label=f"re-run + diff, {changed} changed",
            )
        log_axes(axis, duration_axis, [int(m["queries"]) for _, m in live])
        axis.set_xlabel("live queries")
        axis.set_ylabel("commit to all changesets, p50 (log)")
        axis.legend(fontsize=7)
        axis.set_title(f"Live queries over {fmt_size(size)} records")
        save(figure, "live")

    # 4. Changesets: each case with a peer, LiveLog's bar beside the peer's, on a log scale.
    cases = [c for c in results.of("changesets") if c.get("peer")]
    if cases:
        figure, axis = plt.subplots(figsize=(7, 3.8))
        xs = range(len(cases))
        axis.bar(
            [x - 0.2 for x in xs],
            [median(c) for c in cases],
            width=0.4,
            color=colours["LiveLog"],
            label="LiveLog",
        )
        axis.bar(
            [x + 0.2 for x in xs],
            [median(c, "peer") for c in cases],
            width=0.4,
            color="#57606a",
            label="peer (stdlib diff / re-sort + diff)",
        )
        for x, c in zip(xs, cases):
            axis.annotate(
                fmt_ratio(ratio(c)), (x + 0.2, median(c, "peer")), ha="center", va="bottom", fontsize=8
            )
        log_axes(axis, duration_axis)
        axis.set_xticks(list(xs))
        axis.set_xticklabels(
            [c["name"].replace(": ", ":\n").replace(" rows, ", " rows,\n") for c in cases], fontsize=7
        )
        axis.set_ylabel("p50 per operation (log)")
        axis.set_title("Changesets beside their peers (label: how many times faster)")
        axis.legend(fontsize=7)
        save(figure, "changesets")

    # 5. How throughput grows with the store: indexed ingest (query scenario) and replay (replay
    # scenario) by records in the store, generated data only, each beside its peer.
    indexed = sorted(
        (c for c in results.of("query") if c["name"] == INDEXED_INGEST_CASE), key=lambda c: c["size"]
    )
    replays = sorted(
        (c for c in results.of("replay") if c["name"] == REPLAY_CASE),
        key=lambda c: records_of(c) or c["size"],
    )
    if indexed or replays:
        figure, axes = plt.subplots(1, 2, figsize=(9, 3.6), squeeze=False)
        left, right = axes[0]
        for side, name, colour in (
            ("ours", "LiveLog", colours["LiveLog"]),
            ("peer", "SQLite + FTS5 trigram", colours["peer"]),
        ):
            if indexed:
                left.plot(
                    [c["size"] for c in indexed],
                    [throughput(c, side) for c in indexed],
                    marker="o",
                    color=colour,
                    label=name,
                )
        left.set_title("Indexed ingest (batches of 10,000, no fsync)")
        left.set_ylabel("records/s (log)")
        # A replay case is sized in events; its store's records are the x that matches the left.
        xs = [records_of(c) or c["size"] for c in replays]
        for side, name, colour in (
            ("ours", "LiveLog replay, every index", colours["LiveLog"]),
            ("peer", "LiveLog first-time ingest", "#57606a"),
        ):
            if replays and all(c.get(side) for c in replays):
                right.plot(xs, [throughput(c, side) for c in replays], marker="o", color=colour, label=name)
        right.set_title("Replay with every index")
        right.set_ylabel("events/s (log)")
        log_axes(left, count_axis, [c["size"] for c in indexed])
        log_axes(right, count_axis, xs)
        for axis in (left, right):
            axis.set_xlabel("records in the store (log)")
            if axis.has_data():
                axis.legend(fontsize=7)
        figure.suptitle("Throughput by store size")
        save(figure, "scaling")
    return written


# ---------------------------------------------------------------------------------------------
# The Markdown report


def table(rows, header, align):
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(str(cell).replace("|", "\\|") for cell in row) + " |" for row in rows]
    return lines


def scenario_table(results, scenario):
    """Cases grouped by name (first appearance) and then by size, so that sizes sit together."""
    comparisons = results.of(scenario)
    order = {name: index for index, name in enumerate(dict.fromkeys(c["name"] for c in comparisons))}
    comparisons = sorted(comparisons, key=lambda c: (has_dataset(c), order[c["name"]], c["size"]))
    rows = []
    for c in comparisons:
        peer = c.get("peer")
        notes = ", ".join(f"{k} {fmt_note(v)}" for k, v in sorted(c.get("notes", {}).items()))
        rows.append(
            [
                c["name"].replace("*", "\\*"),
                fmt_size(c["size"]),
                fmt_duration(median(c)) + fmt_spread(c["ours"]["stats"]),
                fmt_duration(c["ours"]["stats"]["p99"]),
                fmt_duration(median(c, "peer")) + fmt_spread(peer["stats"]) if peer else "",
                f"**{fmt_ratio(ratio(c))}**" if peer else "",
                peer["engine"] if peer else "",
                notes,
            ]
        )
    header = ["case", "records", "LiveLog p50", "p99", "peer p50", "ratio", "peer", "notes"]
    return table(rows, header, ["---", "---:", "---:", "---:", "---:", "---:", "---", "---"])


def noise_summary(results):
    """The median spread over all figures: how noisy the machine was during this run."""
    spreads = sorted(
        figure["stats"]["spread"]
        for c in results.comparisons
        for figure in (c["ours"], c.get("peer"))
        if figure and figure["stats"]["samples"] >= 3
    )
    if not spreads:
        return None
    return spreads[len(spreads) // 2], spreads[-1]


def issue_list(goals):
    """The issues that set goals, as the report names them: 2–6, 16 and 17."""
    runs = []
    for n in sorted({g.issue for g in goals}):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    names = []
    for r in runs:
        names += [f"{r[0]}–{r[-1]}"] if len(r) > 2 else [str(n) for n in r]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def baseline_section(results, baseline, baseline_path, link):
    """Every query case at 1M against the baseline: ratio before and now, and whether it held."""
    lines = ["", "## Against the baseline", ""]
    if baseline is None:
        lines += [
            f"No baseline: `{baseline_path.name}` was not found. `scripts/bench-report.py "
            "--add-to-baseline RUN.json` makes one from a run of the code to compare with.",
        ]
        return lines
    meta = baseline.metadata
    description = meta.get("description") or f"a run of commit `{meta.get('commit', 'unknown')}`"
    dates = sorted({m["date"][:10] for m in meta.get("sources", [meta]) if m.get("date")})
    scenarios = sorted({c["scenario"] for c in baseline.comparisons})
    lines += [
        f"The baseline is {description}: its figures are in [{baseline_path.name}]({link(baseline_path)}) "
        f"(scenarios {', '.join(scenarios) or 'none'}"
        f"{'; measured ' + ', '.join(dates) if dates else ''}). The goals of issues "
        "16 and 17 above show its figure as *before*.",
    ]
    # Ratios travel between machines better than times, but not perfectly: say when they differ.
    machine = lambda m: (m.get("cores"), m.get("cpu"), m.get("memory_bytes"))
    sources = meta.get("sources", [meta])
    if all(machine(m) == machine(results.metadata) for m in sources):
        lines[-1] += " It ran on a machine of the same kind as this run."
    else:
        lines[-1] += (
            " It ran on a different machine from this run (cores, processor or memory differ), so "
            "even its ratios compare with care."
        )
    lines += [""]
    rows = held_cases(results, baseline)
    if not rows:
        lines += [
            "This run has no query figures at 1M records, so no case is compared with the baseline "
            "here; `make bench` measures them.",
        ]
    else:
        counts = {s: sum(1 for h in rows if h.status == s) for s in ("held", "fell", "new", "not measured")}
        lines += [
            "Every query case at 1M records: its ratio (peer p50 / LiveLog p50) in the baseline and in "
            f"this run. A case **held** when this run's ratio is at least {1 - HOLD_TOLERANCE:.0%} of "
            f"the baseline's: the {HOLD_TOLERANCE:.0%} allows for the noise of a machine shared with "
            "other builds (see each figure's spread in the tables below); it **fell** otherwise. "
            "*New* cases have no baseline figure. Cases marked *own goal* have a goal of their own "
            "above (issue 16) and are not counted in its \"every other query case\" goal.",
            "",
            f"Summary: {counts['held']} held, {counts['fell']} fell, {counts['new']} new, "
            f"{counts['not measured']} not measured in this run.",
            "",
        ]
        table_rows = []
        for h in rows:
            either = h.now or h.before
            name = h.name.replace("*", "\\*") + (" (own goal)" if h.own_goal else "")
            table_rows.append(
                [
                    name,
                    either["peer"]["engine"],
                    f"{fmt_ratio(ratio(h.before)) if h.before else '–'} → "
                    f"{fmt_ratio(ratio(h.now)) if h.now else '–'}",
                    f"{fmt_duration(median(h.before)) if h.before else '–'} → "
                    f"{fmt_duration(median(h.now)) if h.now else '–'}",
                    "**fell**" if h.status == "fell" else h.status,
                ]
            )
        lines += table(
            table_rows,
            ["case", "peer", "ratio before → now", "LiveLog p50 before → now", "status"],
            ["---", "---", "---:", "---:", "---"],
        )
    commit = meta.get("commit", "COMMIT")
    lines += [
        "",
        "To measure the baseline again, run its scenarios on its commit and put them in the file "
        "(remove the file first to start afresh; a case measured again replaces the one there):",
        "",
        "```sh",
        f"git worktree add /tmp/livelog-baseline {commit}",
        "cd /tmp/livelog-baseline/Benchmarks && swift build -c release",
        ".build/release/livelog-bench --scenario query --sizes 1000000 --json /tmp/query-before.json",
        ".build/release/livelog-bench --scenario ingest --scenario commit --scenario replay --sizes 1000000 \\",
        "  --json /tmp/write-before.json",
        "cd - && scripts/bench-report.py --add-to-baseline /tmp/query-before.json /tmp/write-before.json \\",
        f"  --describe \"{description}\" --commit {commit}",
        "```",
    ]
    return lines


def render(results, source, output, charts, chart_note, baseline=None, baseline_path=None):
    meta = results.metadata

    def link(path):
        """A link from the report to `path`, relative so that it works on GitHub and in a clone."""
        return Path(os.path.relpath(path, output.parent)).as_posix()

    memory = meta.get("memory_bytes")
    memory = f"{int(memory) / 2**30:.0f} GiB" if memory and memory.isdigit() else "unknown"
    quick = meta.get("mode") == "quick"
    lines = [
        "# Benchmarks",
        "",
        f"<!-- Generated by scripts/bench-report.py from {link(source)}; do not edit by hand. -->",
        "",
        "LiveLog beside its peers, each pair measured in the same process on the same data, one "
        "right after the other. `make bench` (10k, 100k and 1M records) or `make bench-quick` "
        "(10k records, about two minutes) runs every scenario in release mode and regenerates this "
        "page, its charts and the headline in README.md from the JSON it writes "
        f"([{source.name}]({link(source)})).",
        "",
    ]
    if quick:
        lines += [
            "> **This is a quick run** (10,000 generated records, fewer repetitions). Goals stated at 1M "
            "records read *not measured* here; `make bench` measures them.",
            "",
        ]
    lines += table(
        [
            ["date", meta.get("date", "unknown")],
            ["commit", f"`{meta.get('commit', 'unknown')}`"],
            ["toolchain", meta.get("toolchain", "unknown")],
            [
                "mode",
                f"{meta.get('mode', 'unknown')} (sizes: {', '.join(short_size(s) for s in results.generated_sizes('query')) or '–'})",
            ],
            [
                "machine",
                f"{meta.get('cores', '?')} cores{', ' + meta['cpu'] if meta.get('cpu') else ''}, {memory} memory, {meta.get('os', 'unknown OS')}",
            ],
        ],
        ["run", ""],
        ["---", "---"],
    )
    noise = noise_summary(results)
    lines += [
        "",
        f"**Read the ratios, not the absolute times.** The machine has {meta.get('cores', '?')} CPU cores "
        "shared with other engineers' builds and tests, so timings are noisy and absolute times are "
        "indicative only. Both sides of a comparison run back to back on the same data in the same "
        "process, so the noise largely cancels in their ratio (peer p50 / LiveLog p50; above 1, "
        "LiveLog is that many times faster), which is the headline figure. A query case's engines "
        "take turns, a fifth of each one's samples at a time (first and last by turns), so that a "
        "stretch of other work falls on every side alike; and a fast query runs until its timed "
        "runs add up to a quarter of a second (up to 20,000 runs), since its 50 runs alone would "
        "take a millisecond, which one such stretch covers whole. (Before 2026-12-05 each engine's "
        "runs came in one block, 50 at most: the same build's medians then moved by up to twice "
        "between runs.)",
    ]
    if noise:
        lines += [
            f"The `±` beside each median is its spread (median absolute deviation over the median); over this "
            f"run's figures the median spread was {noise[0] * 100:.0f}% and the largest {noise[1] * 100:.0f}%.",
        ]
    lines += ["", "## Headline", ""]
    lines += [
        "Peer p50 / LiveLog p50 at the largest size this run reached (above 1, LiveLog is that many "
        "times faster):",
        "",
    ]
    lines += [f"- {h.label}: **{h.text}**" for h in headline(results)] or ["No comparisons in this run."]

    goals = all_goals(results, baseline)
    counts = {
        s: sum(1 for g in goals if g.status == s) for s in ("met", "missed", "not measured", "reported")
    }
    lines += [
        "",
        "## Goals",
        "",
        f"Each goal of issues {issue_list(goals)} against this run's figures. Goals are stated at 1M "
        "records unless the goal says otherwise; a figure from a smaller run is shown for orientation "
        "only and the goal reads *not measured*. The goals of issues 16 and 17 also show the "
        "baseline's figure (*before*; see [Against the baseline](#against-the-baseline)).",
        f"Summary: {counts['met']} met, {counts['missed']} missed, {counts['not measured']} not measured"
        f"{', ' + str(counts['reported']) + ' reported without a threshold' if counts['reported'] else ''}.",
        "",
    ]
    lines += table(
        [
            [f"#{g.issue}", g.goal, g.measured, "**missed**" if g.status == "missed" else g.status]
            for g in goals
        ],
        ["issue", "goal", "measured", "status"],
        ["---", "---", "---", "---"],
    )
    lines += baseline_section(
        results, baseline, baseline_path or chart_dir_path(output) / "baseline.json", link
    )

    lines += [
        "",
        "## Data",
        "",
        "The benchmark data are generated deterministically (SplitMix64 from fixed seeds: every run, "
        "and both engines of a comparison, see the same records) and shaped like `repos-2022.csv`, "
        "the 23,291 real GitHub search results in `Tests/Fixtures/github`: each generated repository "
        "takes its owner, name, language, stars, forks, topics and dates from independent real "
        "records and a real description from the API fixtures, and one name in four gets a second "
        "real name token joined with `-`. So the language mix, the star distribution, the vocabulary "
        "and about the name lengths are the real data's, while the combinations are new.",
    ]
    real = sorted({p["dataset"] for _, p in results.contains_cases() if p["dataset"]})
    if real:
        size = next(c["size"] for c, p in results.contains_cases() if p["dataset"])
        lines += [
            "",
            f"The query scenario also runs on real records: its cases prefixed `{real[0]}:` use the "
            f"{fmt_size(size)} repositories of `repos-2022.csv` themselves, beside the same SQLite LIKE "
            "and FTS5 peers, in the same run.",
        ]
    else:
        lines += [
            "",
            "This run did not include the query scenario's cases on the real `repos-2022.csv` records.",
        ]

    lines += ["", "## Charts", ""]
    if charts:
        captions = {
            "query": "Seed query latency by data size (log scales), LiveLog beside SQLite's LIKE scan and FTS5 trigram index; hollow squares are the real repos-2022 records.",
            "ingest": "Ingest throughput: indexed ingest by data size beside SQLite + FTS5, and commit throughput by batch size beside raw LMDB appends (log scales).",
            "live": "Live-query latency by number of live queries, beside re-running every query and diffing its whole result (log scales).",
            "changesets": "Changesets beside the standard library's diff and re-sort + diff (log scale).",
            "scaling": "Throughput by store size (log scales): indexed ingest records/s beside SQLite + FTS5, and replay events/s with every index beside first-time ingest of the same events.",
        }
        for key, name in charts.items():
            lines += [
                f"![{captions[key]}]({link(chart_dir_path(output) / name)})",
                "",
                f"*{captions[key]}*",
                "",
            ]
        if quick:
            lines += ["With a quick run's single data size, the size axes hold one point per line.", ""]
    else:
        lines += [f"No charts in this report: {chart_note}", ""]

    lines += ["## Results by scenario", ""]
    lines += [
        "Medians (p50) and 99th percentiles per operation; `±` is the spread; ratio = peer p50 / "
        "LiveLog p50. Notes are the scenario's own counts and rates (rows/s, bytes per record, "
        "result rows of each engine, moves).",
        "",
    ]
    for scenario in results.scenarios():
        title, intro = SCENARIOS.get(scenario, (scenario, ""))
        lines += [f"### {title}", ""]
        if intro:
            lines += [intro, ""]
        lines += scenario_table(results, scenario) + [""]
    for scenario in (s for s in SCENARIOS if s not in results.scenarios()):
        lines += [f"### {SCENARIOS[scenario][0]}", "", "Not measured in this run.", ""]

    lines += [
        "## How to run",
        "",
        "```sh",
        "make bench          # 10k, 100k and 1M records: Docs/benchmarks/results.json",
        "make bench-quick    # 10k records, about two minutes: Docs/benchmarks/results-quick.json",
        "scripts/bench-report.py Docs/benchmarks/results.json   # regenerate this page from a run",
        "scripts/bench-report.py --add-to-baseline RUN.json     # put a run's cases into baseline.json",
        "cd Benchmarks && swift build -c release && .build/release/livelog-bench --scenario query --sizes 100000",
        "```",
        "",
        "### How it runs",
        "",
        "When several scenarios are selected (as `make bench` does: all of them), each runs in a process of its own: `livelog-bench` starts itself again with `--in-process --scenario NAME --json FILE --scratch DIR` (and `--quick`, `--sizes` as given) for each and gathers their results; `--in-process` runs them all in one process, as before, and a single selected scenario runs in the process itself. In one process, a scenario measured slower after the others than alone: replay at 1M records (1,248,734 events), run right after the live queries, took 5.17–5.67 s in five of six runs (the sixth, under a profiler, 4.55 s); run alone, 4.19–4.72 s in five of six runs (the sixth, under a profiler, 5.02 s), the same build on the same machine within one hour. Why was not pinned down: not the kernel's unwritten pages (a `sync` before the replay changed nothing), nor malloc's moving threshold for large blocks (fixed by `GLIBC_TUNABLES`, nothing changed).",
        "",
        "After each child the parent removes the child's scratch directory, and stops (SIGKILL) any process still running whose arguments name a path under it (on Linux, found through `/proc`): the `nats-server`s the replication scenario starts keep their files there, and outlive a child that crashed. A child that crashed, failed, or left a process running makes the run exit 1, with the other scenarios' results kept.",
        "",
    ]
    return "\n".join(lines)


def chart_dir_path(output):
    return output.parent / "benchmarks"


def readme_block(results, report, baseline=None):
    """README's short headline: a few ratios of this run, the goal count, and the link to the report."""
    meta = results.metadata
    goals = all_goals(results, baseline)
    met = sum(1 for g in goals if g.status == "met")
    missed = sum(1 for g in goals if g.status == "missed")
    parts = [f"{h.readme} {h.text}" for h in headline(results) if h.readme]
    return (
        f"Latest benchmark ({meta.get('mode', '?')} run, commit `{meta.get('commit', '?')}`; peer time / "
        f"LiveLog time): " + ", ".join(parts) + f". Goals: {met} met, {missed} missed, "
        f"{len(goals) - met - missed} not measured or without a threshold ([{report}]({report}))."
    )


def update_readme(path, text):
    content = path.read_text()
    begin, end = content.find(README_BEGIN), content.find(README_END)
    if begin < 0 or end < begin:
        print(f"note: {path} has no {README_BEGIN} … {README_END} block; left unchanged", file=sys.stderr)
        return
    updated = content[: begin + len(README_BEGIN)] + "\n" + text + "\n" + content[end:]
    if updated != content:
        path.write_text(updated)


def add_to_baseline(path, runs, description, commit):
    """Copies the comparisons of `runs` into the baseline at `path` (made when missing); a case
    (scenario, name, size) measured again replaces the one there. Each run's metadata is kept under
    `sources`, so that the file says when and where its figures were measured."""
    document = json.loads(path.read_text()) if path.exists() else {"metadata": {}, "comparisons": []}
    metadata = document.setdefault("metadata", {})
    comparisons = document.setdefault("comparisons", [])
    for run in runs:
        added = json.loads(run.read_text())
        keys = {(c["scenario"], c["name"], c["size"]) for c in added.get("comparisons", [])}
        comparisons[:] = [c for c in comparisons if (c["scenario"], c["name"], c["size"]) not in keys]
        comparisons.extend(added.get("comparisons", []))
        source = dict(added.get("metadata", {}))
        source["scenarios"] = sorted({c["scenario"] for c in added.get("comparisons", [])})
        sources = metadata.setdefault("sources", [])
        if source not in sources:  # the same run added again
            sources.append(source)
        print(f"added {len(keys)} cases of {run.name} to {os.path.relpath(path)}")
    if description:
        metadata["description"] = description
    if commit:
        metadata["commit"] = commit
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="?", type=Path, help="the JSON of a livelog-bench run")
    parser.add_argument("--output", type=Path, default=ROOT / "Docs" / "Benchmarks.md")
    parser.add_argument("--readme", type=Path, default=ROOT / "README.md")
    parser.add_argument(
        "--baseline",
        type=Path,
        default=ROOT / "Docs" / "benchmarks" / "baseline.json",
        help="the run to compare with (issues 16 and 17); left out when the file does not exist",
    )
    parser.add_argument("--no-charts", action="store_true", help="write the report without charts")
    parser.add_argument("--no-readme", action="store_true", help="leave README.md alone")
    parser.add_argument(
        "--add-to-baseline",
        nargs="+",
        type=Path,
        metavar="RUN",
        help="copy these runs' comparisons into the baseline file and write no report",
    )
    parser.add_argument("--describe", help="with --add-to-baseline: what the baseline measured")
    parser.add_argument("--commit", help="with --add-to-baseline: the baseline's commit")
    arguments = parser.parse_args()

    baseline_path = arguments.baseline.resolve()
    if arguments.add_to_baseline:
        add_to_baseline(baseline_path, arguments.add_to_baseline, arguments.describe, arguments.commit)
        return

    source = arguments.results
    if source is None:
        # The full run is the reference; a quick run only stands in until one exists.
        candidates = [ROOT / "Docs" / "benchmarks" / n for n in ("results.json", "results-quick.json")]
        source = next((c for c in candidates if c.exists()), None)
        if source is None:
            sys.exit("no results: run `make bench` or `make bench-quick`, or name a JSON file")
    source = source.resolve()
    output = arguments.output.resolve()
    results = Results(json.loads(source.read_text()))
    baseline = Results(json.loads(baseline_path.read_text())) if baseline_path.exists() else None

    chart_directory = chart_dir_path(output)
    chart_directory.mkdir(parents=True, exist_ok=True)
    charts, note = {}, ""
    if arguments.no_charts:
        note = "they were turned off (`--no-charts`)."
    else:
        try:
            charts = make_charts(results, chart_directory)
        except ImportError:
            note = (
                "matplotlib is not installed. Install it with `python3 -m pip install matplotlib` "
                "(or `sudo apt-get install -y python3-matplotlib`) and run `scripts/bench-report.py` again."
            )
            print(f"warning: no charts: {note}", file=sys.stderr)
    # Charts of an earlier run must not sit beside a report they no longer match.
    for key, name in CHARTS.items():
        if key not in charts and (chart_directory / name).exists():
            (chart_directory / name).unlink()
    if not charts and not note:
        note = "this run has no data for them."

    output.write_text(render(results, source, output, charts, note, baseline, baseline_path))
    print(f"wrote {os.path.relpath(output)}" + (f" and {len(charts)} charts" if charts else " (no charts)"))
    if not arguments.no_readme:
        readme = arguments.readme.resolve()
        report = Path(os.path.relpath(output, readme.parent)).as_posix()
        update_readme(readme, readme_block(results, report, baseline))


if __name__ == "__main__":
    main()
