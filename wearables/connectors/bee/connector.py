"""Bee: conversations listed by cursor, each read in detail; the local-day filter runs on our side."""

from __future__ import annotations

import logging
import re
from datetime import date, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from wearables.connectors.base import FetchResult, NativeMemory, ProviderError, RawConversation, RawUtterance
from wearables.connectors.bee.client import BeeClient
from wearables.connectors.bee.schemas import BeeConf
from wearables.connectors.config import validate_conf
from wearables.connectors.dates import from_epoch_ms, local_day_bounds
from wearables.connectors.http import CursorGuard, HttpConnector

logger = logging.getLogger("wearables.connectors")

# Bee's diarization labels come as "0", "SPEAKER_1" or "speaker_1" depending on the build; all mean speaker N.
NUMBERED_LABEL = re.compile(r"^\s*(?:speaker[_\s-]?)?(\d+)\s*$", re.IGNORECASE)
FACTS_PAGE = 100


def normalize_label(label: Any) -> str | None:
    """``"0"`` / ``"SPEAKER_1"`` / ``"speaker_1"`` → ``"0"`` / ``"1"`` / ``"1"``; other labels unchanged."""
    if label is None:
        return None
    text = str(label).strip()
    match = NUMBERED_LABEL.match(text)
    return str(int(match.group(1))) if match else (text or None)


def bee_time(value: Any, conversation_start: Any) -> Any:
    """Utterance times: epoch ms normally; epoch seconds or seconds-from-start are tolerated (units vary)."""
    if value is None or isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value >= 1e11:
        return from_epoch_ms(value)
    if value >= 1e9:
        return from_epoch_ms(value * 1000)
    return conversation_start + timedelta(seconds=value)


def pick_transcription(transcriptions: Any) -> dict | None:
    """The first transcription with ``realtime: false`` (the finished one), else the first one."""
    candidates = [t for t in transcriptions or [] if isinstance(t, dict)]
    for transcription in candidates:
        if transcription.get("realtime") is False:
            return transcription
    return candidates[0] if candidates else None


def ordered_utterances(utterances: list[dict]) -> list[dict]:
    """Sorted by ``spoken_at ?? start`` then ``id``; if any utterance has no time, by ``id`` alone (a mixed key
    would move the untimed ones to one end)."""

    def moment(u: dict) -> Any:
        return u.get("spoken_at") if u.get("spoken_at") is not None else u.get("start")

    def ident(u: dict) -> tuple[int, Any]:
        value = u.get("id")
        return (0, value) if isinstance(value, int | float) else (1, str(value))

    if all(isinstance(moment(u), int | float) for u in utterances):
        return sorted(utterances, key=lambda u: (moment(u), ident(u)))
    return sorted(utterances, key=ident)


class BeeConnector(HttpConnector):
    """Reads Bee conversations that start on a local day.

    Lists ``GET /v1/conversations?limit&cursor[&from&to]`` (``next_cursor`` until null), keeps items whose
    ``start_time`` (epoch ms) falls on the local day and whose state is not ``CAPTURING``, then reads each
    ``GET /v1/conversations/{id}`` (wrapped ``{"conversation": …}`` or top-level). Bee has no wearer flag, so
    ``is_wearer`` is None; labels are normalised to bare numbers. Credentials: ``{"api_token": ...}`` or none
    behind the local proxy. Raises ``ProviderError``.
    """

    kind = "bee"
    provider = "Bee"

    def conf(self) -> BeeConf:
        return validate_conf(BeeConf, self.credentials, self.provider)

    def client(self) -> BeeClient:
        token = self.conf().api_token
        headers = {"Accept": "application/json"}
        secrets: list[str] = []
        if token is not None and token.get_secret_value():
            headers["Authorization"] = f"Bearer {token.get_secret_value()}"
            secrets.append(token.get_secret_value())
        hint = "" if secrets else "no API token is set (run `bee proxy` on this machine, or add a token)"
        return BeeClient(self.make_client(headers, secrets, auth_hint=hint))

    def probe(self, client: BeeClient) -> None:
        body = client.list_conversations({"limit": 1}, retries=0)
        if not isinstance(body, dict) or not isinstance(body.get("conversations"), list):
            raise ProviderError("Bee returned an unexpected response (no conversations list)", permanent=False)

    def fetch_day(self, local_date: date, tz: ZoneInfo) -> FetchResult:
        with self.client() as client:
            return self._fetch_day(client, local_date, tz)

    def _fetch_day(self, client: BeeClient, local_date: date, tz: ZoneInfo) -> FetchResult:
        conf = self.conf()
        day_start, day_end = local_day_bounds(local_date, tz)
        start_ms, end_ms = day_start.timestamp() * 1000, day_end.timestamp() * 1000
        query: dict[str, Any] = {"limit": conf.page_limit}
        if conf.date_filter:
            # `from`/`to` filter on created_at, whose day (zone unknown) can differ from the local start day;
            # the window is widened and the exact local-day filter below decides.
            query["from"] = (local_date - timedelta(days=1)).isoformat()
            query["to"] = (local_date + timedelta(days=2)).isoformat()
        result = FetchResult()
        guard = CursorGuard()
        wanted: list[int | str] = []
        cursor: str | None = None
        while True:
            body = client.list_conversations({**query, "cursor": cursor} if cursor else query)
            result.pages += 1
            items = body.get("conversations") if isinstance(body, dict) else None
            if not isinstance(items, list):
                raise ProviderError("Bee returned an unexpected response (no conversations list)", permanent=False)
            starts: list[float] = []
            for item in items:
                ident, start = (item.get("id"), item.get("start_time")) if isinstance(item, dict) else (None, None)
                if not isinstance(ident, int) or isinstance(ident, bool) or not isinstance(start, int | float):
                    result.warnings.append("Bee listed a conversation without a numeric id and start_time; skipped it")
                    continue
                starts.append(start)
                if not start_ms <= start < end_ms or ident in wanted:
                    continue
                if str(item.get("state") or "").upper() == "CAPTURING":
                    result.warnings.append(f"Bee conversation {ident} is still being captured; it will come next sync")
                    continue
                wanted.append(ident)
            cursor = body.get("next_cursor")
            cursor = str(cursor) if cursor not in (None, "") else None
            if not cursor:
                break
            if guard.stop_day(result, self.provider, cursor, items):
                break
            # Without a date filter the list is read newest first; a page wholly before the day ends the search.
            if not conf.date_filter and starts and max(starts) < start_ms and starts == sorted(starts, reverse=True):
                break
        for ident in wanted:
            conversation = self.normalize(client.get_conversation(ident))
            if conversation is None:
                result.warnings.append(f"Bee conversation {ident} came back unreadable; skipped it")
            else:
                result.conversations.append(conversation)
        result.conversations.sort(key=lambda c: c.started_at)
        return result

    def normalize(self, body: Any) -> RawConversation | None:
        """A detail payload (wrapped or top-level) as a ``RawConversation``; None when it has no id/start."""
        detail = (
            body.get("conversation") if isinstance(body, dict) and isinstance(body.get("conversation"), dict) else body
        )
        if not isinstance(detail, dict):
            return None
        started_at = from_epoch_ms(detail.get("start_time"))
        if detail.get("id") is None or started_at is None:
            return None
        transcription = pick_transcription(detail.get("transcriptions")) or {}
        raw = [u for u in transcription.get("utterances") or [] if isinstance(u, dict)]
        utterances = []
        for u in ordered_utterances(raw):
            text = u.get("text")
            if not isinstance(text, str) or not text.strip():
                continue
            spoken = u.get("spoken_at") if u.get("spoken_at") is not None else u.get("start")
            utterances.append(
                RawUtterance(
                    text=text.strip(),
                    speaker_label=normalize_label(u.get("speaker")),
                    is_wearer=None,
                    started_at=bee_time(spoken, started_at),
                    ended_at=bee_time(u.get("end"), started_at),
                )
            )
        return RawConversation(
            source=self.kind,
            external_id=str(detail["id"]),
            started_at=started_at,
            ended_at=from_epoch_ms(detail.get("end_time")),
            title=detail.get("short_summary") or "",
            utterances=utterances,
            meta={
                "summary": detail.get("summary"),
                "state": detail.get("state"),
                "device_type": detail.get("device_type"),
            },
        )

    def fetch_native_memories(self) -> list[NativeMemory]:
        """Bee's confirmed facts (``GET /v1/facts?confirmed=true``), every page."""
        with self.client() as client:
            return self._fetch_native_memories(client)

    def _fetch_native_memories(self, client: BeeClient) -> list[NativeMemory]:
        memories: list[NativeMemory] = []
        guard = CursorGuard()
        cursor: str | None = None
        while True:
            params: dict[str, Any] = {"limit": FACTS_PAGE, "confirmed": "true"}
            body = client.list_facts({**params, "cursor": cursor} if cursor else params)
            facts = body.get("facts") if isinstance(body, dict) else None
            if not isinstance(facts, list):
                raise ProviderError("Bee returned an unexpected response (no facts list)", permanent=False)
            for fact in facts:
                if isinstance(fact, dict) and fact.get("id") is not None and isinstance(fact.get("text"), str):
                    memories.append(
                        NativeMemory(
                            source=self.kind,
                            external_id=str(fact["id"]),
                            text=fact["text"],
                            created_at=from_epoch_ms(fact.get("created_at")),
                            tags=[str(t) for t in fact.get("tags") or []],
                        )
                    )
            cursor = body.get("next_cursor")
            cursor = str(cursor) if cursor not in (None, "") else None
            if not cursor or not facts:
                break
            if guard.repeated(cursor):
                logger.warning("Bee repeated a facts cursor; stopped paging to avoid a loop")
                break
        return memories
