"""Generic conversation import: any talk between named people (chat exports, benchmark dialogues).

The participant marked ``is_owner`` is the person whose memory this is; everyone else is a third party. Each
conversation is stored as a session (source "chat:import") and distilled at once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from accounts.exceptions import DomainError
from chats.models import ChatSession
from chats.privacy import entry_point_for, filtered
from chats.services import distilling
from chats.services.store import store_session
from chats.text import SessionIn, TurnIn


class ConversationError(DomainError):
    status_code = 422


@dataclass
class ImportedConversation:
    session: ChatSession
    outcome: str
    added: int
    private_removed: int = 0

    def as_dict(self) -> dict:
        s = self.session
        return {
            "external_id": s.external_id,
            "session_id": str(s.public_id),
            "outcome": self.outcome,
            "episode_id": str(s.episode_id_ref) if s.episode_id_ref and self.outcome == "distilled" else None,
            "turns_added": self.added,
            "turns_total": s.turn_count,
            "private_removed": self.private_removed,
        }


def import_conversation(
    *,
    owner,
    external_id: str,
    participants: list[dict],
    turns: list[dict],
    title: str = "",
    started_at: datetime | None = None,
    source_key: str = ChatSession.Source.IMPORT,
    distill_now: bool = True,
) -> ImportedConversation:
    """Store one conversation between people and distil it; idempotent per ``external_id``."""
    if not (external_id or "").strip():
        raise ConversationError("external_id must not be empty")
    owners = {p["name"] for p in participants if p.get("is_owner")}
    if len(owners) > 1:
        raise ConversationError("at most one participant may be the owner (is_owner)")
    names = {p["name"] for p in participants}
    items = []
    for i, t in enumerate(turns):
        speaker = (t.get("speaker") or "").strip()
        if names and speaker not in names:
            raise ConversationError(f"turns[{i}].speaker {speaker!r} is not one of the participants")
        items.append(
            TurnIn(
                role="person",
                text=str(t.get("text") or ""),
                speaker=speaker,
                is_owner=speaker in owners,
                at=t.get("at") or None,
            )  # fmt: skip
        )
    data = SessionIn(source_key=source_key, external_id=external_id.strip(), turns=items, title=title or "",
                     started_at=started_at)  # fmt: skip
    _, private = filtered(owner, entry_point_for(source_key), lambda f: f.session(data))
    stored = store_session(owner=owner, data=data)
    session = stored.session
    session.refresh_from_db()
    if not items:
        return ImportedConversation(session, "empty:no_turns", 0, private)
    if distill_now and (stored.added or stored.replaced or session.turns.pending().exists()):
        outcome = distilling.distill_session(session=session)
        session.refresh_from_db()
    else:
        outcome = session.outcome or "queued"
        if not distill_now and stored.added:
            distilling.mark_due(session=session, delay=0)
    return ImportedConversation(session, outcome, stored.added, private)


def parse_jsonl(text: str) -> list[dict]:
    """One conversation object per line; blank lines are skipped; a bad line is reported with its number."""
    rows = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise ConversationError(f"line {n}: not JSON ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise ConversationError(f"line {n}: expected an object")
        rows.append(row)
    return rows
