"""Neutral conversations → the extractors' ``DayInput``, and back from a candidate to the turns it rests on.

Turns are renumbered 0..n across the pass (indices must be unique for the extractors); ``TurnMap`` keeps the
way back to each turn's conversation, source reference and role.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from distill.conversation import Conversation, Role, Turn
from distill.extraction.base import Candidate, ConversationIn, DayInput, TurnIn


@dataclass
class TurnMap:
    turns: dict[int, tuple[Conversation, Turn]] = field(default_factory=dict)

    def turn(self, index: int | None) -> tuple[Conversation, Turn] | None:
        return self.turns.get(index) if index is not None else None

    def spoken_by_person(self, cand: Candidate) -> bool:
        """Assistant, system and media turns are context, never a belief about anyone."""
        found = self.turn(cand.evidence.first_index if cand.evidence else None)
        return found is None or found[1].speaker.role in Role.SPEAKS_FOR_SOMEONE

    def source_ref(self, cand: Candidate) -> tuple[Conversation | None, dict]:
        first = self.turn(cand.evidence.first_index if cand.evidence else None)
        last = self.turn(cand.evidence.last_index if cand.evidence else None) or first
        if first is None:
            return None, {}
        conv, turn = first
        ref = dict(conv.source_ref) | dict(turn.ref)
        # A two-item list in a turn's ref is a range ({"lines": [7, 7]}): the claim spans first..last turn.
        for key, value in turn.ref.items():
            end = last[1].ref.get(key)
            if isinstance(value, list) and len(value) == 2 and isinstance(end, list) and len(end) == 2:
                ref[key] = [value[0], end[1]]
        ref["turns"] = [turn.index, last[1].index]
        if conv.external_id:
            ref.setdefault("conversation", conv.external_id)
        return conv, ref


def _owner_confidence(conv: Conversation) -> float:
    values = [t.speaker.owner_confidence for t in conv.turns if t.speaker.is_owner]
    return float(min(values)) if values else 1.0


def day_input(conversations: list[Conversation], owner_name: str, source_kind: str = "") -> tuple[DayInput, TurnMap]:
    mapping = TurnMap()
    convs: list[ConversationIn] = []
    n = 0
    for conv in conversations:
        turns = []
        for turn in conv.turns:
            mapping.turns[n] = (conv, turn)
            turns.append(
                TurnIn(
                    index=n,
                    speaker_name=turn.speaker.name or "",
                    is_owner=bool(turn.speaker.is_owner),
                    text=turn.text or "",
                    started_at=turn.at,
                )
            )
            n += 1
        convs.append(
            ConversationIn(
                started_at=conv.started_at or (conv.turns[0].at if conv.turns else None),
                turns=turns,
                external_id=conv.external_id,
                title=conv.title,
                owner_confidence=_owner_confidence(conv),
            )
        )
    return DayInput(owner_name=owner_name, conversations=convs, source_kind=source_kind), mapping
