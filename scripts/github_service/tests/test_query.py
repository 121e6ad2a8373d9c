import random
import unittest

from github_service import errors, query, search
from github_service.tests import shared


class QueryTests(unittest.TestCase):
    def test_tokens_keep_quoted_values_whole(self):
        self.assertEqual(query.tokens('language:"Jupyter Notebook"  "two words" x'),
                         ['language:"Jupyter Notebook"', '"two words"', "x"])

    def test_queries_github_refuses_are_422(self):
        for q in (None, "", "   ", "x" * 257, "stars:many", "forks:>x", "fork:maybe", "archived:yes"):
            with self.subTest(q=q), self.assertRaises(errors.ServiceError) as caught:
                query.parse(q)
            self.assertEqual(caught.exception.status, 422)
            self.assertEqual(caught.exception.body["message"], "Validation Failed")
        with self.assertRaises(errors.ServiceError) as caught:
            query.parse("")
        self.assertEqual(caught.exception.body["errors"][0]["code"], "missing")

    def test_ranges_agree_with_their_definition(self):
        generator = random.Random(18)
        for _ in range(2000):
            n, low, high = (generator.randrange(0, 300) for _ in range(3))
            cases = {
                f"{low}": n == low, f">{low}": n > low, f">={low}": n >= low, f"<{low}": n < low,
                f"<={low}": n <= low, f"{low}..{high}": low <= n <= high, f"{low}..*": n >= low,
                f"*..{high}": n <= high, "*": True,
            }
            for text, expected in cases.items():
                self.assertEqual(query.parse_range("stars", text)(n), expected, f"{n} in stars:{text}")

    def test_search_agrees_with_a_scan_of_the_snapshot(self):
        # The oracle spells out the documented rules on the raw objects, not on the prepared fields.
        snapshot = shared.dataset().snapshot(3)
        for q, terms, language, minimum in (
            ("chat language:swift", ["chat"], "swift", None),
            ("JSON stars:>100", ["json"], None, 100),
            ("swift ui language:Swift stars:>=50", ["swift", "ui"], "swift", 49),
        ):
            def oracle(obj):
                texts = [obj["full_name"].rpartition("/")[2].lower(), (obj.get("description") or "").lower()]
                texts += [topic.lower() for topic in obj.get("topics") or []]
                return (not obj.get("private") and not obj.get("fork")
                        and all(any(term in text for text in texts) for term in terms)
                        and (language is None or (obj.get("language") or "").lower() == language)
                        and (minimum is None or (obj.get("stargazers_count") or 0) > minimum))
            expected = {record.id for record in snapshot.records if oracle(record.object)}
            found = search.run(query.parse(q), snapshot, "stars", "desc")
            with self.subTest(q=q):
                self.assertGreater(len(expected), 5)
                self.assertEqual({record.id for record in found}, expected)
                stars = [record.stars for record in found]
                self.assertEqual(stars, sorted(stars, reverse=True))

    def test_qualifiers_narrow_and_exclusions_remove(self):
        snapshot = shared.dataset().snapshot(0)
        every = search.run(query.parse("tetris"), snapshot)
        assembly = search.run(query.parse("tetris language:assembly"), snapshot)
        without = search.run(query.parse("tetris -language:assembly"), snapshot)
        self.assertTrue(assembly and without)
        self.assertEqual({r.id for r in assembly} | {r.id for r in without}, {r.id for r in every})
        self.assertFalse({r.id for r in assembly} & {r.id for r in without})
        forks = search.run(query.parse("user:t0m4uk1991 fork:only"), snapshot)
        self.assertTrue(forks and all(r.fork for r in forks))
        one = search.run(query.parse("repo:octokit/octokit.rb"), snapshot)
        self.assertEqual([r.full_name for r in one], ["octokit/octokit.rb"])
        others = search.run(query.parse("octokit -repo:octokit/octokit.rb"), snapshot)
        self.assertTrue(others and "octokit/octokit.rb" not in {r.full_name for r in others})
        for unknown in ("user:no-such-user-livelog", "org:no-such-org-livelog", "repo:octokit/no-such-repo"):
            with self.assertRaises(errors.ServiceError):
                search.run(query.parse(unknown), snapshot)


if __name__ == "__main__":
    unittest.main()
