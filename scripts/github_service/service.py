"""The service's state and its answers, apart from the sockets: searches, rate limits, the epoch
clock of the drifting data, and the faults a test can arm. Safe to call from many threads."""

import collections
import hashlib
import json
import threading
import time

from . import errors, pagination, search
from . import query as queries
from .limits import PrimaryLimit, SecondaryLimit

FAULTS = ("close-mid-body",)
JSON_HEADERS = {
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-cache",
    "Vary": "Accept, Accept-Encoding, Accept, X-GitHub-OTP",
    "X-GitHub-Media-Type": "github.v3; format=json",
}


class Answer:
    def __init__(self, status, headers, body=b"", fault=None):
        self.status, self.headers, self.body, self.fault = status, headers, body, fault


def encode(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def etag_matches(header, etag):
    """If-None-Match with weak comparison: any listed tag equal to ours without W/, or *."""
    if not header:
        return False
    bare = etag.removeprefix("W/")
    return any(tag.strip() == "*" or tag.strip().removeprefix("W/") == bare for tag in header.split(","))


class Service:
    def __init__(self, dataset, options, now=time.time):
        self.dataset = dataset
        self.options = options
        self.now = now
        self.epoch = min(options.epoch, dataset.last_epoch)
        self.searches = 0  # searches answered (200 or 304), which drive the drift
        self.abandoned = 0  # requests whose client hung up before the answer
        self.waiting = 0  # answers held back by --latency right now
        self.requests = 0
        self.primary = PrimaryLimit(options.rate_limit, options.rate_window)
        self.secondary = SecondaryLimit(options.secondary_limit, options.secondary_retry_after)
        self.armed = collections.Counter()
        self.lock = threading.Lock()

    # GET /search/repositories

    def search(self, arguments, raw_query, headers, client, base):
        """The answer to one search request. `arguments` maps each parameter to its first value,
        `headers` the request's headers, `client` its address, `base` the URL Link headers use."""
        identity = headers.get("Authorization") or client
        with self.lock:
            now = self.now()
            self.requests += 1
            request_id = f"{self.requests:04X}:LIVELOG"
            retry_after = self.secondary.check(identity, now)
            if retry_after is not None:
                return self.failure(errors.secondary_limited(retry_after), self.primary.status(identity, now), request_id)
            epoch = self.epoch
        # The search itself runs outside the lock, so slow answers do not queue behind each other.
        try:
            status, answer_headers, body = self.results(arguments, raw_query, headers, base, epoch)
        except errors.ServiceError as error:
            status, answer_headers, body = error.status, dict(error.headers), encode(error.body)
        with self.lock:
            # GitHub does not count a 304 against the budget when the request carries a token.
            exempt = status == 304 and "Authorization" in headers
            if not exempt and not self.primary.take(identity, now):
                return self.failure(errors.rate_limited(client), self.primary.status(identity, now), request_id)
            rate = self.primary.status(identity, now)
            fault = None
            if status in (200, 304):
                self.served()
                fault = self.take_fault() if status == 200 else None
        answer_headers.update(rate.headers())
        answer_headers["X-GitHub-Request-Id"] = request_id
        return Answer(status, {**JSON_HEADERS, **answer_headers}, b"" if status == 304 else body, fault)

    def results(self, arguments, raw_query, headers, base, epoch):
        parsed = queries.parse(arguments.get("q"))
        page, per_page = pagination.parameters(arguments)
        matches = search.run(parsed, self.dataset.snapshot(epoch), arguments.get("sort"), arguments.get("order"))
        start = (page - 1) * per_page
        shown = matches[start:min(start + per_page, pagination.CAP)]
        body = encode({
            "total_count": len(matches), "incomplete_results": False,
            "items": [dict(record.object, score=1.0) for record in shown],
        })
        etag = f'W/"{hashlib.sha1(body).hexdigest()}"'
        answer_headers = {"ETag": etag}
        link = pagination.link_header(base, raw_query, page, per_page, len(matches))
        if link:
            answer_headers["Link"] = link
        status = 304 if etag_matches(headers.get("If-None-Match"), etag) else 200
        return status, answer_headers, body

    def failure(self, error, rate, request_id):
        headers = {**JSON_HEADERS, **error.headers, **rate.headers(), "X-GitHub-Request-Id": request_id}
        return Answer(error.status, headers, encode(error.body))

    # The epoch clock and the faults (call with the lock held)

    def served(self):
        self.searches += 1
        every = self.options.drift_searches
        if every and self.searches % every == 0:
            self.epoch = min(self.epoch + 1, self.dataset.last_epoch)

    def take_fault(self):
        if self.options.fault:
            return self.options.fault
        for kind in FAULTS:
            if self.armed[kind] > 0:
                self.armed[kind] -= 1
                return kind
        return None

    # The control endpoints under /_service/ (tests and demos; not GitHub's)

    def advance(self, epochs=1):
        with self.lock:
            self.epoch = max(0, min(self.epoch + epochs, self.dataset.last_epoch))
        return self.state()

    def arm(self, kind, count=1):
        if kind not in FAULTS:
            raise errors.ServiceError(422, {"message": f"unknown fault '{kind}'; known: {', '.join(FAULTS)}"})
        with self.lock:
            self.armed[kind] += count
        return self.state()

    def hold(self):
        """An answer starts waiting out the latency."""
        with self.lock:
            self.waiting += 1

    def release(self, abandoned):
        """It ends: sent, or `abandoned` because its client hung up first."""
        with self.lock:
            self.waiting -= 1
            self.abandoned += 1 if abandoned else 0

    def state(self):
        with self.lock:
            epoch, searches, abandoned, waiting = self.epoch, self.searches, self.abandoned, self.waiting
            armed = {kind: count for kind, count in self.armed.items() if count}
        return {
            "epoch": epoch, "last_epoch": self.dataset.last_epoch, "steps": self.dataset.steps(epoch),
            "searches": searches, "waiting": waiting, "abandoned": abandoned,
            "armed_faults": armed, "repositories": len(self.dataset.snapshot(epoch).records),
        }
