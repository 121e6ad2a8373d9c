"""Runs a parsed query over one epoch's repositories: the matches in the order asked for."""

from . import errors

SORT_KEYS = {
    "stars": lambda record: record.stars,
    "forks": lambda record: record.forks,
    "updated": lambda record: record.updated_at,
}


def run(query, snapshot, sort=None, order=None):
    """The matching records of `snapshot`. With `sort` (stars, forks or updated) in `order` (desc
    unless asc), ties by id; otherwise best match: score, then stars, then id. Raises 422 when a
    user:, org: or repo: qualifier names nothing that exists, as GitHub does."""
    if query.owners - snapshot.owners or query.repositories - snapshot.full_names:
        raise errors.unknown_owners()
    matches = [record for record in snapshot.records if query.matches(record)]
    matches.sort(key=lambda record: record.id)
    key = SORT_KEYS.get(sort)
    if key:
        # Python's sort is stable in both directions, so equal keys stay in id order.
        matches.sort(key=key, reverse=order != "asc")
    else:
        matches.sort(key=lambda record: (-query.score(record), -record.stars))
    return matches
