"""Imitation of the Limitless Developer API: ``GET /v1/lifelogs`` (cursor pages) and ``GET /v1/lifelogs/{id}``."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from wearables.imitation.base import (
    ImitatedConversation,
    ImitationServer,
    RecordedRequest,
    Reply,
    _seconds,
    decode_token,
    encode_token,
    parse_z,
)

TRUE = {"true", "1", "yes"}


def conversation_title(conv: ImitatedConversation) -> str:
    words = " ".join(u["text"] for u in conv.utterances[:2]).split()[:8]
    title = " ".join(words).rstrip(",.?!;:") or "Conversation"
    return title[0].upper() + title[1:]


class LimitlessServer(ImitationServer):
    """Serves lifelogs in Limitless' wire format.

    ``api_key`` is required in ``X-API-Key`` (401 otherwise). ``max_limit`` caps ``limit`` (10 as documented in
    2025; set 100 for the current spec); ``drop_contents_over_25`` empties ``contents`` on pages of more than 25;
    ``nested_contents`` serves blockquotes as children of a heading2 node; ``retry_after_in`` puts an injected
    429's delay in the ``"body"`` (the documented ``retryAfter`` string), the ``"header"`` or ``"both"``.
    """

    source = "limitless"

    def __init__(
        self,
        days: Any = (),
        *,
        api_key: str = "ll-test-key",
        max_limit: int = 10,
        drop_contents_over_25: bool = True,
        nested_contents: bool = False,
        retry_after_in: str = "body",
        **kwargs: Any,
    ) -> None:
        super().__init__(days, **kwargs)
        self.api_key = api_key
        self.max_limit = max_limit
        self.drop_contents_over_25 = drop_contents_over_25
        self.nested_contents = nested_contents
        self.retry_after_in = retry_after_in

    def authorize(self, request: RecordedRequest) -> Reply | None:
        if request.headers.get("x-api-key") != self.api_key:
            return Reply(401, {"error": "Invalid API key"})
        return None

    def failure_reply(self, status: int, retry_after: float | None) -> Reply:
        if status != 429:
            return Reply(status, {"error": "Internal server error"})
        delay = _seconds(retry_after if retry_after is not None else 1)
        body: dict[str, Any] = {"error": "Rate limit exceeded"}
        headers = {}
        if self.retry_after_in in ("body", "both"):
            body["retryAfter"] = delay  # a string, as the spec says
        if self.retry_after_in in ("header", "both"):
            headers["Retry-After"] = delay
        return Reply(429, body, headers)

    def route(self, request: RecordedRequest) -> Reply:
        if request.method == "GET" and request.path == "/v1/lifelogs":
            return self.list_lifelogs(request)
        if request.method == "GET" and request.path.startswith("/v1/lifelogs/"):
            return self.one_lifelog(request.path.rsplit("/", 1)[-1], request)
        return Reply(404, {"error": "Not found"})

    # --- /v1/lifelogs -------------------------------------------------------------------------------------
    def list_lifelogs(self, request: RecordedRequest) -> Reply:
        cursor = request.param("cursor")
        if cursor:
            # A cursor carries its original query; other parameters are ignored, as on the real API.
            state = decode_token(cursor)
            if state is None:
                return Reply(400, {"error": "Invalid cursor"})
        else:
            state = {
                "timezone": request.param("timezone") or "UTC",
                "date": request.param("date"),
                "start": request.param("start"),
                "end": request.param("end"),
                "direction": request.param("direction") or "desc",
                "limit": request.param("limit") or "3",
                "markdown": (request.param("includeMarkdown") or "true").lower() in TRUE,
                "headings": (request.param("includeHeadings") or "true").lower() in TRUE,
                "contents": (request.param("includeContents") or "true").lower() in TRUE,
                "offset": 0,
            }
        try:
            tz = ZoneInfo(state["timezone"])
            limit = min(max(int(state["limit"]), 1), self.max_limit)
            matches = self.select(state, tz)
        except (ZoneInfoNotFoundError, ValueError, KeyError) as exc:
            return Reply(400, {"error": f"Invalid request: {exc}"})
        offset = int(state.get("offset", 0))
        page = matches[offset : offset + limit]
        if offset + limit < len(matches):
            next_cursor: str | None = encode_token({**state, "offset": offset + limit})
        elif self.cursor_cycle and matches:
            next_cursor = encode_token({**state, "offset": 0})
        else:
            next_cursor = None
        with_contents = state["contents"] and not (self.drop_contents_over_25 and len(page) > 25)
        lifelogs = [
            self.render(c, tz, markdown=state["markdown"], headings=state["headings"], contents=with_contents)
            for c in page
        ]
        return Reply(
            200,
            {"data": {"lifelogs": lifelogs}, "meta": {"lifelogs": {"nextCursor": next_cursor, "count": len(lifelogs)}}},
        )

    def select(self, state: dict, tz: ZoneInfo) -> list[ImitatedConversation]:
        items = list(self.conversations)
        if state.get("start") or state.get("end"):
            low = local_moment(state["start"], tz) if state.get("start") else None
            high = local_moment(state["end"], tz, end=True) if state.get("end") else None
            items = [c for c in items if (low is None or c.started_at >= low) and (high is None or c.started_at < high)]
        elif state.get("date"):
            day = date.fromisoformat(state["date"])
            items = [c for c in items if c.started_at.astimezone(tz).date() == day]
        items.sort(key=lambda c: (c.started_at, c.id), reverse=state.get("direction") == "desc")
        return items

    def one_lifelog(self, lifelog_id: str, request: RecordedRequest) -> Reply:
        tz = ZoneInfo(request.param("timezone") or "UTC")
        for conv in self.conversations:
            if conv.id == lifelog_id:
                markdown = (request.param("includeMarkdown") or "true").lower() in TRUE
                return Reply(
                    200, {"data": {"lifelog": self.render(conv, tz, markdown=markdown, headings=True, contents=True)}}
                )
        return Reply(404, {"error": "Lifelog not found"})

    # --- rendering ----------------------------------------------------------------------------------------
    def render(
        self, conv: ImitatedConversation, tz: ZoneInfo, *, markdown: bool, headings: bool, contents: bool
    ) -> dict:
        def local(moment: datetime) -> str:
            return moment.astimezone(tz).isoformat(timespec="milliseconds")

        title = conversation_title(conv)
        quotes = []
        lines = [f"# {title}", ""]
        for u in conv.utterances:
            start, end = parse_z(u["start"]), parse_z(u["end"])
            wearer = bool(u.get("is_wearer")) or u.get("speaker") == "user"
            name = "You" if wearer else (u.get("speaker") or "Unknown")
            quotes.append(
                {
                    "type": "blockquote",
                    "content": u["text"],
                    "startTime": local(start),
                    "endTime": local(end),
                    "startOffsetMs": int((start - conv.started_at).total_seconds() * 1000),
                    "endOffsetMs": int((end - conv.started_at).total_seconds() * 1000),
                    "children": [],
                    "speakerName": name,
                    "speakerIdentifier": "user" if wearer else None,
                }
            )
            lines.append(
                f"> [{name}](#startMs={int(start.timestamp() * 1000)}&endMs={int(end.timestamp() * 1000)}): {u['text']}"
            )
            lines.append("")

        def heading(kind: str, text: str, children: list) -> dict:
            return {
                "type": kind,
                "content": text,
                "startTime": local(conv.started_at),
                "endTime": local(conv.ended_at),
                "startOffsetMs": 0,
                "endOffsetMs": int((conv.ended_at - conv.started_at).total_seconds() * 1000),
                "children": children,
                "speakerName": None,
                "speakerIdentifier": None,
            }

        if self.nested_contents:
            nodes = [heading("heading1", title, [])] if headings else []
            nodes.append(heading("heading2", "Discussion", quotes))
        else:
            nodes = (
                [heading("heading1", title, []), heading("heading2", "Discussion", [])] if headings else []
            ) + quotes
        return {
            "id": conv.id,
            "title": title,
            "markdown": "\n".join(lines) if markdown else None,
            "startTime": local(conv.started_at),
            "endTime": local(conv.ended_at),
            "isStarred": False,
            "updatedAt": local(conv.ended_at + timedelta(minutes=2)),
            "contents": nodes if contents else [],
        }


def local_moment(value: str, tz: ZoneInfo, *, end: bool = False) -> datetime:
    """``YYYY-MM-DD`` or ``YYYY-MM-DD HH:mm:SS`` read in ``tz`` (any offset in the value is ignored)."""
    text = value.strip().replace("T", " ")[:19]
    if len(text) == 10:
        day = date.fromisoformat(text)
        moment = datetime.combine(day + timedelta(days=1) if end else day, time.min)
    else:
        moment = datetime.fromisoformat(text)
    return moment.replace(tzinfo=tz)
