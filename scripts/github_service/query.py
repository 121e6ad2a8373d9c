"""The `q` parameter of a repository search: terms, phrases and qualifiers, as GitHub reads them.

`stars:>100 language:swift json in:name` is three qualifiers and a term. Terms (and "quoted phrases")
must all match, case-insensitively and as substrings, in the name, description or topics (or the
fields `in:` names); `-term`, `NOT term` and `-qualifier:value` exclude. A word with a colon whose
key is not a qualifier here is an ordinary term.
"""

import re

from . import errors

MAXIMUM_LENGTH = 256
FIELDS = ("name", "description", "topics")
RANGE = re.compile(r"^(?:(>=|<=|>|<)?(\d+)|(\d+|\*)\.\.(\d+|\*)|\*)$")


class Query:
    def __init__(self):
        self.terms = []  # (text, excluded)
        self.fields = set()  # from in:; empty means FIELDS
        self.filters = []  # (predicate on a Record, excluded)
        self.fork = "false"  # GitHub leaves forks out unless fork:true or fork:only
        self.owners = set()  # user: and org: logins, which must exist
        self.repositories = set()  # repo: full names, which must exist
        self.languages = []  # language: values; a repository needs one of them
        self.owner_filter = set()
        self.repository_filter = set()

    def matches(self, record):
        if record.private:
            return False
        if self.fork == "false" and record.fork or self.fork == "only" and not record.fork:
            return False
        if self.languages and record.language not in self.languages:
            return False
        if self.owner_filter and record.owner not in self.owner_filter:
            return False
        if self.repository_filter and record.full_name not in self.repository_filter:
            return False
        for predicate, excluded in self.filters:
            if predicate(record) == excluded:
                return False
        fields = self.fields or FIELDS
        for text, excluded in self.terms:
            if found(text, record, fields) == excluded:
                return False
        return True

    def score(self, record):
        """Best match: how well the terms match, name above topics above description."""
        total = 0.0
        for text, excluded in self.terms:
            if excluded:
                continue
            if record.name == text:
                total += 4
            elif record.name.startswith(text):
                total += 3
            elif text in record.name:
                total += 2
            elif text in record.topics:
                total += 1.5
            elif found(text, record, ("description", "topics")):
                total += 1
        return total


def found(text, record, fields):
    if "name" in fields and (text in record.name or "/" in text and text in record.full_name):
        return True
    if "description" in fields and text in record.description:
        return True
    return "topics" in fields and any(text in topic for topic in record.topics)


def parse(q):
    """The query `q` describes; raises `ServiceError` (422) for one GitHub would not run."""
    if q is None or not q.strip():
        raise errors.missing_query()
    if len(q) > MAXIMUM_LENGTH:
        raise errors.validation_failed(f"The search is longer than {MAXIMUM_LENGTH} characters.")
    query = Query()
    negate_next = False
    for token in tokens(q):
        if token == "AND":
            continue
        if token == "NOT":
            negate_next = True
            continue
        excluded = negate_next
        negate_next = False
        if token.startswith("-") and len(token) > 1:
            excluded, token = True, token[1:]
        key, colon, value = token.partition(":")
        handler = QUALIFIERS.get(key.lower()) if colon else None
        if handler:
            handler(query, key.lower(), unquoted(value), excluded)
        else:
            text = unquoted(token).lower()
            if text:
                query.terms.append((text, excluded))
    return query


def tokens(text):
    """Words separated by whitespace outside double quotes (`language:"Jupyter Notebook"` is one)."""
    words, current, quoted = [], [], False
    for character in text:
        if character == '"':
            quoted = not quoted
        if character.isspace() and not quoted:
            if current:
                words.append("".join(current))
                current = []
        else:
            current.append(character)
    if current:
        words.append("".join(current))
    return words


def unquoted(text):
    return text.replace('"', "").strip()


# Qualifiers

def language(query, key, value, excluded):
    if excluded:
        query.filters.append((lambda record, name=value.lower(): record.language == name, True))
    else:
        query.languages.append(value.lower())


def count_range(attribute):
    def qualifier(query, key, value, excluded):
        test = parse_range(key, value)
        query.filters.append((lambda record: test(getattr(record, attribute)), excluded))
    return qualifier


def parse_range(key, value):
    match = RANGE.match(value)
    if not match:
        raise errors.validation_failed(
            f"The {key} qualifier needs a number or a range such as >10, >=10, <10, 10..50 or 10..*, "
            f"not '{value}'.")
    operator, number, low, high = match.groups()
    if number is not None:
        bound = int(number)
        return {
            None: lambda n: n == bound, ">": lambda n: n > bound, ">=": lambda n: n >= bound,
            "<": lambda n: n < bound, "<=": lambda n: n <= bound,
        }[operator]
    if low is None:  # "*"
        return lambda n: True
    lowest = 0 if low == "*" else int(low)
    highest = None if high == "*" else int(high)
    return lambda n: n >= lowest and (highest is None or n <= highest)


def fork(query, key, value, excluded):
    mode = value.lower()
    if mode not in ("true", "false", "only"):
        raise errors.validation_failed(f"The fork qualifier takes true, only or false, not '{value}'.")
    query.fork = mode  # GitHub gives -fork: no meaning of its own


def named(attribute, existing, allowed):
    """user: and org: (an owner's login), repo: (a full name): the name must exist (the search
    checks), and a repository must carry one of the names, or none of the excluded ones."""
    def qualifier(query, key, value, excluded):
        name = value.lower()
        getattr(query, existing).add(name)
        if excluded:
            query.filters.append((lambda record: getattr(record, attribute) == name, True))
        else:
            getattr(query, allowed).add(name)
    return qualifier


def within(query, key, value, excluded):
    # in:readme is accepted and finds nothing: the shipped data has no READMEs.
    query.fields.update(field for field in value.lower().split(",") if field in FIELDS or field == "readme")


def topic(query, key, value, excluded):
    query.filters.append((lambda record, name=value.lower(): name in record.topics, excluded))


def visibility(query, key, value, excluded):
    # Every shipped repository the service serves is public; other is: values match none.
    public = value.lower() == "public"
    query.filters.append((lambda record: public, excluded))


def archived(query, key, value, excluded):
    flag = value.lower()
    if flag not in ("true", "false"):
        raise errors.validation_failed(f"The archived qualifier takes true or false, not '{value}'.")
    query.filters.append((lambda record: record.archived == (flag == "true"), excluded))


QUALIFIERS = {
    "language": language, "stars": count_range("stars"), "forks": count_range("forks"), "fork": fork,
    "user": named("owner", "owners", "owner_filter"), "org": named("owner", "owners", "owner_filter"),
    "repo": named("full_name", "repositories", "repository_filter"), "in": within, "topic": topic, "is": visibility,
    "archived": archived,
}
