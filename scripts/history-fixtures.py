#!/usr/bin/env python3
"""Derives the change histories of the local GitHub search service (scripts/github-service) from
two public data sets, into Tests/Fixtures/github/history/ (its README describes the files).

usage: history-fixtures.py RANKING_DIR IOS_CHANGES_DIR [FIXTURES_DIR]

RANKING_DIR holds EvanLi/Github-Ranking's daily files, github-ranking-YYYY-MM-DD.csv; the last run
of consecutive days is used (2026-08-08 to 2026-08-22 for the shipped files). IOS_CHANGES_DIR
holds part-NN.ndjson, the change stream derived from the git history of dkhamsing/open-source-ios-
apps' contents.json; its last 15 calendar months are used. FIXTURES_DIR is Tests/Fixtures/github
(the default): its repos-2022.csv and api-repos/ give real ids to the repositories they share with
the histories. The same inputs always give the same bytes.
"""

import csv
import datetime
import glob
import hashlib
import json
import os
import re
import sys

# The ranking lists kept: the two overall lists, the languages the search app offers, and those
# most of the shipped repositories are written in. All 36 lists would make the files five times
# as large.
KEPT_LISTS = {"top-100-stars", "top-100-forks", "Swift", "Objective-C", "JavaScript", "Python", "TypeScript"}
IOS_MONTHS = 15

# GitHub's repository ids are sequential and about 1.2 billion in 2026; ids from 2^40 cannot meet
# a real one for centuries.
SYNTHETIC_BASE = 1 << 40


class History:
    """Steps (day or month labels), and per repository (keyed by its lower-cased first name):
    its first fields, its stars and forks at each step (None: absent) and its edits."""

    def __init__(self, steps):
        self.steps = steps
        self.order = []
        self.first = {}
        self.stars = {}
        self.forks = None
        self.edits = []  # (step index, identity, field, value)

    def observe(self, step, identity, fields, stars, forks=None):
        if identity not in self.first:
            self.order.append(identity)
            self.first[identity] = fields
            self.stars[identity] = [None] * len(self.steps)
            if self.forks is not None:
                self.forks[identity] = [None] * len(self.steps)
        self.stars[identity][step] = stars
        if self.forks is not None:
            self.forks[identity][step] = forks


# The ranking

def ranking_days(directory):
    """The files of the last run of consecutive days (the directory also holds yearly files)."""
    files = sorted(glob.glob(os.path.join(directory, "github-ranking-????-??-??.csv")))
    dates = [datetime.date.fromisoformat(re.search(r"(\d{4}-\d{2}-\d{2})\.csv$", f).group(1)) for f in files]
    start = len(dates) - 1
    while start > 0 and (dates[start] - dates[start - 1]).days == 1:
        start -= 1
    if len(dates) - start < 2:
        sys.exit(f"error: {directory} holds no two daily ranking files of consecutive days")
    return [date.isoformat() for date in dates[start:]], files[start:]


def read_day(path):
    """Every repository of one day, by its lower-cased owner/name (GitHub's names ignore case,
    and the lists do not always agree on it), with its name as written and the lists it is on."""
    rows = {}
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            name = row["repo_url"].removeprefix("https://github.com/")
            entry = rows.setdefault(name.lower(), dict(row, name=name, lists=set()))
            entry["lists"].add(row["item"])
    return rows


def renames(previous, current):
    """(old, new) pairs of one day: a repository that left and one that arrived with the same
    name without owner or the same description, and stars within 1%: a rename or a transfer."""
    pairs = []
    for old in (name for name in previous if name not in current):
        for new in (name for name in current if name not in previous):
            before, after = previous[old], current[new]
            same_name = old.split("/")[1] == new.split("/")[1]
            same_text = before["description"] and before["description"] == after["description"]
            stars = int(before["stars"]), int(after["stars"])
            if (same_name or same_text) and abs(stars[0] - stars[1]) <= max(stars) // 100:
                pairs.append((old, new))
    return pairs


def ranking_history(directory):
    days, files = ranking_days(directory)
    snapshots = [read_day(path) for path in files]
    identity_of, renamed = {}, []
    for index, snapshot in enumerate(snapshots):
        if index > 0:
            for old, new in renames(snapshots[index - 1], snapshot):
                identity_of[new] = identity_of.get(old, old)
                renamed.append((index, identity_of[new], snapshot[new]["name"]))
        for name in snapshot:
            identity_of.setdefault(name, name)
    renamed_identities = {identity for _, identity, _ in renamed}
    history = History(days)
    history.forks = {}
    for index, snapshot in enumerate(snapshots):
        for name, row in snapshot.items():
            identity = identity_of[name]
            if row["lists"] & KEPT_LISTS or identity in renamed_identities:
                fields = {
                    "full_name": row["name"], "language": row["language"], "description": row["description"],
                    "open_issues": row["issues"], "pushed_at": row["last_commit"],
                }
                history.observe(index, identity, fields, int(row["stars"]), int(row["forks"]))
                if index > 0 and identity_of.get(name) == identity:
                    before = next((r for n, r in snapshots[index - 1].items() if identity_of[n] == identity), None)
                    for field in ("description", "language"):
                        if before is not None and before[field] != row[field]:
                            history.edits.append((index, identity, field, row[field]))
    history.edits += [(index, identity, "full_name", name) for index, identity, name in renamed]
    return history


# The iOS apps list

def github_name(source):
    """owner/name of a GitHub repository URL; None for other hosts and for paths inside a repository."""
    match = re.fullmatch(r"https?://github\.com/([^/\s]+/[^/\s]+?)(?:\.git)?/?", source or "")
    return match.group(1) if match else None


def language_of(tags):
    for tag in tags or []:
        if tag == "swift":
            return "Swift"
        if tag in ("objc", "obj-c", "objective-c"):
            return "Objective-C"
    return ""


def stars_of(record):
    """The app's stars, None when the list does not know them (then the app is left out: a
    repository without a star count is nothing GitHub would answer)."""
    try:
        return int(record["stars"])
    except (KeyError, TypeError, ValueError):
        return None


def ios_history(directory, excluded):
    """The state of the list at the end of each of its last IOS_MONTHS months, replayed from the
    whole stream, keyed like the ranking by lower-cased owner/name, renames followed. Apps whose
    repository the ranking already tracks (`excluded`) are left out, and so is a second entry for
    a repository already listed."""
    changes = []
    for path in sorted(glob.glob(os.path.join(directory, "part-*.ndjson"))):
        with open(path, encoding="utf-8") as handle:
            changes += [json.loads(line) for line in handle]
    if not changes:
        sys.exit(f"error: {directory} holds no part-NN.ndjson change files")
    months = sorted({change["ts"][:7] for change in changes})[-IOS_MONTHS:]
    # A month's step is named by the day of its last change: the state is as of that day.
    last_day = {change["ts"][:7]: change["ts"][:10] for change in changes}
    state, identity_of, ends = {}, {}, {}
    for change in changes:
        operation, key = change["op"], change["key"]
        if operation in ("snapshot", "insert"):
            state[key] = dict(change["record"])
        elif operation == "delete":
            state.pop(key, None)
        elif operation == "rename" and change.get("old_key") in state:
            state[key] = state.pop(change["old_key"])
            old, new = github_name(change["old_key"]), github_name(key)
            if old and new:
                identity_of[new.lower()] = identity_of.get(old.lower(), old.lower())
        if operation in ("update", "rename") and key in state:
            for field, (_, new) in change.get("changes", {}).items():
                state[key][field] = new
        ends[change["ts"][:7]] = {k: dict(v) for k, v in state.items()}
    history = History([last_day[month] for month in months])
    previous = {}
    for index, month in enumerate(months):
        today = {}
        for key, record in sorted(ends.get(month, {}).items()):
            name, stars = github_name(record.get("source")), stars_of(record)
            if name is None or stars is None or name.lower() in excluded:
                continue
            identity = identity_of.get(name.lower(), name.lower())
            if identity in today:
                continue
            fields = {
                "full_name": name, "language": language_of(record.get("tags")),
                "description": (record.get("description") or "").strip(), "open_issues": "", "pushed_at": "",
            }
            history.observe(index, identity, fields, stars)
            before = previous.get(identity)
            if before is not None:
                for field in ("full_name", "description", "language"):
                    if before[field] != fields[field]:
                        history.edits.append((index, identity, field, fields[field]))
            today[identity] = fields
        previous = today
    return history


# Writing

def real_ids(fixtures):
    """Lower-cased full name to id, from the shipped repositories (repos-2022 last, so first)."""
    ids = {}
    for path in sorted(glob.glob(os.path.join(fixtures, "api-repos", "*.ndjson"))):
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                ids[record["full_name"].lower()] = record["id"]
    with open(os.path.join(fixtures, "repos-2022.csv"), encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            ids[row["url"].strip("/").lower()] = int(row[""])
    return ids


def synthetic_id(identity):
    digest = hashlib.sha256(identity.lower().encode("utf-8")).digest()
    return SYNTHETIC_BASE + int.from_bytes(digest[:4], "big")


def assign_ids(history, known):
    ids = {}
    for identity in history.order:
        names = [history.first[identity]["full_name"]] + [
            value for _, who, field, value in history.edits if who == identity and field == "full_name"]
        real = next((known[name.lower()] for name in names if name.lower() in known), None)
        ids[identity] = real if real is not None else synthetic_id(identity)  # the first name, lower-cased
    return ids


def write(history, ids, out):
    os.makedirs(out, exist_ok=True)

    def table(name, header, rows):
        with open(os.path.join(out, name), "w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(header)
            writer.writerows(rows)

    columns = ["full_name", "language", "description", "open_issues", "pushed_at"]
    table("repositories.csv", ["id"] + columns,
          ([ids[i]] + [history.first[i][c] for c in columns] for i in history.order))
    counts = [("stars.csv", history.stars)] + ([("forks.csv", history.forks)] if history.forks is not None else [])
    for name, values in counts:
        table(name, ["id"] + history.steps,
              ([ids[i]] + ["" if v is None else v for v in values[i]] for i in history.order))
    edits = sorted((step, ids[identity], field, value) for step, identity, field, value in history.edits)
    table("edits.csv", ["step", "id", "field", "value"],
          ([history.steps[step], identifier, field, value] for step, identifier, field, value in edits))


def main(arguments):
    if not 2 <= len(arguments) <= 3:
        sys.exit(__doc__.strip())
    here = os.path.dirname(os.path.abspath(__file__))
    fixtures = arguments[2] if len(arguments) == 3 else os.path.join(here, "..", "Tests", "Fixtures", "github")
    ranking = ranking_history(arguments[0])
    ranked_names = {f["full_name"].lower() for f in ranking.first.values()}
    ranked_names |= {value.lower() for _, _, field, value in ranking.edits if field == "full_name"}
    ios = ios_history(arguments[1], ranked_names)
    known = real_ids(fixtures)
    ranking_ids, ios_ids = assign_ids(ranking, known), assign_ids(ios, known)
    every = list(ranking_ids.values()) + list(ios_ids.values())
    if len(set(every)) != len(every):
        sys.exit("error: two repositories got the same id (a shipped one twice, or a synthetic clash)")
    root = os.path.join(fixtures, "history")
    write(ranking, ranking_ids, os.path.join(root, "ranking"))
    write(ios, ios_ids, os.path.join(root, "ios-apps"))
    for name, history in (("ranking", ranking), ("ios-apps", ios)):
        renamed = sum(1 for edit in history.edits if edit[2] == "full_name")
        print(f"{name}: {len(history.order)} repositories, {len(history.steps)} steps, {renamed} renames")


if __name__ == "__main__":
    main(sys.argv[1:])
