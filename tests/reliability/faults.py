"""Fault-injecting imitation servers and a fast connector factory for the reliability tests.

The imitation servers already fail with chosen statuses (``fail_next``), answer slowly (``slow_seconds``) and cycle
cursors (``cursor_cycle``). These subclasses add the faults a real network adds: a body cut off mid-way, a body
that is JSON of the wrong shape, and a listing that serves the same page forever under fresh cursors.
"""

from __future__ import annotations

import importlib
import itertools
import json
from collections import deque
from datetime import UTC, datetime, timedelta

from wearables.imitation import LimitlessServer
from wearables.imitation.base import RecordedRequest, Reply, encode_token

KEY = "ll-reliability-key"
sync_module = importlib.import_module("wearables.services.sync")  # the package re-exports the function ``sync``


class FaultyLimitless(LimitlessServer):
    """``corrupt_next(kind, count, after=n)``: after ``n`` good list pages, the next ``count`` list pages are
    ``"truncated"`` (valid JSON cut in half) or ``"malformed"`` (JSON without ``data.lifelogs``).
    ``repeat_forever`` serves page one again and again, each time with a new cursor."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("api_key", KEY)
        super().__init__(*args, **kwargs)
        self._corruptions: deque[str] = deque()
        self._good_before = 0
        self.repeat_forever = False
        self._tokens = itertools.count()

    def corrupt_next(self, kind: str, count: int = 1, *, after: int = 0) -> None:
        self._good_before = after
        self._corruptions.extend([kind] * count)

    def list_lifelogs(self, request: RecordedRequest) -> Reply:
        if self.repeat_forever:
            first = RecordedRequest(request.method, request.path, dict(request.query), request.headers)
            first.query.pop("cursor", None)
            reply = super().list_lifelogs(first)
            reply.body["meta"]["lifelogs"]["nextCursor"] = encode_token({"again": next(self._tokens)})
            return reply
        reply = super().list_lifelogs(request)
        if self._corruptions and self._good_before <= 0:
            kind = self._corruptions.popleft()
            if kind == "truncated":
                text = json.dumps(reply.body)
                return Reply(200, text[: len(text) // 2])
            return Reply(200, {"data": None, "meta": {}})
        self._good_before -= 1
        return reply


def fast_connectors(monkeypatch, *, timeout: float = 0.3, max_retries: int = 3) -> list[float]:
    """Make every sync's connector use a short timeout and record its back-off sleeps instead of sleeping."""
    sleeps: list[float] = []
    real = sync_module.connector_for

    def connector_for(source, **kwargs):
        kwargs.setdefault("sleep", sleeps.append)
        kwargs.setdefault("timeout", timeout)
        kwargs.setdefault("max_retries", max_retries)
        return real(source, **kwargs)

    monkeypatch.setattr(sync_module, "connector_for", connector_for)
    return sleeps


def lines(prefix: str, n: int = 3) -> list[tuple[str, bool, str]]:
    people = [("Priya", False), ("user", True)]
    return [(*people[i % 2], f"{prefix} talked about item number {i} at some length.") for i in range(n)]


def morning(day: str, hour: int, minute: int = 0) -> datetime:
    return datetime.fromisoformat(day).replace(hour=hour, minute=minute, tzinfo=UTC)


def spaced(day: str, count: int) -> list[tuple[str, datetime]]:
    """``count`` conversation ids and starts, ten minutes apart from 08:00 UTC."""
    start = morning(day, 8)
    return [(f"conv-{day}-{i:02d}", start + timedelta(minutes=10 * i)) for i in range(count)]
