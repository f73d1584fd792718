"""Recall's adapter over wearables' transcripts: the "transcript" scope (registered in WearablesConfig.ready()).

Owned by the recall area. Ledger never imports this module; it only sees it through the provider registry.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from ledger.recall.planner import RecallItem
from ledger.recall.providers import RecallProvider, adjacent_rows, span_rows
from wearables.models import DayTranscript, Utterance


def utterance_document(speaker: str, text: str) -> str:
    """The text recall embeds for a turn: 'speaker: text' (names carry much of a question's signal)."""
    return f"{speaker}: {text}" if speaker else text


class TranscriptProvider(RecallProvider):
    kind = "utterance"
    search_field = "search"
    name_field = "speaker_name"
    date_field = "started_at"
    group_field = "conversation_id"  # one conversation: cross-session links join rows of different ones
    retention_setting = "ALMANAC_TRANSCRIPT_RETENTION_DAYS"

    def queryset(self, owner):
        # Utterances are stored already redacted by the pipeline; owner scoping is the policy here.
        return Utterance.objects.owned_by(owner)

    def documents(self, rows: Iterable[Utterance]) -> list[tuple[int, str]]:
        return [(u.pk, utterance_document(u.speaker_name or u.speaker_label, u.text)) for u in rows]

    ITEM_FIELDS = (
        "index", "speaker_name", "speaker_label", "text", "started_at", "transcript__public_id",
        "transcript__local_date",
    )  # fmt: skip

    def items(self, owner, ref_ids: list[int]) -> dict[int, RecallItem]:
        # Only the columns a block line needs (a day's transcript row carries its whole markdown), unordered.
        rows = (
            self.queryset(owner).filter(pk__in=ref_ids).select_related("transcript").only(*self.ITEM_FIELDS).order_by()
        )
        out = {}
        for u in rows:
            speaker = u.speaker_name or u.speaker_label or "unknown speaker"
            out[u.pk] = RecallItem(
                id=f"utterance:{u.transcript.public_id}:{u.index}",
                kind="utterance",
                text=f"{speaker}: {u.text}",
                permitted_uses=["quote", "answer"],
                disclaimers=["verbatim transcript, may hold speech-recognition errors"],
                source_ref=f"transcript:{u.transcript.public_id}#{u.index}",
                occurred_at=u.started_at.isoformat(timespec="minutes")
                if u.started_at
                else u.transcript.local_date.isoformat(),
                strength=0.5,
                ref_id=u.pk,
            )
        return out

    def neighbours(self, owner, ref_ids: list[int]) -> dict[int, list[int]]:
        """The turns right before and after each given turn, within the same conversation."""
        table = Utterance._meta.db_table
        return adjacent_rows(
            f"""
            SELECT a.id, b.id FROM {table} a
            JOIN {table} b ON b.transcript_id = a.transcript_id AND b.conversation_id = a.conversation_id
                AND b.index IN (a.index - 1, a.index + 1) AND b.owner_id = a.owner_id
            WHERE a.owner_id = %s AND a.id = ANY(%s)
            """,
            [owner.pk, list(ref_ids)],
        )

    # Fact-augmented keys: evidence of these types points into transcripts (see evidence_refs).
    evidence_types = ("transcript",)

    def evidence_refs(self, owner, source_refs: list[dict]) -> list[list[int]]:
        """The turns each evidence ``source_ref`` rests on: {"transcript_id", "utterances": [first, last]} (or
        "utterance": index); [] for a ref that names no turn of this owner."""
        spans: list[tuple[int, int, int] | None] = []
        for ref in source_refs:
            try:
                transcript = int(ref["transcript_id"])
                span = ref.get("utterances", ref.get("utterance"))
                first, last = (span[0], span[-1]) if isinstance(span, list | tuple) else (span, span)
                first, last = int(first), int(last)
            except (KeyError, TypeError, ValueError, IndexError):
                spans.append(None)
                continue
            if last - first > 50:  # a whole-day summary, not a turn
                spans.append(None)
                continue
            spans.append((transcript, first, last))
        return span_rows(self.queryset(owner), spans, key_field="transcript_id")

    def prune(self, owner, before: datetime) -> int:
        # A whole day transcript goes at once (its utterances and conversations cascade).
        deleted, by_model = DayTranscript.objects.owned_by(owner).filter(local_date__lt=before.date()).delete()
        return by_model.get("wearables.DayTranscript", 0)
