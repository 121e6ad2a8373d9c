"""A repository as the service serves it, with the fields a search compares made ready once."""

import datetime


def iso_date(value):
    """A date as GitHub's API writes it (2014-01-11T09:27:47Z). The shipped objects of 2015 have
    some dates as Unix seconds; the search API never sends those."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        moment = datetime.datetime.fromtimestamp(value, datetime.timezone.utc)
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    return value


class Record:
    """One repository object (a dict in the API's shape) and its search fields, lower-cased."""

    __slots__ = (
        "id", "object", "name", "full_name", "owner", "description", "topics", "language",
        "stars", "forks", "updated_at", "fork", "archived", "private",
    )

    def __init__(self, obj):
        self.object = obj
        self.id = obj["id"]
        full_name = obj["full_name"]
        self.full_name = full_name.lower()
        self.name = (obj.get("name") or full_name.rpartition("/")[2]).lower()
        owner = obj.get("owner") if isinstance(obj.get("owner"), dict) else {}
        self.owner = (owner.get("login") or full_name.partition("/")[0]).lower()
        self.description = (obj.get("description") or "").lower()
        topics = obj.get("topics")
        self.topics = tuple(topic.lower() for topic in topics if isinstance(topic, str)) if isinstance(topics, list) else ()
        self.language = (obj.get("language") or "").lower()
        self.stars = number(obj.get("stargazers_count"))
        self.forks = number(obj.get("forks_count", obj.get("forks")))
        self.updated_at = iso_date(obj.get("updated_at")) or ""
        self.fork = obj.get("fork") is True
        self.archived = obj.get("archived") is True
        self.private = obj.get("private") is True


def number(value):
    """A count for sorting and ranges; what is not a whole number counts as 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
