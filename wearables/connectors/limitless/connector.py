"""Limitless: one local day of lifelogs, dialogue read from blockquote content nodes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from accounts.timestamps import parse_iso_utc as parse_iso
from wearables.connectors.base import FetchResult, ProviderError, RawConversation, RawUtterance
from wearables.connectors.config import validate_conf
from wearables.connectors.dates import starts_on
from wearables.connectors.http import CursorGuard, HttpConnector
from wearables.connectors.limitless.client import LimitlessClient
from wearables.connectors.limitless.schemas import LimitlessConf

# Placeholder names Limitless gives speakers it has not identified; they are labels, not people.
GENERIC_SPEAKER = re.compile(r"^\s*(you|user|unknown|speaker\s*\d*)\s*$", re.IGNORECASE)
# Above this many items per page Limitless drops `contents`; such lifelogs are re-read one by one.
CONTENTS_DROPPED_ABOVE = 25


class LimitlessConnector(HttpConnector):
    """Reads lifelogs from ``GET /v1/lifelogs`` by local day (``date`` + ``timezone``), following
    ``meta.lifelogs.nextCursor`` to the end.

    Credentials: ``{"api_key": ...}`` (see ``LimitlessConf``). Each blockquote node (at any nesting depth) is an
    utterance; ``speakerIdentifier == "user"`` marks the wearer. Raises ``ProviderError`` (see ``ProviderClient``)
    and a permanent one for missing settings.
    """

    kind = "limitless"
    provider = "Limitless"

    def conf(self) -> LimitlessConf:
        return validate_conf(LimitlessConf, self.credentials, self.provider)

    def client(self) -> LimitlessClient:
        key = self.conf().api_key.get_secret_value()
        return LimitlessClient(self.make_client({"X-API-Key": key, "Accept": "application/json"}, [key]))

    def probe(self, client: LimitlessClient) -> None:
        lifelogs_of(client.list_lifelogs({"limit": 1}, retries=0))

    def fetch_day(self, local_date: date, tz: ZoneInfo) -> FetchResult:
        with self.client() as client:
            return self._fetch_day(client, local_date, tz)

    def _fetch_day(self, client: LimitlessClient, local_date: date, tz: ZoneInfo) -> FetchResult:
        conf = self.conf()
        query = {
            "date": local_date.isoformat(),
            "timezone": str(tz),
            "limit": conf.page_limit,
            "direction": "asc",
            "includeMarkdown": "false",
            "includeHeadings": "false",
            "includeContents": "true",
        }
        result = FetchResult()
        guard = CursorGuard()
        seen: set[str] = set()
        cursor: str | None = None
        while True:
            body = client.list_lifelogs({**query, "cursor": cursor} if cursor else query)
            result.pages += 1
            lifelogs = lifelogs_of(body)
            for item in lifelogs:
                lifelog_id = item.get("id") if isinstance(item, dict) else None
                if not isinstance(lifelog_id, str) or not lifelog_id:
                    result.warnings.append("Limitless returned a lifelog without an id; skipped it")
                    continue
                if lifelog_id in seen:
                    continue
                seen.add(lifelog_id)
                if len(lifelogs) > CONTENTS_DROPPED_ABOVE and not item.get("contents"):
                    item = self._read_one(client, lifelog_id, item)
                conversation = self.normalize(item)
                if conversation is None:
                    result.warnings.append(f"Limitless lifelog {lifelog_id} has no readable startTime; skipped it")
                elif starts_on(conversation.started_at, local_date, tz):
                    result.conversations.append(conversation)
            cursor = next_cursor(body)
            if not cursor:
                break
            if guard.stop_day(result, self.provider, cursor, lifelogs):
                break
        return result

    def _read_one(self, client: LimitlessClient, lifelog_id: str, fallback: dict) -> dict:
        body = client.get_lifelog(lifelog_id)
        lifelog = (body.get("data") or {}).get("lifelog") if isinstance(body, dict) else None
        return lifelog if isinstance(lifelog, dict) else fallback

    def normalize(self, lifelog: dict[str, Any]) -> RawConversation | None:
        """One lifelog as a ``RawConversation`` (None when it has no start time)."""
        started_at = parse_iso(lifelog.get("startTime"))
        if started_at is None:
            return None
        utterances = [
            utterance_from(node, started_at)
            for node in blockquotes(lifelog.get("contents") or [])
            if isinstance(node.get("content"), str) and node["content"].strip()
        ]
        return RawConversation(
            source=self.kind,
            external_id=lifelog["id"],
            started_at=started_at,
            ended_at=parse_iso(lifelog.get("endTime")),
            title=lifelog.get("title") or "",
            utterances=utterances,
            meta={"is_starred": bool(lifelog.get("isStarred")), "updated_at": lifelog.get("updatedAt")},
        )


def lifelogs_of(body: Any) -> list:
    data = body.get("data") if isinstance(body, dict) else None
    lifelogs = data.get("lifelogs") if isinstance(data, dict) else None
    if not isinstance(lifelogs, list):
        raise ProviderError("Limitless returned an unexpected response (no data.lifelogs list)", permanent=False)
    return lifelogs


def next_cursor(body: dict) -> str | None:
    meta = body.get("meta") if isinstance(body.get("meta"), dict) else {}
    lifelogs_meta = meta.get("lifelogs") if isinstance(meta.get("lifelogs"), dict) else {}
    cursor = lifelogs_meta.get("nextCursor")
    return str(cursor) if cursor not in (None, "") else None


def blockquotes(nodes: list) -> Iterator[dict]:
    """Blockquote nodes in document order, however deeply they are nested under headings or each other."""
    for node in nodes:
        if not isinstance(node, dict):
            continue
        if node.get("type") == "blockquote":
            yield node
        children = node.get("children")
        if isinstance(children, list) and children:
            yield from blockquotes(children)


def utterance_from(node: dict, lifelog_start: Any) -> RawUtterance:
    name = node.get("speakerName") if isinstance(node.get("speakerName"), str) else None
    is_wearer = node.get("speakerIdentifier") == "user"
    started_at = parse_iso(node.get("startTime"))
    ended_at = parse_iso(node.get("endTime"))
    # Offsets are a fallback for nodes without absolute times.
    if started_at is None and isinstance(node.get("startOffsetMs"), int | float):
        started_at = lifelog_start + timedelta(milliseconds=node["startOffsetMs"])
    if ended_at is None and isinstance(node.get("endOffsetMs"), int | float):
        ended_at = lifelog_start + timedelta(milliseconds=node["endOffsetMs"])
    return RawUtterance(
        text=node["content"].strip(),
        speaker_label="user" if is_wearer else (name or "Unknown"),
        speaker_name=None if (is_wearer or not name or GENERIC_SPEAKER.match(name)) else name,
        is_wearer=is_wearer,
        started_at=started_at,
        ended_at=ended_at,
    )
