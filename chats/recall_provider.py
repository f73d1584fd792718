"""Recall's adapter over chat turns: searched with the "transcript" scope (registered in ChatsConfig.ready())."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from chats.models import ChatSession, ChatTurn
from ledger.recall.planner import RecallItem
from ledger.recall.providers import RecallProvider


class ChatTurnProvider(RecallProvider):
    kind = "chat_turn"
    search_field = "search"
    name_field = "speaker"
    date_field = "occurred_at"
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

    def prune(self, owner, before: datetime) -> int:
        deleted, by_model = ChatSession.objects.owned_by(owner).filter(last_turn_at__lt=before).delete()
        return by_model.get("chats.ChatSession", 0)
