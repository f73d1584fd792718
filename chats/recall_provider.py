"""Recall's adapter over chat turns: searched with the "transcript" scope (registered in ChatsConfig.ready())."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import datetime

from chats.models import AgentToolEvent, AgentTranscript, ChatSession, ChatTurn
from ledger.recall.planner import RecallItem
from ledger.recall.providers import RecallProvider, adjacent_rows, span_rows


class ChatTurnProvider(RecallProvider):
    kind = "chat_turn"
    search_field = "search"
    name_field = "speaker"
    date_field = "occurred_at"
    group_field = "session_id"  # one conversation: cross-session links join rows of different ones
    retention_setting = "ALMANAC_TRANSCRIPT_RETENTION_DAYS"

    def queryset(self, owner):
        # Turns are redacted before storage; tool output is not something anyone said.
        return ChatTurn.objects.owned_by(owner).exclude(role__in=[ChatTurn.Role.TOOL, ChatTurn.Role.SYSTEM])

    def documents(self, rows: Iterable[ChatTurn]) -> list[tuple[int, str]]:
        return [(t.pk, f"{t.speaker or t.role}: {t.text[:2000]}") for t in rows]

    def items(self, owner, ref_ids: list[int]) -> dict[int, RecallItem]:
        out = {}
        for t in self.queryset(owner).filter(pk__in=ref_ids).select_related("session"):
            who = t.speaker or t.role
            out[t.pk] = RecallItem(
                id=f"chat:{t.session.public_id}:{t.index}",
                kind="chat_turn",
                text=f"{who}: {t.text[:600]}",
                permitted_uses=["quote", "answer"],
                disclaimers=["assistant output, not a statement by the person"] if t.role == "assistant" else [],
                source_ref=f"chat:{t.session.public_id}#{t.index}",
                occurred_at=(t.occurred_at or t.created_at).isoformat(timespec="minutes"),
                strength=0.4,
                ref_id=t.pk,
            )
        return out

    def neighbours(self, owner, ref_ids: list[int]) -> dict[int, list[int]]:
        """The turns right before and after each given turn, within the same session (session context)."""
        table = ChatTurn._meta.db_table
        return adjacent_rows(
            f"SELECT a.id, b.id FROM {table} a JOIN {table} b ON b.session_id = a.session_id "
            "AND b.index IN (a.index - 1, a.index + 1) AND b.owner_id = a.owner_id "
            "WHERE a.owner_id = %s AND a.id = ANY(%s) AND NOT (b.role = ANY(%s))",
            [owner.pk, list(ref_ids), [ChatTurn.Role.TOOL, ChatTurn.Role.SYSTEM]],
        )

    # Fact-augmented keys: memories distilled from a chat carry {"session": public id, "turn": index}.
    evidence_types = ("chat",)

    def evidence_refs(self, owner, source_refs: list[dict]) -> list[list[int]]:
        """The turns each evidence ``source_ref`` rests on ("session" + "turn", spanning "turns" [first, last]
        when given); [] for a ref that names no turn of this owner."""
        spans: list[tuple[str, int, int] | None] = []
        for ref in source_refs:
            try:
                session, first = str(uuid.UUID(str(ref["session"]))), int(ref["turn"])
                span = ref.get("turns")
                last = (
                    first + max(0, int(span[-1]) - int(span[0])) if isinstance(span, list | tuple) and span else first
                )
            except (KeyError, TypeError, ValueError, IndexError, AttributeError):
                spans.append(None)
                continue
            spans.append((session, first, last) if last - first <= 50 else None)  # a summary, not a turn
        return span_rows(self.queryset(owner), spans, key_field="session__public_id")

    def prune(self, owner, before: datetime) -> int:
        deleted, by_model = ChatSession.objects.owned_by(owner).filter(last_turn_at__lt=before).delete()
        # What hooks sent of those sessions goes with them (kept only to import their next lines).
        AgentTranscript.objects.owned_by(owner).filter(updated_at__lt=before).delete()
        AgentToolEvent.objects.owned_by(owner).filter(created_at__lt=before).delete()
        return by_model.get("chats.ChatSession", 0)
