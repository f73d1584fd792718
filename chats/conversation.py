"""Turning a stored chat session into distill's neutral ``Conversation`` (the trust gate's input)."""

from __future__ import annotations

from accounts.services import owner_name, user_timezone


def local_day(owner, when):
    """The owner's calendar date at ``when`` (their timezone setting), not the UTC date."""
    return when.astimezone(user_timezone(owner)).date()


def to_conversation(owner, session, turns):
    from distill.conversation import Conversation, Medium, Speaker, Turn

    me = owner_name(owner)
    speakers: dict[tuple, Speaker] = {}

    def speaker_for(t) -> Speaker:
        if t.role == "user":
            key = ("user", me)
            return speakers.setdefault(key, Speaker(name=me, is_owner=True, role="person"))
        if t.role == "person":
            key = ("person", t.speaker)
            return speakers.setdefault(key, Speaker(name=t.speaker or "unknown", is_owner=t.is_owner, role="person"))
        role = "assistant" if t.role == "assistant" else "system"
        return speakers.setdefault((role, t.speaker), Speaker(name=t.speaker or role, role=role))

    started = session.started_at or (turns[0].occurred_at if turns else None)
    day = local_day(owner, started).isoformat() if started else ""
    return Conversation(
        source_key=session.source_key,
        source_type="chat",
        scope_key=f"chat:{session.public_id}",
        day_key=day,
        turns=[
            Turn(index=t.index, speaker=speaker_for(t), text=t.text, at=t.occurred_at, ref={"turn": t.index})
            for t in turns
            if t.text and t.role != "tool"
        ],
        external_id=session.external_id,
        title=session.title,
        started_at=started,
        source_ref={"session": str(session.public_id), "conversation_id": session.external_id},
        medium=Medium.TEXT,
    )
