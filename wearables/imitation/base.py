"""A tiny threaded HTTP server that imitates one provider, fed with days in the labeled-days JSON shape.

Subclasses route requests and render the provider's real wire format; this class owns the socket, auth
hooks, fault injection (``fail_next``, ``slow_seconds``, ``cursor_cycle``) and the request log.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from accounts.loopback import LoopbackServer
from accounts.timestamps import parse_iso


@dataclass
class RecordedRequest:
    """One request the server saw: ``query`` maps each name to all its values (repeated params kept)."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    status: int = 0

    def param(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[0] if values else None


@dataclass
class Reply:
    status: int
    body: Any = None  # dict/list → JSON; str → text/plain
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class ImitatedConversation:
    """A labeled-days conversation plus the day it came from (for its timezone)."""

    id: str
    started_at: datetime
    ended_at: datetime
    utterances: list[dict]
    timezone: str
    date: str


def parse_z(value: str) -> datetime:
    """Labeled-days timestamps (``...Z``) as aware UTC datetimes."""
    return parse_iso(value).astimezone(UTC)


def encode_token(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data, sort_keys=True).encode()).decode().rstrip("=")


def decode_token(token: str) -> dict | None:
    try:
        padded = token + "=" * (-len(token) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (ValueError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None


class ImitationServer(LoopbackServer):
    """Base class: ``start() -> self``, ``base_url``, ``stop()``; also a context manager.

    Inputs: ``days`` (labeled-days dicts; only recordings whose ``source`` equals ``source`` are served).
    Knobs (plain attributes, change them any time): ``slow_seconds`` delay before every reply,
    ``cursor_cycle`` makes pagination loop back to the start instead of ending, and ``fail_next(...)``.
    ``requests`` logs every request for assertions.
    """

    source = ""

    def __init__(self, days: Iterable[dict] = (), *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port
        self.conversations: list[ImitatedConversation] = []
        self.slow_seconds = 0.0
        self.cursor_cycle = False
        self.requests: list[RecordedRequest] = []
        self._failures: deque[tuple[int, float | None]] = deque()
        self._lock = threading.Lock()
        self.add_days(days)

    # --- data ---------------------------------------------------------------------------------------------
    def add_days(self, days: Iterable[dict]) -> None:
        """Add every conversation this provider recorded on the given days (kept sorted by start)."""
        for day in days:
            for recording in day.get("recordings", []):
                if recording.get("source") != self.source:
                    continue
                for conv in recording.get("conversations", []):
                    self.conversations.append(
                        ImitatedConversation(
                            id=conv["id"],
                            started_at=parse_z(conv["started_at"]),
                            ended_at=parse_z(conv["ended_at"]),
                            utterances=list(conv.get("utterances", [])),
                            timezone=day.get("timezone", "UTC"),
                            date=day.get("date", ""),
                        )
                    )
        self.conversations.sort(key=lambda c: (c.started_at, c.id))

    # --- faults -------------------------------------------------------------------------------------------
    def fail_next(self, status: int, count: int = 1, retry_after: float | None = None) -> None:
        """The next ``count`` requests (any path, after auth) answer ``status``; 429s carry ``retry_after``."""
        with self._lock:
            self._failures.extend([(status, retry_after)] * count)

    def failure_reply(self, status: int, retry_after: float | None) -> Reply:
        """How this provider words an injected failure; subclasses match the provider's error bodies."""
        headers = {"Retry-After": _seconds(retry_after)} if retry_after is not None else {}
        return Reply(status, {"error": "Rate limit exceeded" if status == 429 else "Internal Server Error"}, headers)

    # --- lifecycle (accounts.loopback) ----------------------------------------------------------------------
    @property
    def thread_name(self) -> str:
        return f"imitation-{self.source}"

    @property
    def handler_base(self) -> type:
        return _Handler

    # --- dispatch -----------------------------------------------------------------------------------------
    def dispatch(self, method: str, raw_path: str, headers: dict[str, str]) -> Reply:
        parts = urlsplit(raw_path)
        record = RecordedRequest(method, parts.path, parse_qs(parts.query, keep_blank_values=True), headers)
        with self._lock:
            self.requests.append(record)
        if self.slow_seconds:
            time.sleep(self.slow_seconds)
        reply = self.authorize(record)
        if reply is None:
            with self._lock:
                failure = self._failures.popleft() if self._failures else None
            reply = self.failure_reply(*failure) if failure else self.route(record)
        record.status = reply.status
        return reply

    def authorize(self, request: RecordedRequest) -> Reply | None:
        """None when the request may proceed, else the provider's auth error reply."""
        return None

    def route(self, request: RecordedRequest) -> Reply:  # pragma: no cover - every subclass routes
        raise NotImplementedError


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


class _Handler(BaseHTTPRequestHandler):
    imitation: ImitationServer
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; with Nagle on, delayed ACKs add ~40 ms to every reply.
    disable_nagle_algorithm = True

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        self._answer("GET")

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        self._answer("POST")

    def _answer(self, method: str) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            reply = self.imitation.dispatch(method, self.path, headers)
        except Exception as exc:  # an imitation bug must show up as a 500, not a hung client
            reply = Reply(500, {"error": f"imitation server error: {type(exc).__name__}: {exc}"})
        if isinstance(reply.body, str):
            payload, content_type = reply.body.encode(), "text/plain; charset=utf-8"
        else:
            payload, content_type = json.dumps(reply.body, ensure_ascii=False).encode(), "application/json"
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout test); nothing to tell it

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass
