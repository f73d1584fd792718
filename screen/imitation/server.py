"""A local imitation of ScreenPipe's HTTP API (port 3030 in real life), serving a scripted ``Session``.

Speaks the real wire format (``/search`` with ``{"data": [{"type", "content"}], "pagination"}``, binary
``/frames/{id}``, ``/health``, JSON ``{"error": ...}`` errors). Knobs for tests: ``now`` (frames after it are not
captured yet), ``fail_next(status, count)``, ``missing_frames`` (ids whose image is gone: 404), and ``requests``
(every request, for asserting that only bounded evidence was asked).

Frame images are tiny generated PNGs (no imaging library needed); the content type says so.
"""

from __future__ import annotations

import bisect
import json
import struct
import threading
import zlib
from collections import deque
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from accounts.loopback import LoopbackServer
from screen.collector.client import parse_ts, rfc3339
from screen.imitation.scripts import Session

CONTENT_TYPES = {"all", "ocr", "audio", "accessibility", "input", "memory"}


@dataclass
class Recorded:
    path: str
    query: dict[str, str]
    status: int = 0


def png(frame_id: int, width: int = 48, height: int = 27) -> bytes:
    """A small solid-colour PNG whose colour depends on the frame id."""
    r, g, b = (frame_id * 53) % 256, (frame_id * 97) % 256, (frame_id * 151) % 256
    row = b"\x00" + bytes((r, g, b)) * width
    raw = row * height

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


class ScreenPipeImitation(LoopbackServer):
    """``start() -> self``, ``base_url``, ``stop()``; a context manager too."""

    def __init__(self, session: Session, *, host: str = "127.0.0.1", port: int = 0, now: datetime | None = None):
        self.session = session
        self.host, self.port = host, port
        self.now = now
        self.missing_frames: set[int] = set()
        self.requests: list[Recorded] = []
        self._failures: deque[int] = deque()
        self._lock = threading.Lock()
        self._reindex()

    def _reindex(self) -> None:
        self._frame_times = [f.at for f in self.session.frames]
        self._by_id = {f.id: f for f in self.session.frames}

    def replace_session(self, session: Session) -> None:
        """Swap the served data (e.g. ScreenPipe's database was reset: a restart with new frame ids)."""
        with self._lock:
            self.session = session
            self._reindex()

    def fail_next(self, status: int, count: int = 1) -> None:
        with self._lock:
            self._failures.extend([status] * count)

    # --- lifecycle (accounts.loopback) ----------------------------------------------------------------------
    thread_name = "screenpipe"

    @property
    def handler_base(self) -> type:
        return _Handler

    # --- routes -----------------------------------------------------------------------------------------
    def dispatch(self, raw_path: str) -> tuple[int, object, str]:
        parts = urlsplit(raw_path)
        query = {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        record = Recorded(parts.path, query)
        with self._lock:
            self.requests.append(record)
            failure = self._failures.popleft() if self._failures else None
        if failure:
            status, body, ctype = failure, {"error": "injected failure"}, "application/json"
        elif parts.path == "/search":
            status, body, ctype = self.search(query)
        elif parts.path.startswith("/frames/"):
            status, body, ctype = self.frame(parts.path.removeprefix("/frames/"))
        elif parts.path == "/health":
            status, body, ctype = 200, self.health(), "application/json"
        else:
            status, body, ctype = 404, {"error": "not found"}, "application/json"
        record.status = status
        return status, body, ctype

    def _visible_until(self) -> datetime:
        return self.now or datetime.now(UTC)

    def search(self, q: dict[str, str]) -> tuple[int, object, str]:
        ctype = (q.get("content_type") or "all").lower()
        if ctype not in CONTENT_TYPES:
            # Like axum's Query rejection: plain text, 400 (``ui``/``vision`` were removed in 2026).
            return 400, f"Failed to deserialize query string: unknown variant `{ctype}`", "text/plain"
        try:
            start = parse_ts(q["start_time"]) if q.get("start_time") else datetime.min.replace(tzinfo=UTC)
            end = parse_ts(q["end_time"]) if q.get("end_time") else self._visible_until()
            limit, offset = int(q.get("limit", 20)), int(q.get("offset", 0))
        except (ValueError, KeyError):
            return 400, {"error": "invalid query parameters"}, "application/json"
        end = min(end, self._visible_until())
        items = self._matching(ctype, start, end, q)
        total = len(items)
        # Newest first, like ScreenPipe; its own app's results vanish after counting.
        page = [i for i in items[::-1][offset : offset + limit] if "screenpipe" not in i["content"].get("app_name", "")]
        return 200, {"data": page, "pagination": {"limit": limit, "offset": offset, "total": total}}, "application/json"

    def _matching(self, ctype: str, start: datetime, end: datetime, q: dict[str, str]) -> list[dict]:
        out: list[tuple] = []
        if ctype in ("all", "ocr"):
            lo = bisect.bisect_left(self._frame_times, start)
            hi = bisect.bisect_right(self._frame_times, end)
            app, window = q.get("app_name"), q.get("window_name")
            for f in self.session.frames[lo:hi]:
                if (app and f.app != app) or (window and f.window != window):
                    continue
                out.append((f.at, 0, f.id, _ocr(f)))
        if ctype in ("all", "audio"):
            out += [(a.at, 1, a.id, _audio(a)) for a in self.session.audio if start <= a.at <= end]
        if ctype in ("all", "accessibility"):
            out += [(u.at, 2, u.id, _ui(u)) for u in self.session.ui if start <= u.at <= end]
        out.sort(key=lambda t: t[:3])
        return [t[3] for t in out]

    def frame(self, ident: str) -> tuple[int, object, str]:
        try:
            frame_id = int(ident.split("/")[0])
        except ValueError:
            return 400, {"error": "invalid frame id"}, "application/json"
        frame = self._by_id.get(frame_id)
        if frame is None or frame_id in self.missing_frames or frame.at > self._visible_until():
            return 404, {"error": "Frame not found", "frame_id": frame_id}, "application/json"
        return 200, png(frame_id), "image/png"

    def health(self) -> dict:
        until = self._visible_until()
        idx = bisect.bisect_right(self._frame_times, until)
        last = self.session.frames[idx - 1].at if idx else None
        return {
            "status": "healthy",
            "status_code": 200,
            "last_frame_timestamp": rfc3339(last) if last else None,
            "last_audio_timestamp": None,
            "frame_status": "ok" if last else "not_started",
            "audio_status": "ok",
            "message": "all systems are running normally",
            "verbose_instructions": None,
            "device_status_details": None,
            "vision_db_write_stalled": False,
            "audio_db_write_stalled": False,
        }


def _ocr(f) -> dict:
    return {
        "type": "OCR",
        "content": {
            "frame_id": f.id,
            "text": f.text,
            "timestamp": rfc3339(f.at),
            "file_path": f"/Users/wren/.screenpipe/data/monitor_1_{f.at:%Y-%m-%d_%H-%M}.mp4",
            "offset_index": f.id % 60,
            "app_name": f.app,
            "window_name": f.window,
            "tags": [],
            "frame": None,
            "frame_name": f.window,
            "browser_url": f.url or None,
            "focused": True,
            "device_name": "monitor_1",
        },
    }


def _device(a) -> str:
    return "MacBook Pro Speakers" if a.device_type == "Output" else "MacBook Pro Microphone"


def _audio(a) -> dict:
    return {
        "type": "Audio",
        "content": {
            "chunk_id": a.id,
            "transcription": a.text,
            "timestamp": rfc3339(a.at),
            "file_path": f"/Users/wren/.screenpipe/data/{_device(a)} ({a.device_type.lower()})_{a.at:%Y-%m-%d_%H-%M}.mp4",
            "offset_index": 0,
            "tags": [],
            "device_name": _device(a),
            "device_type": a.device_type,
            "speaker": {"id": sum(map(ord, a.speaker)) % 1000, "name": a.speaker, "metadata": ""}
            if a.speaker
            else None,
            "start_time": 0.0,
            "end_time": 4.0,
        },
    }


def _ui(u) -> dict:
    return {
        "type": "UI",
        "content": {
            "id": u.id,
            "text": u.text,
            "timestamp": rfc3339(u.at),
            "app_name": u.app,
            "window_name": u.window,
            "initial_traversal_at": rfc3339(u.at),
            "file_path": "",
            "offset_index": 0,
            "frame_name": None,
            "browser_url": None,
        },
    }


class _Handler(BaseHTTPRequestHandler):
    imitation: ScreenPipeImitation
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        try:
            status, body, ctype = self.imitation.dispatch(self.path)
        except Exception as exc:  # an imitation bug shows as a 500, not a hung client
            status, body, ctype = 500, {"error": f"imitation error: {type(exc).__name__}"}, "application/json"
        if isinstance(body, bytes):
            payload = body
        elif isinstance(body, str):
            payload = body.encode()
        else:
            payload = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - stdlib signature
        pass
