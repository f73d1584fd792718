"""``<private>…</private>`` in everything chats receives: removed at each entry point (hooks, the memory proxy,
the ingest API, the conversation import endpoints, the file importers) before the text is stored, indexed,
embedded, distilled, used as a recall query or forwarded upstream, and once more in ``store_session`` as the
last guard before disk. The removal itself is ``ledger.private_spans.strip_private``; this module applies it to
the shapes chats handles (turns with their extras and tool calls, JSON values) and counts the spans per owner
and entry point (``PrivateSpanCount``). Nothing here logs or keeps the removed text.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from chats.models import PrivateSpanCount
from chats.text import SessionIn, TurnIn
from ledger.private_spans import has_private, strip_private

EntryPoint = PrivateSpanCount.EntryPoint


class PrivateFilter:
    """Removes private spans from what one request or one file carries; ``removed`` counts the spans."""

    def __init__(self) -> None:
        self.removed = 0

    def text(self, value: str | None) -> str:
        if not value or not has_private(value):
            return value or ""
        stripped = strip_private(value)
        self.removed += stripped.removed
        return stripped.text

    def value(self, value):
        """A JSON-like value (dicts, lists, strings) with private spans removed from every string, keys included."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(k) if isinstance(k, str) else k: self.value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return value

    def turn(self, turn: TurnIn) -> TurnIn:
        """The turn with its text, extras and tool calls cleaned in place. An extra that held only a private span
        is dropped (its kind alone would say that something was there)."""
        turn.text = self.text(turn.text)
        extras = []
        for extra in turn.extras:
            before = self.removed
            cleaned = self.value(extra)
            if self.removed > before and not str(cleaned.get("text") or "").strip():
                continue
            extras.append(cleaned)
        turn.extras = extras
        turn.tool_calls = self.value(turn.tool_calls)
        return turn

    def session(self, data: SessionIn) -> SessionIn:
        data.title = self.text(data.title)
        for t in data.turns:
            self.turn(t)
        return data


def record_removed(*, owner, entry_point: str, count: int) -> None:
    """Add ``count`` removed spans to the owner's tally for ``entry_point`` (one row per pair; concurrent calls
    add up: the increment is done by the database)."""
    if count <= 0:
        return
    now = timezone.now()
    rows = PrivateSpanCount.objects.filter(owner=owner, entry_point=entry_point)
    if rows.update(removed=F("removed") + count, last_removed_at=now):
        return
    try:
        with transaction.atomic():
            PrivateSpanCount.objects.create(owner=owner, entry_point=entry_point, removed=count, last_removed_at=now)
    except IntegrityError:  # created by a concurrent call between the update and the insert
        rows.update(removed=F("removed") + count, last_removed_at=now)


_BY_SOURCE = {"chat:proxy": EntryPoint.PROXY, "chat:ingest": EntryPoint.INGEST, "chat:import": EntryPoint.CONVERSATIONS}


def entry_point_for(source_key: str) -> str:
    """The entry point a stored conversation of ``source_key`` came through (file formats: the importers)."""
    return _BY_SOURCE.get(source_key, EntryPoint.IMPORT)


def removed_counts(owner) -> dict[str, int]:
    """{entry point: spans removed} for the owner (the Chats page and the API show it)."""
    return dict(PrivateSpanCount.objects.owned_by(owner).values_list("entry_point", "removed"))


def filtered(owner, entry_point: str, apply):
    """Run ``apply(PrivateFilter)`` and record what it removed; returns what ``apply`` returned and the count."""
    private = PrivateFilter()
    result = apply(private)
    record_removed(owner=owner, entry_point=entry_point, count=private.removed)
    return result, private.removed
