"""A real change history the service's data drifts by, one step per epoch.

A directory of Tests/Fixtures/github/history/ (its README describes the files) gives, for each of
its repositories and each step (a day of GitHub's ranking, a month of the iOS apps list), the
stars (and forks) at that step, or nothing when the repository was not listed then; and the
renames and the edits of description and language. Epoch N is step N; epochs past the last step
stay on it. A repository is served at the steps it is listed: it appears when it enters the list
and disappears when it leaves it.
"""

import csv
import os

from .catalog import API, WEB, CatalogError


class History:
    def __init__(self, directory):
        self.directory = directory
        self.base = {}  # id -> the repositories.csv row
        self.steps, self.stars = self.read_counts("stars.csv")
        # The iOS apps list has no forks: those repositories keep the forks of their object.
        has_forks = os.path.exists(os.path.join(directory, "forks.csv"))
        steps, self.forks = self.read_counts("forks.csv") if has_forks else (self.steps, None)
        if steps != self.steps or not steps:
            raise CatalogError(f"{directory}: stars.csv and forks.csv have different steps, or none")
        for row in self.read("repositories.csv"):
            self.base[self.identifier(row, "repositories.csv")] = row
        if set(self.base) != set(self.stars) or self.forks is not None and set(self.base) != set(self.forks):
            raise CatalogError(f"{directory}: repositories.csv, stars.csv and forks.csv list different ids")
        self.edits = [[] for _ in self.steps]
        step_index = {step: index for index, step in enumerate(self.steps)}
        for row in self.read("edits.csv"):
            index = step_index.get(row["step"])
            if index is None or row["field"] not in ("full_name", "description", "language"):
                raise CatalogError(f"{directory}/edits.csv: an edit of an unknown step or field: {row}")
            self.edits[index].append((self.identifier(row, "edits.csv"), row["field"], row["value"]))
        self.states = self.replay()

    @property
    def last_epoch(self):
        return len(self.steps) - 1

    def step(self, epoch):
        """The step's name: the day whose state it is (2026-08-09)."""
        return self.steps[min(epoch, self.last_epoch)]

    def state(self, epoch):
        """id -> the fields of each repository listed at the epoch's step."""
        return self.states[min(epoch, self.last_epoch)]

    # Reading

    def read(self, name):
        path = os.path.join(self.directory, name)
        try:
            with open(path, encoding="utf-8", newline="") as handle:
                return list(csv.DictReader(handle))
        except OSError as error:
            raise CatalogError(f"{path}: {error.strerror}; restore Tests/Fixtures/github/history from git") from None

    def identifier(self, row, name):
        try:
            return int(row["id"])
        except (KeyError, ValueError):
            raise CatalogError(f"{self.directory}/{name}: a row without a whole-number id: {row}") from None

    def read_counts(self, name):
        """The steps (the columns after id) and each repository's count at each (None: not
        listed then)."""
        rows = self.read(name)
        steps = [column for column in (rows[0].keys() if rows else []) if column != "id"]
        values = {}
        for row in rows:
            try:
                values[self.identifier(row, name)] = [int(row[step]) if row[step] else None for step in steps]
            except ValueError:
                raise CatalogError(f"{self.directory}/{name}: a count that is not a whole number: {row}") from None
        return steps, values

    # Replaying

    def replay(self):
        """The state of every step, each from the one before: the step's counts, its edits
        applied; `updated_at` is the day of the last step that changed the repository (GitHub
        moves it when a repository is starred or edited)."""
        states = []
        current = {}  # id -> fields, kept while a repository is not listed
        for index, step in enumerate(self.steps):
            for identifier, field, value in self.edits[index]:
                current.setdefault(identifier, self.first_fields(identifier))[field] = value
            today = {}
            for identifier in self.base:
                stars = self.stars[identifier][index]
                forks = self.forks[identifier][index] if self.forks is not None else None
                if stars is None:
                    continue
                fields = current.setdefault(identifier, self.first_fields(identifier))
                previous = states[-1].get(identifier) if states else None
                changed = previous is None or any(
                    previous[key] != value for key, value in
                    (("stargazers_count", stars), ("forks_count", forks), ("full_name", fields["full_name"]),
                     ("description", fields["description"]), ("language", fields["language"])))
                today[identifier] = dict(
                    fields, stargazers_count=stars, forks_count=forks,
                    updated_at=f"{step}T00:00:00Z" if changed else previous["updated_at"])
            states.append(today)
        return states

    def first_fields(self, identifier):
        row = self.base[identifier]
        return {
            "full_name": row["full_name"], "description": row["description"] or None,
            "language": row["language"] or None,
            "open_issues_count": int(row["open_issues"]) if row["open_issues"] else None,
            "pushed_at": row["pushed_at"] or None,
        }


def apply(identifier, obj, fields):
    """The repository object of a step: a copy of the shipped object `obj` (or, for a repository
    only the history knows, a new one) with the step's `fields`."""
    full_name = fields["full_name"]
    owner, _, name = full_name.partition("/")
    if obj is None:
        # The keys in the order of GitHub's objects; only those a history can fill.
        obj = {
            "id": identifier, "name": name, "full_name": full_name, "private": False,
            "owner": owner_object(owner), "html_url": f"{WEB}/{full_name}", "description": None,
            "fork": False, "url": f"{API}/repos/{full_name}", "updated_at": None, "pushed_at": None,
            "stargazers_count": 0, "watchers_count": 0, "language": None, "forks_count": 0,
            "open_issues_count": 0, "forks": 0, "open_issues": 0, "watchers": 0,
        }
    result = dict(obj)
    old = obj["full_name"]
    if old != full_name:
        # A rename or transfer: the object's addresses follow the name, as GitHub's do.
        for key, value in obj.items():
            if isinstance(value, str) and key != "description":
                result[key] = value.replace(f"/repos/{old}", f"/repos/{full_name}").replace(
                    f"{WEB}/{old}", f"{WEB}/{full_name}")
    current_owner = obj.get("owner") if isinstance(obj.get("owner"), dict) else {}
    if str(current_owner.get("login", "")).lower() != owner.lower():
        result["owner"] = owner_object(owner)
    stars = fields["stargazers_count"]
    result.update(
        name=name, full_name=full_name, html_url=f"{WEB}/{full_name}", description=fields["description"],
        language=fields["language"], stargazers_count=stars, watchers_count=stars, watchers=stars,
        updated_at=fields["updated_at"])
    # What a history does not know (the iOS list has no forks, issues or pushes) stays as it was.
    if fields["forks_count"] is not None:
        result.update(forks_count=fields["forks_count"], forks=fields["forks_count"])
    if fields["open_issues_count"] is not None:
        result.update(open_issues_count=fields["open_issues_count"], open_issues=fields["open_issues_count"])
    if fields["pushed_at"] is not None:
        result["pushed_at"] = fields["pushed_at"]
    return result


def owner_object(login):
    return {"login": login, "url": f"{API}/users/{login}", "html_url": f"{WEB}/{login}"}
