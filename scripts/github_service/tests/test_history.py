import csv
import json
import os
import unittest

from github_service import query, search
from github_service.dataset import Dataset
from github_service.tests import shared


def raw_counts(directory, name):
    with open(os.path.join(shared.FIXTURES, "history", directory, name), encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    return rows[0][1:], {int(row[0]): row[1:] for row in rows[1:]}


class HistoryTests(unittest.TestCase):
    def test_every_epoch_serves_the_stars_and_forks_of_its_step(self):
        dataset = shared.dataset()
        for directory, has_forks in (("ranking", True), ("ios-apps", False)):
            steps, stars = raw_counts(directory, "stars.csv")
            forks = raw_counts(directory, "forks.csv")[1] if has_forks else None
            for epoch in (0, 1, 7, len(steps) - 1, len(steps) + 3):
                step = min(epoch, len(steps) - 1)
                served = {r.id: r for r in dataset.snapshot(epoch).records if r.id in stars}
                listed = {identifier for identifier, values in stars.items() if values[step]}
                with self.subTest(directory=directory, epoch=epoch):
                    self.assertEqual(set(served), listed)
                    for identifier, record in served.items():
                        self.assertEqual(record.stars, int(stars[identifier][step]))
                        if forks:
                            self.assertEqual(record.forks, int(forks[identifier][step]))

    def test_renames_keep_the_id_and_move_the_addresses(self):
        dataset = shared.dataset()
        renames = 0
        for one in dataset.histories:
            for index, edits in enumerate(one.edits):
                for identifier, field, value in edits:
                    if field != "full_name" or index == 0:
                        continue
                    before = {r.id: r.object for r in dataset.snapshot(index - 1).records}.get(identifier)
                    after = {r.id: r.object for r in dataset.snapshot(index).records}[identifier]
                    if before is None:
                        continue
                    renames += 1
                    self.assertNotEqual(before["full_name"], after["full_name"])
                    self.assertEqual(after["full_name"], value)
                    self.assertEqual(after["html_url"], f"https://github.com/{value}")
                    self.assertEqual(after["owner"]["login"], value.partition("/")[0])
        self.assertGreaterEqual(renames, 20)

    def test_synthetic_ids_stay_clear_of_real_ones(self):
        real = set(shared.dataset().catalog)
        for one in shared.dataset().histories:
            for identifier in one.base:
                self.assertTrue(identifier in real or identifier >= 1 << 40, identifier)

    def test_the_same_epoch_gives_the_same_answer_in_every_process(self):
        again = Dataset(shared.FIXTURES)
        for epoch in (0, 6, 14):
            first, second = (
                json.dumps([r.object for r in search.run(query.parse("chat"), one.snapshot(epoch), "stars")])
                for one in (shared.dataset(), again))
            self.assertEqual(first, second)


if __name__ == "__main__":
    unittest.main()
