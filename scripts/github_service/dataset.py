"""What the service searches at each epoch: the shipped catalog with the day's history applied."""

import os
import threading

from . import catalog, history
from .records import Record


# The histories, each one step per epoch: a day of the ranking, a month of the iOS apps list.
HISTORIES = ("ranking", "ios-apps")


class Dataset:
    def __init__(self, fixtures):
        self.catalog = catalog.load(fixtures)
        self.histories = [history.History(os.path.join(fixtures, "history", name)) for name in HISTORIES]
        tracked = set()
        for one in self.histories:
            if tracked & one.base.keys():
                raise catalog.CatalogError(f"{one.directory}: repositories another history tracks too")
            tracked |= one.base.keys()
        self.untracked = [Record(obj) for key, obj in self.catalog.items() if key not in tracked]
        self.cache = {}
        self.lock = threading.Lock()

    @property
    def last_epoch(self):
        return max(one.last_epoch for one in self.histories)

    def steps(self, epoch):
        """The step of each history at `epoch`: {"ranking": "2026-08-09", "ios-apps": "2025-07"}."""
        return {name: one.step(epoch) for name, one in zip(HISTORIES, self.histories)}

    def snapshot(self, epoch):
        """Every repository served at `epoch`; the same snapshot for the same epoch, built once."""
        epoch = min(epoch, self.last_epoch)
        with self.lock:
            if epoch not in self.cache:
                tracked = [
                    Record(history.apply(identifier, self.catalog.get(identifier), fields))
                    for one in self.histories for identifier, fields in one.state(epoch).items()
                ]
                self.cache[epoch] = Snapshot(self.untracked + tracked)
            return self.cache[epoch]


class Snapshot:
    """The repositories of one epoch, and the owners and names that user:, org: and repo: may name."""

    def __init__(self, records):
        self.records = records
        served = [record for record in records if not record.private]
        self.owners = {record.owner for record in served}
        self.full_names = {record.full_name for record in served}
