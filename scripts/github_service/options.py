"""The command line of scripts/github-service."""

import argparse
import os

from .service import FAULTS

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.normpath(os.path.join(HERE, "..", "..", "Tests", "Fixtures", "github"))

DESCRIPTION = """\
A local GitHub search service: GET /search/repositories answered like api.github.com from the
repositories in Tests/Fixtures/github, whose stars, names and membership drift by one day of real
GitHub history per epoch. Prints "listening on http://127.0.0.1:PORT" once it accepts connections,
then serves in the foreground until SIGTERM or Ctrl-C. Docs/GitHubClient.md describes it."""


def bounded(low, high=None, kind=int):
    def convert(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
        if value < low or high is not None and value > high:
            raise argparse.ArgumentTypeError(f"{text} is outside {low}..{'' if high is None else high}")
        return value
    return convert


def parse(arguments):
    parser = argparse.ArgumentParser(prog="github-service", description=DESCRIPTION)
    add = parser.add_argument
    add("--port", type=bounded(0, 65535), default=0, help="port on 127.0.0.1; 0 (the default) picks a free one")
    add("--rate-limit", type=bounded(1), default=30, metavar="N", help="searches per window (default 30)")
    add("--rate-window", type=bounded(1), default=60, metavar="SECONDS", help="the window (default 60)")
    add("--secondary-limit", type=bounded(0), default=10, metavar="K",
        help="more than K searches within a second trip the secondary limit (default 10; 0: off)")
    add("--secondary-retry-after", type=bounded(1), default=60, metavar="SECONDS",
        help="Retry-After of the secondary limit, and how long it holds (default 60)")
    add("--latency", type=bounded(0, 600_000), default=0, metavar="MS", help="delay every answer (default 0)")
    add("--epoch", type=bounded(0), default=0, metavar="E", help="the day of history to start at (default 0)")
    add("--drift-searches", type=bounded(0), default=1, metavar="N",
        help="advance one day every N searches answered (default 1; 0: never)")
    add("--drift-seconds", type=bounded(0, kind=float), default=0, metavar="SECONDS",
        help="also advance one day every SECONDS (default 0: never)")
    add("--fault", choices=FAULTS, help="break every search answer this way (close-mid-body: cut the body short)")
    add("--fixtures", default=FIXTURES, metavar="DIR", help="the data (default Tests/Fixtures/github)")
    add("--log", action="store_true", help="one line per request on standard error")
    add("--exit-on-stdin-eof", action="store_true",
        help="stop when standard input closes (so a test's service dies with the test)")
    return parser.parse_args(arguments)
