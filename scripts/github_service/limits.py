"""GitHub's two rate limits, per client: a budget of requests per window (primary), and a cap on
requests per second (secondary). The clock is passed in, so tests can drive it."""

import collections
import math


class RateStatus:
    """What the X-RateLimit-* headers say after a request."""

    def __init__(self, limit, remaining, used, reset):
        self.limit, self.remaining, self.used, self.reset = limit, remaining, used, reset

    def headers(self):
        return {
            "X-RateLimit-Limit": str(self.limit), "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset), "X-RateLimit-Used": str(self.used),
            "X-RateLimit-Resource": "search",
        }


class PrimaryLimit:
    """`limit` requests per `window` seconds. A window starts with the first request after the
    last one ended, as GitHub's do; its reset is announced rounded up to the second, so that a
    client waiting for it is never early."""

    def __init__(self, limit, window):
        self.limit, self.window = limit, window
        self.windows = {}  # client -> [start, used]

    def current(self, client, now):
        entry = self.windows.get(client)
        if entry is None or now >= entry[0] + self.window:
            entry = self.windows[client] = [now, 0]
        return entry

    def status(self, client, now):
        entry = self.windows.get(client)
        start, used = (now, 0) if entry is None or now >= entry[0] + self.window else entry
        reset = math.ceil(start + self.window)
        return RateStatus(self.limit, max(self.limit - used, 0), used, reset)

    def take(self, client, now):
        """Counts one request; False when the window's budget was already spent."""
        entry = self.current(client, now)
        if entry[1] >= self.limit:
            return False
        entry[1] += 1
        return True


class SecondaryLimit:
    """More than `per_second` requests within a second blocks the client for `retry_after`
    seconds; requests while blocked are refused and count for nothing. 0 turns it off."""

    def __init__(self, per_second, retry_after):
        self.per_second, self.retry_after = per_second, retry_after
        self.recent = collections.defaultdict(collections.deque)
        self.blocked_until = {}

    def check(self, client, now):
        """None when the request may go on, else the seconds to put in Retry-After."""
        if self.per_second <= 0:
            return None
        until = self.blocked_until.get(client)
        if until is not None and now < until:
            return max(1, math.ceil(until - now))
        recent = self.recent[client]
        while recent and recent[0] <= now - 1:
            recent.popleft()
        if len(recent) >= self.per_second:
            recent.clear()
            self.blocked_until[client] = now + self.retry_after
            return self.retry_after
        recent.append(now)
        return None
