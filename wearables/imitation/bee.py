"""Imitation of the Bee API as the local ``bee proxy`` serves it (or the direct host with a Bearer token)."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from wearables.imitation.base import (
    ImitatedConversation,
    ImitationServer,
    RecordedRequest,
    Reply,
    decode_token,
    encode_token,
    parse_z,
)

LABEL_STYLES = ("0", "SPEAKER_1", "speaker_1")
DIGITS = re.compile(r"(\d+)")


def ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def styled_label(label: str, style: str) -> str:
    """A labeled-days Bee label ("0", "1", …) in one of the forms seen in the wild."""
    match = DIGITS.search(str(label))
    if not match:
        return str(label)
    number = int(match.group(1))
    return {"0": str(number), "SPEAKER_1": f"SPEAKER_{number}", "speaker_1": f"speaker_{number}"}[style]


class BeeServer(ImitationServer):
    """Serves ``/v1/conversations``, ``/v1/conversations/{id}``, ``/v1/facts`` and ``/v1/me``.

    ``token`` None imitates the proxy (no auth); a string requires ``Authorization: Bearer <token>`` (401).
    Paths outside ``/v1`` get the proxy's plain-text 404. Knobs: ``label_style`` ("0" | "SPEAKER_1" |
    "speaker_1"), ``null_times`` (utterance start/end/spoken_at null), ``wrap_detail`` (``{"conversation": …}``
    or top-level), ``states`` (labeled id → state, e.g. "CAPTURING"), ``facts`` (list of
    ``{id, text, tags, created_at, confirmed}``). Utterances are listed out of order; clients must sort.
    """

    source = "bee"

    def __init__(
        self,
        days: Any = (),
        *,
        token: str | None = None,
        label_style: str = "0",
        null_times: bool = False,
        wrap_detail: bool = True,
        states: dict[str, str] | None = None,
        facts: list[dict] | None = None,
        default_limit: int = 20,
        **kwargs: Any,
    ) -> None:
        if label_style not in LABEL_STYLES:
            raise ValueError(f"label_style must be one of {LABEL_STYLES}")
        self.numeric_ids: dict[str, int] = {}
        super().__init__(days, **kwargs)
        self.token = token
        self.label_style = label_style
        self.null_times = null_times
        self.wrap_detail = wrap_detail
        self.states = dict(states or {})
        self.facts = list(facts or [])
        self.default_limit = default_limit

    def add_days(self, days: Any) -> None:
        super().add_days(days)
        for conv in self.conversations:
            self.numeric_ids.setdefault(conv.id, 48000 + len(self.numeric_ids) + 1)

    def authorize(self, request: RecordedRequest) -> Reply | None:
        if not request.path.startswith("/v1"):
            return Reply(404, "Not Found")
        if self.token is not None and request.headers.get("authorization") != f"Bearer {self.token}":
            return Reply(401, {"error": "Unauthorized"})
        return None

    def route(self, request: RecordedRequest) -> Reply:
        path = request.path.rstrip("/")
        if path == "/v1/me":
            return Reply(200, {"id": 1, "first_name": "Demo", "last_name": "Wearer", "timezone": self.timezone()})
        if path == "/v1/conversations":
            return self.list_conversations(request)
        if path.startswith("/v1/conversations/"):
            return self.detail(path.rsplit("/", 1)[-1])
        if path == "/v1/facts":
            return self.list_facts(request)
        return Reply(404, {"error": "Not found"})

    def timezone(self) -> str:
        return self.conversations[0].timezone if self.conversations else "UTC"

    def state_of(self, conv: ImitatedConversation) -> str:
        return self.states.get(conv.id, "COMPLETED")

    # --- listing ------------------------------------------------------------------------------------------
    def page(self, request: RecordedRequest, items: list, extra: dict) -> tuple[list, str | None] | Reply:
        cursor = request.param("cursor")
        state = (
            decode_token(cursor)
            if cursor
            else {**extra, "offset": 0, "limit": request.param("limit") or self.default_limit}
        )
        if state is None:
            return Reply(400, {"error": "invalid cursor"})
        try:
            limit = min(max(int(state["limit"]), 1), 1000)
        except ValueError:
            return Reply(400, {"error": "limit must be a number"})
        offset = int(state["offset"])
        if offset + limit < len(items):
            token: str | None = encode_token({**state, "offset": offset + limit})
        elif self.cursor_cycle and items:
            token = encode_token({**state, "offset": 0})
        else:
            token = None
        return items[offset : offset + limit], token

    def list_conversations(self, request: RecordedRequest) -> Reply:
        cursor_state = decode_token(request.param("cursor") or "") or {}
        low = cursor_state.get("from", request.param("from"))
        high = cursor_state.get("to", request.param("to"))
        items = list(self.conversations)
        # `from`/`to` filter on created_at's local date (the account's timezone), like the official CLI expects.
        if low:
            items = [
                c for c in items if self.created(c).astimezone(ZoneInfo(c.timezone)).date() >= date.fromisoformat(low)
            ]
        if high:
            items = [
                c for c in items if self.created(c).astimezone(ZoneInfo(c.timezone)).date() <= date.fromisoformat(high)
            ]
        items.sort(key=lambda c: c.started_at, reverse=True)
        paged = self.page(request, items, {"from": low, "to": high})
        if isinstance(paged, Reply):
            return paged
        page, token = paged
        return Reply(
            200, {"conversations": [self.summary(c) for c in page], "next_cursor": token, "timezone": self.timezone()}
        )

    def created(self, conv: ImitatedConversation) -> datetime:
        return conv.ended_at + timedelta(seconds=30)

    def summary(self, conv: ImitatedConversation) -> dict:
        return {
            "id": self.numeric_ids[conv.id],
            "start_time": ms(conv.started_at),
            "end_time": None if self.state_of(conv) == "CAPTURING" else ms(conv.ended_at),
            "created_at": ms(self.created(conv)),
            "summary": f"Conversation of {len(conv.utterances)} utterances",
            "state": self.state_of(conv),
        }

    # --- detail -------------------------------------------------------------------------------------------
    def detail(self, raw_id: str) -> Reply:
        conv = next((c for c in self.conversations if str(self.numeric_ids[c.id]) == raw_id), None)
        if conv is None:
            return Reply(404, {"error": "Conversation not found"})
        final = [self.utterance(i, u, realtime=False) for i, u in enumerate(conv.utterances)]
        # A realtime (draft) transcription comes first, as on the device; clients must pick the final one.
        draft = [
            {**self.utterance(i, u, realtime=True), "text": u["text"].lower()}
            for i, u in enumerate(conv.utterances[:2])
        ]
        body = {
            **self.summary(conv),
            "device_type": "Bee",
            "short_summary": f"Talk on {conv.date}",
            "updated_at": ms(self.created(conv) + timedelta(minutes=2)),
            "transcriptions": [
                {"id": self.numeric_ids[conv.id] * 10, "realtime": True, "utterances": draft},
                {"id": self.numeric_ids[conv.id] * 10 + 1, "realtime": False, "utterances": list(reversed(final))},
            ],
            "suggested_links": [],
            "primary_location": None,
        }
        return Reply(200, {"conversation": body, "timezone": conv.timezone} if self.wrap_detail else body)

    def utterance(self, index: int, u: dict, *, realtime: bool) -> dict:
        start, end = ms(parse_z(u["start"])), ms(parse_z(u["end"]))
        return {
            "id": index + 1,
            "realtime": realtime,
            "start": None if self.null_times else start,
            "end": None if self.null_times else end,
            "spoken_at": None if self.null_times else start,
            "text": u["text"],
            "speaker": styled_label(u.get("speaker", "0"), self.label_style),
            "created_at": end + 5000,
        }

    # --- facts --------------------------------------------------------------------------------------------
    def list_facts(self, request: RecordedRequest) -> Reply:
        cursor_state = decode_token(request.param("cursor") or "") or {}
        confirmed = cursor_state.get("confirmed", request.param("confirmed"))
        facts = self.facts
        if confirmed in ("true", "false"):
            facts = [f for f in facts if bool(f.get("confirmed", True)) == (confirmed == "true")]
        paged = self.page(request, facts, {"confirmed": confirmed})
        if isinstance(paged, Reply):
            return paged
        page, token = paged
        return Reply(200, {"facts": page, "next_cursor": token, "timezone": self.timezone()})
