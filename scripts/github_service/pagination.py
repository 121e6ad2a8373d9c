"""Pages of a search: `page` and `per_page`, the 1,000-result cap and the `Link` header."""

from . import errors

CAP = 1000
DEFAULT_PER_PAGE = 30
MAXIMUM_PER_PAGE = 100


def whole_number(text, default):
    try:
        return int(text)
    except (TypeError, ValueError):
        return default


def parameters(arguments):
    """(page, per_page) of the request's arguments: GitHub's defaults for what is missing or not
    a positive number, and at most 100 a page."""
    page = whole_number(arguments.get("page"), 1)
    per_page = whole_number(arguments.get("per_page"), DEFAULT_PER_PAGE)
    page = page if page >= 1 else 1
    per_page = min(per_page if per_page >= 1 else DEFAULT_PER_PAGE, MAXIMUM_PER_PAGE)
    if (page - 1) * per_page >= CAP:
        raise errors.past_the_cap(CAP)
    return page, per_page


def last_page(total, per_page):
    """The last page GitHub serves: of the matches, or of the first 1,000 of them."""
    reachable = min(total, CAP)
    return max(1, -(-reachable // per_page))


def link_header(base, raw_query, page, per_page, total):
    """`<…&page=1>; rel="prev", <…&page=3>; rel="next", <…&page=34>; rel="last", <…>; rel="first"`,
    the request's own parameters with another page; None when everything fits on one page."""
    last = last_page(total, per_page)
    if last == 1 and page == 1:
        return None
    kept = [part for part in raw_query.split("&") if part and not part.startswith("page=")]

    def url(number):
        return f"<{base}/search/repositories?{'&'.join(kept + [f'page={number}'])}>"

    links = []
    if page > 1:
        links.append(f'{url(min(page - 1, last))}; rel="prev"')
    if page < last:
        links.append(f'{url(page + 1)}; rel="next"')
        links.append(f'{url(last)}; rel="last"')
    if page > 1:
        links.append(f'{url(1)}; rel="first"')
    return ", ".join(links)
