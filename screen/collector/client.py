"""HTTP only: ScreenPipe's local API (``/search``, ``/frames/{id}``, ``/health``). No auth, loopback by default.

Wire format (see ``/work/shared/research/provider-apis.md`` §4): ``/search`` answers ``{"data": [{"type": "OCR",
"content": {...}}, ...], "pagination": {"limit", "offset", "total"}}``; results of the screenpipe app itself are
dropped after counting, so a page may be shorter than ``limit`` while ``total`` is larger; pagination therefore
runs on ``offset`` against ``total``. ``content_type=ui`` is gone in current builds (400) and is never sent;
``UI``, ``Input`` and ``Memory`` items are accepted, unknown types ignored.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx
import tenacity

from accounts.exceptions import DomainError
from accounts.timestamps import parse_iso
from ledger.redaction import redact_text
from screen.text import redact_screen

RETRYABLE = frozenset({408, 429, 500, 502, 503, 504})
MAX_BACKOFF_SECONDS = 30.0
PAGE = 500


class ScreenPipeError(DomainError):
    """ScreenPipe could not be reached or answered with an error."""

    status_code = 502


class _Retry(Exception):
    """One attempt worth retrying (tenacity retries on it; the last one becomes a ScreenPipeError)."""


def rfc3339(dt: datetime) -> str:
    """UTC with microseconds: a frame's timestamp must survive the round trip exactly (no rounding)."""
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_ts(value: str) -> datetime:
    """A ScreenPipe timestamp (nanosecond fractions, ``Z``) as aware UTC; raises ``ValueError``."""
    return parse_iso(value).astimezone(UTC)


@dataclass(frozen=True)
class Item:
    """One ScreenPipe content item, normalised: ``kind`` OCR | Audio | UI | Input | Memory."""

    kind: str
    id: int
    at: datetime
    text: str
    app_name: str = ""
    window_name: str = ""
    url: str = ""
    device: str = ""
    speaker: str = ""
    device_type: str = ""  # audio: "Input" (this machine's microphone) | "Output" (what its speakers played)

    @property
    def sort_key(self) -> tuple:
        return (self.at, self.kind, self.id)

    @property
    def cursor_key(self) -> str:
        return f"{self.kind}:{self.id}"


def to_item(raw: dict) -> Item | None:
    """A raw content item as an ``Item``; its text goes through the structural redactor here, before anything
    of it is kept (codes, card, account and ID numbers, passwords on a screen or in a call)."""
    kind, c = raw.get("type"), raw.get("content") or {}
    try:
        if kind == "OCR":
            return Item(
                "OCR",
                int(c["frame_id"]),
                parse_ts(c["timestamp"]),
                redact_screen(c.get("text") or ""),
                c.get("app_name") or "",
                c.get("window_name") or "",
                c.get("browser_url") or "",
                c.get("device_name") or "",
            )
        if kind == "Audio":
            speaker = (c.get("speaker") or {}).get("name") or ""
            return Item(
                "Audio",
                int(c["chunk_id"]),
                parse_ts(c["timestamp"]),
                redact_text(c.get("transcription") or ""),
                device=c.get("device_name") or "",
                speaker=speaker,
                device_type=c.get("device_type") or "",
            )
        if kind == "UI":
            return Item(
                "UI",
                int(c["id"]),
                parse_ts(c["timestamp"]),
                redact_screen(c.get("text") or ""),
                c.get("app_name") or "",
                c.get("window_name") or "",
                c.get("browser_url") or "",
            )
    except (KeyError, TypeError, ValueError):
        return None
    return None  # Input, Memory and unknown types carry nothing the collector uses


class ScreenPipeClient:
    """``search``/``iter_search``/``frame``/``health`` with a timeout and up to 3 retries (network, 429, 5xx)."""

    def __init__(self, base_url: str, *, timeout: float = 30.0, retries: int = 3, backoff: float = 1.0):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.requests = 0
        self._http = httpx.Client(timeout=timeout)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ScreenPipeClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _get(self, path: str, params: dict | None = None) -> httpx.Response:
        """One GET with ``retries`` more tries on network errors and RETRYABLE answers, waiting ``backoff``
        seconds, then doubling (capped at 30 s). A 404 is an answer (the caller decides what it means)."""
        retrying = tenacity.Retrying(
            retry=tenacity.retry_if_exception_type(_Retry),
            stop=tenacity.stop_after_attempt(self.retries + 1),
            wait=lambda state: min(MAX_BACKOFF_SECONDS, self.backoff * 2 ** (state.attempt_number - 1)),
            sleep=time.sleep,
            reraise=True,
        )
        try:
            return retrying(self._attempt, path, params)
        except _Retry as last:
            raise ScreenPipeError(str(last)) from None

    def _attempt(self, path: str, params: dict | None) -> httpx.Response:
        self.requests += 1
        try:
            resp = self._http.get(self.base_url + path, params=params)
        except httpx.HTTPError as exc:
            raise _Retry(f"ScreenPipe at {self.base_url} is unreachable ({type(exc).__name__})") from exc
        if resp.status_code < 400 or resp.status_code == 404:
            return resp
        message = f"ScreenPipe answered {resp.status_code} on {path}"
        if resp.status_code in RETRYABLE:
            raise _Retry(message)
        raise ScreenPipeError(message)

    def search(
        self, *, content_type: str, start: datetime, end: datetime, limit: int = PAGE, offset: int = 0, **filters
    ) -> dict:
        params = {
            "content_type": content_type,
            "start_time": rfc3339(start),
            "end_time": rfc3339(end),
            "limit": limit,
            "offset": offset,
            **{k: v for k, v in filters.items() if v not in (None, "")},
        }
        resp = self._get("/search", params)
        if resp.status_code == 404:
            raise ScreenPipeError("ScreenPipe has no /search endpoint at this URL")
        try:
            body = resp.json()
        except ValueError as exc:
            raise ScreenPipeError("ScreenPipe answered /search with a body that is not JSON") from exc
        if not isinstance(body, dict) or not isinstance(body.get("data"), list):
            raise ScreenPipeError("ScreenPipe /search answer has no data list")
        return body

    def iter_search(
        self,
        *,
        content_type: str,
        start: datetime,
        end: datetime,
        max_items: int | None = None,
        page: int = PAGE,
        **filters,
    ) -> Iterator[Item]:
        """Every item in [start, end], page by page (offset against total), as ``Item``s in server order."""
        offset, seen = 0, 0
        while True:
            limit = page if max_items is None else max(1, min(page, max_items - seen))
            body = self.search(content_type=content_type, start=start, end=end, limit=limit, offset=offset, **filters)
            data = body["data"]
            for raw in data:
                item = to_item(raw)
                if item is not None:
                    seen += 1
                    yield item
                    if max_items is not None and seen >= max_items:
                        return
            total = int((body.get("pagination") or {}).get("total") or 0)
            offset += limit
            if offset >= total or (not data and offset >= total):
                return

    def frame(self, frame_id: int) -> tuple[bytes, str] | None:
        """The frame's image bytes and content type, or None when ScreenPipe no longer has it."""
        resp = self._get(f"/frames/{int(frame_id)}")
        if resp.status_code == 404:
            return None
        return resp.content, resp.headers.get("content-type", "image/jpeg").split(";")[0]

    def health(self) -> dict:
        resp = self._get("/health")
        try:
            return resp.json()
        except ValueError:
            return {}
