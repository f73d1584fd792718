"""The contract every provider connector follows.

A connector is dumb on purpose: it speaks one provider's wire format over HTTP and returns plain
dataclasses. Everything after that (cleanup, redaction, speaker labels, storage) is the shared pipeline.

Contract:
- ``Connector(base_url=..., credentials={...}, timeout=..., max_retries=..., sleep=time.sleep)``
- ``fetch_day(local_date, tz)`` returns every conversation that *starts* on that local day, never page-capped,
  with warnings (cursor cycles, skipped records) instead of silent loss.
- ``fetch_native_memories()`` returns the provider's own facts/memories (empty where it has none).
- ``check()`` makes one cheap authenticated call and says clearly what is wrong.
- Failures raise ``ProviderError(message, permanent=bool, status=int|None)``. Messages never contain a
  credential: build them from the status and the provider's error text only.
"""

from __future__ import annotations

import abc
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from zoneinfo import ZoneInfo

from accounts.exceptions import DomainError


class ProviderError(DomainError):
    """A provider call failed. ``permanent`` is False for faults worth retrying later (429, 5xx, network);
    ``unanswered`` when no answer came at all (unreachable, or timed out on every attempt)."""

    status_code = 502

    def __init__(self, message: str, *, permanent: bool = False, status: int | None = None):
        super().__init__(message)
        self.permanent = permanent
        self.status = status
        self.unanswered = False


@dataclass
class RawUtterance:
    """One utterance as the provider gave it, times as aware UTC datetimes (None where the provider has none)."""

    text: str
    speaker_label: str | None = None  # provider's label: "user"/display name, "0"/"SPEAKER_1", "SPEAKER_00"
    speaker_name: str | None = None  # a human name when the provider knows one
    is_wearer: bool | None = None  # the provider's own wearer flag; None when it has none (Bee)
    person_id: str | None = None  # a stable provider identity (Omi person id)
    started_at: datetime | None = None
    ended_at: datetime | None = None


@dataclass
class RawConversation:
    source: str  # "limitless" | "bee" | "omi"
    external_id: str
    started_at: datetime  # aware, UTC
    ended_at: datetime | None = None
    title: str = ""
    utterances: list[RawUtterance] = field(default_factory=list)
    meta: dict = field(default_factory=dict)


@dataclass
class NativeMemory:
    """A provider's own fact or memory (Bee facts, Omi memories)."""

    source: str
    external_id: str
    text: str
    created_at: datetime | None = None
    tags: list[str] = field(default_factory=list)
    conversation_external_id: str | None = None


@dataclass
class FetchResult:
    conversations: list[RawConversation] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    pages: int = 0
    complete: bool = True  # False when paging was stopped early (a looping cursor): the day may be missing items


@dataclass
class CheckResult:
    ok: bool
    message: str


class Connector(abc.ABC):
    kind: str = ""

    def __init__(
        self,
        *,
        base_url: str,
        credentials: dict | None = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.credentials = credentials or {}
        self.timeout = timeout
        self.max_retries = max_retries
        self.sleep = sleep

    @abc.abstractmethod
    def fetch_day(self, local_date: date, tz: ZoneInfo) -> FetchResult: ...

    def fetch_native_memories(self) -> list[NativeMemory]:
        return []

    @abc.abstractmethod
    def check(self) -> CheckResult: ...
