"""Imitation of Omi's Integration API (``/v2/integrations/{app_id}/…``) and Developer API (``/v1/dev/user/…``)."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from accounts.timestamps import parse_iso
from wearables.imitation.base import ImitatedConversation, ImitationServer, RecordedRequest, Reply, _seconds, parse_z

INTEGRATION_PATH = re.compile(r"^/v2/integrations/([^/]+)/(conversations|memories)/?$")
DIGITS = re.compile(r"(\d+)")
NAMESPACE = uuid.UUID("0f5e8c1a-7d2b-4c3e-9a10-5b6c7d8e9f00")
DATETIME_STYLES = ("Z", "+00:00")


def stable_id(*parts: str) -> str:
    return str(uuid.uuid5(NAMESPACE, "/".join(parts)))


def speaker_number(label: str) -> int:
    match = DIGITS.search(str(label))
    return int(match.group(1)) if match else 0


class OmiServer(ImitationServer):
    """Serves Omi conversations and memories on both API surfaces.

    Integration auth: ``Authorization: Bearer <app_key>`` (401 when absent/not Bearer, 403 for a wrong key or a
    uid that has not enabled the app, 404 for an unknown app id). Developer auth: ``Bearer <dev_key>`` (401).
    Knobs: ``datetime_style`` ("Z" | "+00:00"); ``max_transcript_segments`` defaults to 100 and silently
    truncates, as the real API does; ``statuses`` (labeled id → "processing"…) and ``discarded`` (labeled ids);
    ``person_ids`` (speaker label → Omi person id); ``memories`` (``{id, content, tags, created_at,
    conversation_id}``); ``user_name`` is the wearer's profile name on the Developer API.
    """

    source = "omi"

    def __init__(
        self,
        days: Any = (),
        *,
        app_key: str = "sk_test_app_key",
        app_id: str = "01JAPPIMITATION",
        user_id: str = "uid_imitation",
        dev_key: str = "omi_dev_test_key",
        user_name: str = "Wearer",
        datetime_style: str = "Z",
        statuses: dict[str, str] | None = None,
        discarded: set[str] | None = None,
        person_ids: dict[str, str] | None = None,
        memories: list[dict] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(days, **kwargs)
        if datetime_style not in DATETIME_STYLES:
            raise ValueError(f"datetime_style must be one of {DATETIME_STYLES}")
        self.app_key = app_key
        self.app_id = app_id
        self.user_id = user_id
        self.dev_key = dev_key
        self.user_name = user_name
        self.datetime_style = datetime_style
        self.statuses = dict(statuses or {})
        self.discarded = set(discarded or ())
        self.person_ids = dict(person_ids or {})
        self.memories = list(memories or [])

    # --- auth and faults ----------------------------------------------------------------------------------
    def authorize(self, request: RecordedRequest) -> Reply | None:
        auth = request.headers.get("authorization", "")
        match = INTEGRATION_PATH.match(request.path)
        if match:
            if not auth.startswith("Bearer "):
                return Reply(401, {"detail": "Missing or invalid Authorization header. Must be 'Bearer API_KEY'"})
            if match.group(1) != self.app_id:
                return Reply(404, {"detail": "App not found"})
            if auth.removeprefix("Bearer ") != self.app_key:
                return Reply(403, {"detail": "Invalid API key"})
            uid = request.param("uid")
            if not uid:
                return Reply(422, {"detail": [{"loc": ["query", "uid"], "msg": "field required", "type": "missing"}]})
            if uid != self.user_id:
                return Reply(403, {"detail": "App is not enabled for this user"})
            return None
        if request.path.startswith("/v1/dev/"):
            if auth != f"Bearer {self.dev_key}":
                return Reply(401, {"detail": "Invalid API key"})
            return None
        return Reply(404, {"detail": "Not Found"})

    def failure_reply(self, status: int, retry_after: float | None) -> Reply:
        headers = {"Retry-After": _seconds(retry_after)} if retry_after is not None else {}
        return Reply(status, {"detail": "Too Many Requests" if status == 429 else "Internal Server Error"}, headers)

    def route(self, request: RecordedRequest) -> Reply:
        match = INTEGRATION_PATH.match(request.path)
        if match:
            return (
                self.integration_list(request)
                if match.group(2) == "conversations"
                else self.integration_memories(request)
            )
        path = request.path.rstrip("/")
        if path == "/v1/dev/user/conversations":
            return self.developer_list(request)
        if path == "/v1/dev/user/memories":
            return self.developer_memories(request)
        return Reply(404, {"detail": "Not Found"})

    # --- shared -------------------------------------------------------------------------------------------
    def stamp(self, moment: datetime) -> str:
        text = moment.astimezone(UTC).isoformat()
        return text.replace("+00:00", "Z") if self.datetime_style == "Z" else text

    def status_of(self, conv: ImitatedConversation) -> str:
        return self.statuses.get(conv.id, "completed")

    def window(self, request: RecordedRequest) -> tuple[datetime | None, datetime | None] | Reply:
        bounds: list[datetime | None] = []
        for name in ("start_date", "end_date"):
            value = request.param(name)
            if not value:
                bounds.append(None)
                continue
            parsed = parse_bound(value, end=name == "end_date")
            if parsed is None:
                return Reply(400, {"detail": f"Invalid {name} format: {value}"})
            bounds.append(parsed)
        return bounds[0], bounds[1]

    def in_window(self, conv: ImitatedConversation, low: datetime | None, high: datetime | None) -> bool:
        return (low is None or conv.started_at >= low) and (high is None or conv.started_at <= high)

    def paging(self, request: RecordedRequest, default_limit: int) -> tuple[int, int] | Reply:
        try:
            limit = int(request.param("limit") or default_limit)
            offset = int(request.param("offset") or 0)
        except ValueError:
            return Reply(422, {"detail": "limit and offset must be integers"})
        if not 1 <= limit <= 1000 or offset < 0:
            return Reply(422, {"detail": "limit must be between 1 and 1000 and offset at least 0"})
        # A cycling server ignores the offset and keeps sending the first page.
        return limit, 0 if self.cursor_cycle else offset

    # --- Integration API ----------------------------------------------------------------------------------
    def integration_list(self, request: RecordedRequest) -> Reply:
        paging, window = self.paging(request, 100), self.window(request)
        for problem in (paging, window):
            if isinstance(problem, Reply):
                return problem
        (limit, offset), (low, high) = paging, window  # type: ignore[misc]
        try:
            max_segments = int(request.param("max_transcript_segments") or 100)
        except ValueError:
            return Reply(422, {"detail": "max_transcript_segments must be an integer"})
        statuses = request.query.get("statuses") or []
        include_discarded = (request.param("include_discarded") or "false").lower() == "true"
        items = [
            c
            for c in self.conversations
            if self.in_window(c, low, high)
            and (not statuses or self.status_of(c) in statuses)
            and (include_discarded or c.id not in self.discarded)
        ]
        items.sort(key=lambda c: c.started_at, reverse=True)
        page = items[offset : offset + limit]
        return Reply(200, {"conversations": [self.integration_item(c, max_segments) for c in page]})

    def integration_item(self, conv: ImitatedConversation, max_segments: int) -> dict:
        segments = []
        for u in conv.utterances:
            segment = {
                "text": u["text"],
                "speaker": f"SPEAKER_{speaker_number(u.get('speaker', '0')):02d}",
                "is_user": bool(u.get("is_wearer")),
                "start": round((parse_z(u["start"]) - conv.started_at).total_seconds(), 3),
                "end": round((parse_z(u["end"]) - conv.started_at).total_seconds(), 3),
            }
            person = self.person_ids.get(u.get("speaker", ""))
            if person:  # nulls are omitted (exclude_none)
                segment["person_id"] = person
            segments.append(segment)
        if max_segments != -1:
            segments = segments[:max_segments]  # silently, like the real API
        return {
            "id": stable_id("conversation", conv.id),
            **self.conversation_stamps(conv),
            "source": "omi",
            "structured": self.structured(conv),
            "transcript_segments": segments,
            "discarded": conv.id in self.discarded,
            "language": "en",
            "status": self.status_of(conv),
        }

    def conversation_stamps(self, conv: ImitatedConversation) -> dict:
        return {
            "created_at": self.stamp(conv.ended_at + timedelta(seconds=3)),
            "started_at": self.stamp(conv.started_at),
            "finished_at": self.stamp(conv.ended_at),
        }

    def structured(self, conv: ImitatedConversation) -> dict:
        """The summary block Omi writes for a conversation (a fixed one here: no model runs)."""
        return {
            "title": f"Conversation on {conv.date}",
            "overview": f"{len(conv.utterances)} transcript segments.",
            "emoji": "🧠",
            "category": "other",
            "action_items": [],
            "events": [],
        }

    def integration_memories(self, request: RecordedRequest) -> Reply:
        paging = self.paging(request, 100)
        if isinstance(paging, Reply):
            return paging
        limit, offset = paging
        items = []
        for m in self.memories[offset : offset + limit]:
            item = {**self.memory(m), "uid": self.user_id, "app_id": self.app_id}
            if m.get("conversation_id"):
                item["memory_id"] = item["conversation_id"] = stable_id("conversation", m["conversation_id"])
            items.append({k: v for k, v in item.items() if v is not None})
        return Reply(200, {"memories": items})

    def memory(self, m: dict) -> dict:
        created = parse_z(m["created_at"]) if m.get("created_at") else datetime(2026, 1, 1, tzinfo=UTC)
        return {
            "id": str(m["id"]),
            "content": m["content"],
            "category": m.get("category", "interesting"),
            "visibility": "private",
            "tags": list(m.get("tags", [])),
            "created_at": self.stamp(created),
            "updated_at": self.stamp(created),
            "manually_added": False,
            "scoring": f"00_998_{int(created.timestamp())}",
            "reviewed": False,
            "user_review": None,
            "edited": False,
        }

    # --- Developer API ------------------------------------------------------------------------------------
    def developer_list(self, request: RecordedRequest) -> Reply:
        paging, window = self.paging(request, 25), self.window(request)
        for problem in (paging, window):
            if isinstance(problem, Reply):
                return problem
        (limit, offset), (low, high) = paging, window  # type: ignore[misc]
        with_transcript = (request.param("include_transcript") or "false").lower() == "true"
        # The Developer API hard-codes completed, non-discarded conversations.
        items = [
            c
            for c in self.conversations
            if self.in_window(c, low, high) and self.status_of(c) == "completed" and c.id not in self.discarded
        ]
        items.sort(key=lambda c: c.started_at, reverse=True)
        return Reply(200, [self.developer_item(c, with_transcript) for c in items[offset : offset + limit]])

    def developer_item(self, conv: ImitatedConversation, with_transcript: bool) -> dict:
        item_id = stable_id("conversation", conv.id)
        segments = []
        for index, u in enumerate(conv.utterances):
            number = speaker_number(u.get("speaker", "0"))
            segments.append(
                {
                    "id": stable_id("segment", conv.id, str(index)),
                    "text": u["text"],
                    "speaker_id": number,
                    "speaker_name": self.user_name if u.get("is_wearer") else f"Speaker {number}",
                    "start": round((parse_z(u["start"]) - conv.started_at).total_seconds(), 3),
                    "end": round((parse_z(u["end"]) - conv.started_at).total_seconds(), 3),
                }
            )
        item = {
            "id": item_id,
            **self.conversation_stamps(conv),
            "structured": self.structured(conv),
            "language": "en",
            "source": "omi",
            "geolocation": None,
            "folder_id": None,
            "folder_name": None,
        }
        if with_transcript:
            item["transcript_segments"] = segments
        return item

    def developer_memories(self, request: RecordedRequest) -> Reply:
        paging = self.paging(request, 25)
        if isinstance(paging, Reply):
            return paging
        limit, offset = paging
        return Reply(200, [self.memory(m) for m in self.memories[offset : offset + limit]])


def parse_bound(value: str, *, end: bool) -> datetime | None:
    """``YYYY-MM-DD`` (start → 00:00:00Z, end → 23:59:59.999999Z) or ISO-8601 with ``Z`` or an offset."""
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            return datetime.combine(day, time.max if end else time.min, tzinfo=UTC)
        return parse_iso(value)
    except ValueError:
        return None
