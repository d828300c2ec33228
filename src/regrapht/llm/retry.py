"""When and how long to wait before trying an HTTP call again."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

# Statuses worth another try: rate limits and server-side failures. Other 4xx are our fault and
# repeating them only hides the problem.
RETRYABLE_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUSES or status >= 500


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter: before retry k (k = 0, 1, ...) wait between half and all of
    min(max_delay_s, base_delay_s * 2**k). A server's Retry-After wins when it asks for longer, as
    long as it stays under max_retry_after_s (beyond that we give up and say why)."""

    max_retries: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    max_retry_after_s: float = 300.0

    def backoff(self, retry_index: int, rng: random.Random | None = None) -> float:
        ceiling = min(self.max_delay_s, self.base_delay_s * (2**retry_index))
        r = rng.random() if rng is not None else random.random()
        return ceiling / 2 + r * ceiling / 2

    def delay(self, retry_index: int, retry_after_s: float | None, rng: random.Random | None = None) -> float:
        backoff = self.backoff(retry_index, rng)
        if retry_after_s is None:
            return backoff
        # Honour the server's wish exactly, plus a little jitter so parallel clients spread out.
        jitter = (rng.random() if rng is not None else random.random()) * min(0.1 * retry_after_s, 1.0)
        return retry_after_s + jitter


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds (fractions accepted) or an HTTP
    date. None when absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    current = now or datetime.now(timezone.utc)
    return max(0.0, (when - current).total_seconds())
