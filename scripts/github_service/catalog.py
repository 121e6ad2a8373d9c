"""The repositories the project ships (Tests/Fixtures/github), one repository object per id.

Three sources observe the same repositories at different times: the API objects of api-repos/
(2013 to 2022), the items of the recorded search responses, and the rows of repos-2022.csv (April
2022, without descriptions). Each id's object is its newest observation, with the fields that one
lacks taken from older ones: a 2022 row brings current stars and topics to a 2015 object that has
the description.
"""

import ast
import csv
import glob
import json
import os

from .records import iso_date

API = "https://api.github.com"
WEB = "https://github.com"

# Keys that belong to one search answer, not to the repository.
ANSWER_KEYS = ("score", "text_matches")
DATE_KEYS = ("created_at", "updated_at", "pushed_at")


class CatalogError(Exception):
    """A shipped file cannot be read; the message names the file and the line."""


def load(fixtures):
    """The merged repository objects of the directory `fixtures`, by id."""
    observations = {}

    def observe(obj, place):
        if not isinstance(obj, dict) or not isinstance(obj.get("id"), int) or not isinstance(obj.get("full_name"), str):
            raise CatalogError(f"{place}: not a repository object with an id and a full_name")
        observations.setdefault(obj["id"], []).append(obj)

    for path in sorted(glob.glob(os.path.join(fixtures, "api-repos", "*.ndjson"))):
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                observe(parse_json(line, f"{path}:{number}"), f"{path}:{number}")
    for path in sorted(glob.glob(os.path.join(fixtures, "search-responses", "[0-9]*.json"))):
        with open(path, encoding="utf-8") as handle:
            answer = parse_json(handle.read(), path)
        items = answer.get("items") if isinstance(answer, dict) else None
        if not isinstance(items, list):
            raise CatalogError(f"{path}: not a search response with an items array")
        for index, item in enumerate(items):
            observe(item, f"{path}: items[{index}]")
    path = os.path.join(fixtures, "repos-2022.csv")
    with open(path, encoding="utf-8", newline="") as handle:
        rows = csv.DictReader(handle)
        for row in rows:
            place = f"{path}:{rows.line_num}"
            observe(from_row(row, place), place)
    if not observations:
        raise CatalogError(f"{fixtures}: no repositories (is it Tests/Fixtures/github?)")
    return {identifier: merge(objects) for identifier, objects in observations.items()}


def parse_json(text, place):
    try:
        return json.loads(text)
    except ValueError as error:
        raise CatalogError(f"{place}: not JSON ({error}); restore the file from git") from None


def from_row(row, place):
    """A repos-2022.csv row as a repository object: only the fields the row has."""
    try:
        identifier = int(row[""])
        stars = int(row["stargazers_count"])
        forks = int(row["forks_count"])
    except (KeyError, ValueError):
        raise CatalogError(f"{place}: the id, stargazers_count or forks_count is not a whole number") from None
    full_name = (row.get("url") or "").strip("/")
    owner, _, name = full_name.partition("/")
    if not owner or not name:
        raise CatalogError(f"{place}: the url '{row.get('url')}' is not /owner/name")
    return {
        "id": identifier,
        "name": row.get("name") or name,
        "full_name": full_name,
        "owner": {"login": owner, "url": f"{API}/users/{owner}", "html_url": f"{WEB}/{owner}"},
        "html_url": f"{WEB}/{full_name}",
        "url": f"{API}/repos/{full_name}",
        "created_at": row.get("created_at") or None,
        "updated_at": row.get("updated_at") or None,
        "stargazers_count": stars,
        "watchers_count": stars,
        "language": row.get("language") or None,
        "forks_count": forks,
        "topics": topics(row.get("topics") or "[]", place),
        "forks": forks,
        "watchers": stars,
    }


def topics(text, place):
    """The Python-list text of the topics column: ['3d', 'canvas']."""
    try:
        # GitHub's topics are lower-case letters, digits and hyphens, so the list is JSON once its
        # quotes are; that is several times faster than evaluating it.
        value = json.loads(text.replace("'", '"'))
    except ValueError:
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            raise CatalogError(f"{place}: the topics {text[:40]!r} are not a list") from None
    if not isinstance(value, list) or not all(isinstance(topic, str) for topic in value):
        raise CatalogError(f"{place}: the topics {text[:40]!r} are not a list of names")
    return value


def merge(objects):
    """One object from observations of one repository: the newest value of each field."""
    ordered = sorted(enumerate(objects), key=lambda pair: (observed_at(pair[1]), pair[0]))
    merged = {}
    for _, obj in ordered:
        for key, value in obj.items():
            if key in ANSWER_KEYS:
                continue
            if value is not None or key not in merged:
                merged[key] = value
    for key in DATE_KEYS:
        if key in merged:
            merged[key] = iso_date(merged[key])
    # Defaults of fields the CSV rows lack, which would otherwise override recorded values.
    merged.setdefault("private", False)
    merged.setdefault("description", None)
    merged.setdefault("fork", False)
    return merged


def observed_at(obj):
    for key in ("updated_at", "pushed_at", "created_at"):
        value = iso_date(obj.get(key))
        if isinstance(value, str) and value:
            return value
    return ""
