"""Omi: one local day of completed conversations with full transcripts, from either API surface."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from accounts.timestamps import parse_iso_utc as parse_iso
from wearables.connectors.base import FetchResult, NativeMemory, ProviderError, RawConversation, RawUtterance
from wearables.connectors.config import validate_conf
from wearables.connectors.dates import local_day_bounds, starts_on
from wearables.connectors.http import HttpConnector
from wearables.connectors.omi.client import OmiDeveloperClient, OmiIntegrationClient
from wearables.connectors.omi.schemas import DEVELOPER, INTEGRATION, OmiConf

logger = logging.getLogger("wearables.connectors")

GENERIC_SPEAKER = re.compile(r"^\s*speaker[\s_]*\d*\s*$", re.IGNORECASE)
# The Integration API silently cuts transcripts to this many segments unless asked for all (-1).
DEFAULT_SEGMENT_CAP = 100


def offset_time(start: datetime, seconds: Any) -> datetime | None:
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        return None
    return start + timedelta(seconds=float(seconds))


def integration_utterance(segment: dict, started_at: datetime) -> RawUtterance:
    is_user = segment.get("is_user")
    person = segment.get("person_id")
    return RawUtterance(
        text=segment["text"].strip(),
        speaker_label=str(segment["speaker"]) if segment.get("speaker") is not None else None,
        is_wearer=None if is_user is None else bool(is_user),
        person_id=str(person) if person else None,
        started_at=offset_time(started_at, segment.get("start")),
        ended_at=offset_time(started_at, segment.get("end")),
    )


def developer_utterance(segment: dict, started_at: datetime) -> RawUtterance:
    speaker_id = segment.get("speaker_id")
    name = segment.get("speaker_name") if isinstance(segment.get("speaker_name"), str) else None
    label = f"SPEAKER_{speaker_id:02d}" if isinstance(speaker_id, int) else (name or None)
    return RawUtterance(
        text=segment["text"].strip(),
        speaker_label=label,
        speaker_name=None if not name or GENERIC_SPEAKER.match(name) else name,
        # The Developer API resolves the wearer to their profile name but carries no flag; the pipeline decides.
        is_wearer=None,
        started_at=offset_time(started_at, segment.get("start")),
        ended_at=offset_time(started_at, segment.get("end")),
    )


class OmiConnector(HttpConnector):
    """Reads Omi conversations that start on a local day, with every transcript segment.

    Integration API (``sk_…`` + ``app_id`` + ``user_id``): ``/v2/integrations/{app}/conversations`` with
    ``statuses=completed``, ``include_discarded=false``, ``max_transcript_segments=-1`` and a
    ``[local midnight, next midnight)`` window with explicit offsets; segments carry ``is_user``, ``speaker`` and
    ``person_id``. Developer API (``omi_dev_…``): ``/v1/dev/user/conversations`` (bare array,
    ``include_transcript=true``); segments carry ``speaker_id``/``speaker_name``. Both page by ``offset`` until
    a short page. Raises ``ProviderError``; permanent for missing settings.
    """

    kind = "omi"
    provider = "Omi"

    def conf(self) -> OmiConf:
        conf = validate_conf(OmiConf, self.credentials, self.provider)
        if conf.surface() == INTEGRATION and not (conf.app_id and conf.user_id):
            raise ProviderError(
                "Omi settings are incomplete: the Integration API (sk_… key) needs app_id and user_id", permanent=True
            )
        return conf

    def client(self) -> OmiIntegrationClient | OmiDeveloperClient:
        conf = self.conf()
        key = conf.api_key.get_secret_value()
        http = self.make_client({"Authorization": f"Bearer {key}", "Accept": "application/json"}, [key])
        if conf.surface() == DEVELOPER:
            return OmiDeveloperClient(http)
        return OmiIntegrationClient(http, app_id=conf.app_id or "", user_id=conf.user_id or "")

    def connected_message(self) -> str:
        surface = "Developer API" if self.conf().surface() == DEVELOPER else "Integration API"
        return f"Connected to Omi ({surface})"

    def probe(self, client: OmiIntegrationClient | OmiDeveloperClient) -> None:
        if isinstance(client, OmiDeveloperClient):
            items_of(client.conversations({"limit": 1}, retries=0), None)
        else:
            items_of(client.conversations([("limit", 1)], retries=0), "conversations")

    def fetch_day(self, local_date: date, tz: ZoneInfo) -> FetchResult:
        with self.client() as client:
            return self._fetch_day(client, local_date, tz)

    def _fetch_day(
        self, client: OmiIntegrationClient | OmiDeveloperClient, local_date: date, tz: ZoneInfo
    ) -> FetchResult:
        conf = self.conf()
        day_start, day_end = local_day_bounds(local_date, tz)
        window = [("start_date", day_start.isoformat()), ("end_date", day_end.isoformat())]
        if isinstance(client, OmiDeveloperClient):
            base = [("include_transcript", "true"), *window]
            to_utterance = developer_utterance

            def page(offset: int) -> list:
                return items_of(client.conversations([*base, ("limit", conf.page_limit), ("offset", offset)]), None)
        else:
            base = [
                ("statuses", "completed"),
                ("include_discarded", "false"),
                ("max_transcript_segments", "-1"),
                *window,
            ]
            to_utterance = integration_utterance

            def page(offset: int) -> list:
                params = [("limit", conf.page_limit), ("offset", offset), *base]
                return items_of(client.conversations(params), "conversations")

        result = FetchResult()
        for item in self._pages(page, conf.page_limit, result):
            conversation = self.normalize(item, to_utterance, result)
            if conversation is not None and starts_on(conversation.started_at, local_date, tz):
                result.conversations.append(conversation)
        result.conversations.sort(key=lambda c: c.started_at)
        return result

    def _pages(self, page: Callable[[int], list], limit: int, result: FetchResult) -> list[dict]:
        """Every item, paging by offset until a short page; a page of only already-seen ids stops the loop."""
        items: list[dict] = []
        seen: set[str] = set()
        offset = 0
        while True:
            batch = page(offset)
            result.pages += 1
            ids = {str(i.get("id")) for i in batch if isinstance(i, dict) and i.get("id") is not None}
            if batch and ids and ids <= seen:
                result.warnings.append(
                    f"Omi returned the same conversations again on page {result.pages}; stopped paging to avoid a loop"
                )
                result.complete = False
                break
            for item in batch:
                if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not item["id"]:
                    result.warnings.append("Omi returned a conversation without an id; skipped it")
                elif item["id"] not in seen:
                    seen.add(item["id"])
                    items.append(item)
            if len(batch) < limit:
                break
            offset += limit
        return items

    def normalize(
        self,
        item: dict,
        to_utterance: Callable[[dict, datetime], RawUtterance] = integration_utterance,
        result: FetchResult | None = None,
    ) -> RawConversation | None:
        """One conversation as a ``RawConversation``; None (with a warning) for discarded, unfinished or undated."""
        warn = result.warnings.append if result is not None else logger.warning
        if item.get("discarded") is True or item.get("status") not in (None, "completed"):
            return None
        started_at = parse_iso(item.get("started_at")) or parse_iso(item.get("created_at"))
        if started_at is None:
            warn(f"Omi conversation {item['id']} has no readable started_at; skipped it")
            return None
        segments = [s for s in item.get("transcript_segments") or [] if isinstance(s, dict)]
        if len(segments) == DEFAULT_SEGMENT_CAP and to_utterance is integration_utterance:
            warn(f"Omi conversation {item['id']} has exactly {DEFAULT_SEGMENT_CAP} segments; it may be truncated")
        structured = item.get("structured") if isinstance(item.get("structured"), dict) else {}
        return RawConversation(
            source=self.kind,
            external_id=item["id"],
            started_at=started_at,
            ended_at=parse_iso(item.get("finished_at")),
            title=structured.get("title") or "",
            utterances=[
                to_utterance(s, started_at) for s in segments if isinstance(s.get("text"), str) and s["text"].strip()
            ],
            meta={"overview": structured.get("overview"), "category": structured.get("category")},
        )

    def fetch_native_memories(self) -> list[NativeMemory]:
        """Omi's memories from the chosen surface, every page."""
        with self.client() as client:
            return self._fetch_native_memories(client)

    def _fetch_native_memories(self, client: OmiIntegrationClient | OmiDeveloperClient) -> list[NativeMemory]:
        conf = self.conf()
        result = FetchResult()
        if isinstance(client, OmiDeveloperClient):

            def page(offset: int) -> list:
                return items_of(client.memories({"limit": conf.page_limit, "offset": offset}), None)
        else:

            def page(offset: int) -> list:
                return items_of(client.memories([("limit", conf.page_limit), ("offset", offset)]), "memories")

        memories = []
        for item in self._pages(page, conf.page_limit, result):
            if not isinstance(item.get("content"), str) or not item["content"].strip():
                continue
            memories.append(
                NativeMemory(
                    source=self.kind,
                    external_id=item["id"],
                    text=item["content"].strip(),
                    created_at=parse_iso(item.get("created_at")),
                    tags=[str(t) for t in item.get("tags") or []],
                    conversation_external_id=item.get("conversation_id") or None,
                )
            )
        for warning in result.warnings:
            logger.warning("%s", warning)
        return memories


def items_of(body: Any, key: str | None) -> list:
    """The list inside ``{key: [...]}`` (Integration) or the bare array (Developer)."""
    items = body.get(key) if key and isinstance(body, dict) else body
    if not isinstance(items, list):
        expected = f"a {key} list" if key else "a list"
        raise ProviderError(f"Omi returned an unexpected response (expected {expected})", permanent=False)
    return items
