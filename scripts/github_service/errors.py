"""GitHub's error answers: status, JSON body and the extra headers each needs."""

SEARCH_DOCS = "https://docs.github.com/rest/search/search#search-repositories"
RATE_LIMIT_DOCS = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"


class ServiceError(Exception):
    """An answer other than a search result; `status`, `body` (a dict) and `headers`."""

    def __init__(self, status, body, headers=None):
        super().__init__(body.get("message"))
        self.status = status
        self.body = body
        self.headers = headers or {}


def validation_failed(message=None, code="invalid"):
    """422 Validation Failed for the `q` parameter, GitHub's answer to a query it cannot run."""
    entry = {"resource": "Search", "field": "q", "code": code}
    if message:
        entry = {"message": message, **entry}
    return ServiceError(422, {"message": "Validation Failed", "errors": [entry], "documentation_url": SEARCH_DOCS})


def missing_query():
    return validation_failed(code="missing")


def unknown_owners():
    # GitHub's words for a user:, org: or repo: qualifier that names nothing it can search.
    return validation_failed(
        "The listed users and repositories cannot be searched either because the resources do not exist "
        "or you do not have permission to view them.")


def past_the_cap(cap):
    return ServiceError(422, {
        "message": f"Only the first {cap} search results are available", "documentation_url": SEARCH_DOCS})


def rate_limited(address):
    return ServiceError(403, {
        "message": f"API rate limit exceeded for {address}. (But here's the good news: Authenticated requests "
        "get a higher rate limit. Check out the documentation for more details.)",
        "documentation_url": RATE_LIMIT_DOCS + "#primary-rate-limit"})


def secondary_limited(retry_after):
    return ServiceError(403, {
        "message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
        "documentation_url": RATE_LIMIT_DOCS + "#about-secondary-rate-limits"},
        {"Retry-After": str(retry_after)})


def not_found():
    return ServiceError(404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})
