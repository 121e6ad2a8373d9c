#!/usr/bin/env python3
"""Write Tests/Fixtures/apps/ from the change stream of dkhamsing/open-source-ios-apps.

usage: apps-fixtures.py CHANGES_DIR OUT_DIR

CHANGES_DIR holds the stream as part-NN.ndjson: one line per change of the list's contents.json,
`{ts, commit, op, key, record}` for snapshot and insert, `{..., op: "update" or "rename", key,
old_key?, changes: {field: [old, new]}}`, `{..., op: "delete", key, old}`. The stream is replayed
up to the last commit before CUTOFF_COMMIT; that state is apps.ndjson. The commits from
CUTOFF_COMMIT on become the mutations of changes-1.ndjson (that commit: the list's bulk star
update of 2026-07-20) and changes-2.ndjson (every later commit to the end of the stream), one
upsert per changed app and `{"delete": KEY}` per removed one; a rename (the same app under a new
URL) is a delete of the old key and an upsert of the new one. The same inputs give the same bytes.
"""

import json
import re
import sys
from pathlib import Path

CUTOFF_COMMIT = "b5e945ddaa21408221bec487e429d9b548915118"


def record_of(key, entry):
    """The fixture's form of one app of the list: the fields the schema declares."""
    record = {"url": key, "title": entry.get("title")}
    for name in ("description", "stars", "license"):
        if entry.get(name) is not None:
            record[name] = entry[name]
    if entry.get("tags"):
        record["tags"] = entry["tags"]
    if entry.get("category-ids"):
        record["categories"] = entry["category-ids"]
    updated = iso_date(entry.get("updated"))
    if updated:
        record["updated"] = updated
    return record


def iso_date(text):
    """ "2026-07-20 11:48:32 UTC" (and the list's few hand-written "2024-12-4 7:16 UTC") as ISO
    8601; None for anything else."""
    match = re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2}) (\d{1,2}):(\d{2})(?::(\d{2}))? UTC", text or "")
    if not match:
        return None
    year, month, day, hour, minute, second = (int(part or 0) for part in match.groups())
    return f"{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}Z"


def apply(state, change):
    op = change["op"]
    key = change["key"]
    if op in ("snapshot", "insert"):
        state[key] = dict(change["record"])
    elif op == "delete":
        state.pop(key, None)
    elif op in ("update", "rename"):
        old_key = change.get("old_key", key)
        entry = dict(state.pop(old_key, {}))
        for field, (_, new) in change["changes"].items():
            if new is None:
                entry.pop(field, None)
            else:
                entry[field] = new
        state[key] = entry
    else:
        raise SystemExit(f"unknown op {op!r} in commit {change['commit']}")


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    changes_dir, out_dir = Path(sys.argv[1]), Path(sys.argv[2])
    stream = []
    for part in sorted(changes_dir.glob("part-*.ndjson")):
        with part.open(encoding="utf-8") as lines:
            stream.extend(json.loads(line) for line in lines if line.strip())
    cut = next((i for i, c in enumerate(stream) if c["commit"] == CUTOFF_COMMIT), None)
    if cut is None:
        raise SystemExit(f"commit {CUTOFF_COMMIT} is not in the stream")

    state = {}
    for change in stream[:cut]:
        apply(state, change)
    out_dir.mkdir(parents=True, exist_ok=True)
    with (out_dir / "apps.ndjson").open("w", encoding="utf-8") as out:
        for key in sorted(state):
            out.write(json.dumps(record_of(key, state[key]), ensure_ascii=False) + "\n")

    batches = [[c for c in stream[cut:] if c["commit"] == CUTOFF_COMMIT],
               [c for c in stream[cut:] if c["commit"] != CUTOFF_COMMIT]]
    for number, batch in enumerate(batches, start=1):
        touched, removed = [], []
        for change in batch:
            if change["op"] == "delete" or change["op"] == "rename":
                gone = change.get("old_key", change["key"])
                if gone not in removed:
                    removed.append(gone)
            apply(state, change)
            if change["op"] != "delete" and change["key"] not in touched:
                touched.append(change["key"])
        with (out_dir / f"changes-{number}.ndjson").open("w", encoding="utf-8") as out:
            for key in removed:
                if key not in state:
                    out.write(json.dumps({"delete": key}) + "\n")
            for key in touched:
                if key in state:
                    out.write(json.dumps(record_of(key, state[key]), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
