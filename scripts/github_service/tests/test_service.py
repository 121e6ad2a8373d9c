import json
import unittest

from github_service.service import Service
from github_service.tests import shared


class Clock:
    def __init__(self):
        self.now = 1_800_000_000.0

    def __call__(self):
        return self.now


def search(service, query, headers=None, client="127.0.0.1"):
    arguments = dict(part.split("=", 1) for part in query.split("&"))
    arguments["q"] = arguments.get("q", "").replace("+", " ")
    return service.search(arguments, query, headers or {}, client, "http://127.0.0.1:1")


def ids(answer):
    return [item["id"] for item in json.loads(answer.body)["items"]]


class ServiceTests(unittest.TestCase):
    def test_pages_cover_the_first_thousand_results_once(self):
        service = Service(shared.dataset(), shared.options(rate_limit=1000))
        walked, page = [], 1
        while True:
            answer = search(service, f"q=language:python&sort=stars&per_page=100&page={page}")
            self.assertEqual(answer.status, 200)
            walked += ids(answer)
            if 'rel="next"' not in answer.headers.get("Link", ""):
                break
            page += 1
        self.assertEqual(page, 10)
        self.assertIn('page=10>; rel="last"', search(service, "q=language:python&per_page=100").headers["Link"])
        self.assertEqual(len(walked), 1000)
        self.assertEqual(len(set(walked)), 1000)
        small = []
        for page in range(1, 5):
            small += ids(search(service, f"q=language:python&sort=stars&per_page=30&page={page}"))
        self.assertEqual(small, walked[:120])
        self.assertEqual(search(service, "q=language:python&per_page=100&page=11").status, 422)
        self.assertEqual(search(service, "q=language:python&per_page=30&page=34").status, 200)
        self.assertEqual(search(service, "q=language:python&per_page=30&page=35").status, 422)

    def test_an_unchanged_answer_is_a_304_that_a_token_gets_free(self):
        clock = Clock()
        service = Service(shared.dataset(), shared.options(rate_limit=5), now=clock)
        first = search(service, "q=chat")
        self.assertEqual(first.status, 200)
        again = search(service, "q=chat", {"If-None-Match": first.headers["ETag"]})
        self.assertEqual((again.status, again.body), (304, b""))
        self.assertEqual(again.headers["X-RateLimit-Remaining"], "3")
        token = {"If-None-Match": first.headers["ETag"], "Authorization": "Bearer x"}
        search(service, "q=chat", {"Authorization": "Bearer x"})
        free = search(service, "q=chat", token)
        self.assertEqual((free.status, free.headers["X-RateLimit-Remaining"]), (304, "4"))
        service.advance(12)
        self.assertEqual(search(service, "q=chat", {"If-None-Match": first.headers["ETag"]}).status, 200)

    def test_the_budget_is_spent_then_reset(self):
        clock = Clock()
        service = Service(shared.dataset(), shared.options(rate_limit=3, rate_window=60), now=clock)
        remaining = [search(service, "q=chat").headers["X-RateLimit-Remaining"] for _ in range(3)]
        self.assertEqual(remaining, ["2", "1", "0"])
        refused = search(service, "q=chat")
        self.assertEqual(refused.status, 403)
        self.assertIn(b"API rate limit exceeded for 127.0.0.1", refused.body)
        reset = int(refused.headers["X-RateLimit-Reset"])
        self.assertEqual(reset, 1_800_000_060)
        self.assertEqual(search(service, "q=chat", client="127.0.0.2").status, 200, "budgets are per client")
        clock.now = reset
        self.assertEqual(search(service, "q=chat").headers["X-RateLimit-Remaining"], "2")

    def test_a_burst_trips_the_secondary_limit(self):
        clock = Clock()
        service = Service(shared.dataset(), shared.options(secondary_limit=2, secondary_retry_after=30), now=clock)
        self.assertEqual([search(service, "q=chat").status for _ in range(2)], [200, 200])
        refused = search(service, "q=chat")
        self.assertEqual((refused.status, refused.headers["Retry-After"]), (403, "30"))
        self.assertIn(b"secondary rate limit", refused.body)
        clock.now += 29
        self.assertEqual(search(service, "q=chat").headers["Retry-After"], "1")
        clock.now += 1
        self.assertEqual(search(service, "q=chat").status, 200)

    def test_searches_advance_the_epoch(self):
        service = Service(shared.dataset(), shared.options(drift_searches=2))
        for expected in (0, 0, 1, 1, 2):
            self.assertEqual(service.state()["epoch"], expected)
            search(service, "q=chat")
        search(service, "q=")  # a 422 is no search answered
        self.assertEqual(service.state()["epoch"], 2)


if __name__ == "__main__":
    unittest.main()
