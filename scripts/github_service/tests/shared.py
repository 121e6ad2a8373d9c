"""The shipped data, loaded once for every test module (loading takes about a second)."""

import functools
import os
import types

from github_service.dataset import Dataset

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "Tests", "Fixtures", "github")


@functools.cache
def dataset():
    return Dataset(FIXTURES)


def options(**changes):
    """The service's options with their command-line defaults, changed as asked."""
    values = dict(
        rate_limit=30, rate_window=60, secondary_limit=0, secondary_retry_after=60, latency=0, epoch=0,
        drift_searches=0, drift_seconds=0, fault=None)
    values.update(changes)
    return types.SimpleNamespace(**values)
