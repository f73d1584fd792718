"""Forgetting in chats: the forget handler chats registers with the ledger at startup, and ingest-time scrubbing.

A forgotten person stays forgotten: their turns are removed, their names redacted in everyone else's turns,
session titles and lessons (``forget_handler``), and ``scrub`` does the same to conversations arriving later.
"""

from __future__ import annotations

from chats.text import TurnIn
from ledger.forget.coverage import declare, redact_value

HANDLER = "chats.forgetting"
declare(
    "chats.ChatSession",
    scrubbed={"title": f"{HANDLER}: name redacted"},
    redacted=("project", "outcome"),
    exempt={"source_key": "a source key", "external_id": "a client's opaque id", "agent_id": "an agent's id",
            "status": "a status", "content_hash": "a hash"},
)  # fmt: skip
declare(
    "chats.ChatTurn",
    scrubbed={n: f"{HANDLER}: their turns removed, their name redacted in others'"
              for n in ("text", "speaker", "tool_calls", "extras", "search")},
    exempt={"role": "a role"},
)  # fmt: skip
declare("chats.ImportedFile", exempt={"path": "a file path on the owner's machine", "format": "a format name"})
declare(
    "chats.Lesson",
    scrubbed={"text": f"{HANDLER}: name redacted", "aliases": "same"},
    redacted=("project", "history"),
    exempt={"key": "a hash", "kind": "a kind", "status": "a status", "episode_keys": "episode keys"},
)
declare("chats.Prediction", redacted=("text",), exempt={"status": "a status"})
declare("chats.HookDelivery", exempt={"session_key": "a client's session id"})
declare("chats.SleepReport", redacted=("learned", "merged", "confirmed", "failed", "archived"))


def scrub(owner, turns: list[TurnIn]) -> list[TurnIn]:
    """Drop turns spoken by forgotten people and redact their names elsewhere (ingest and import time)."""
    from ledger.forget.hooks import forgotten_names

    matcher = forgotten_names(owner)
    if not matcher:
        return turns
    kept = []
    for t in turns:
        if t.role == "person" and matcher.is_forgotten(t.speaker):
            continue
        t.text = matcher.redact(t.text)
        kept.append(t)
    return kept


def _scrub_stored(owner, matcher) -> dict[str, int]:
    from chats.models import ChatSession, ChatTurn, Lesson
    from chats.text import chain_hash
    from ledger.recall.models import Embedding

    removed_ids = [t.pk for t in ChatTurn.objects.filter(owner=owner, role="person") if matcher.is_forgotten(t.speaker)]
    ChatTurn.objects.filter(pk__in=removed_ids).delete()
    Embedding.objects.filter(owner=owner, kind="chat_turn", ref_id__in=removed_ids).delete()
    redacted = 0
    for t in ChatTurn.objects.filter(owner=owner):
        clean = matcher.redact(t.text)
        calls, extras = redact_value(t.tool_calls, matcher), redact_value(t.extras, matcher)
        if (clean, calls, extras) != (t.text, t.tool_calls, t.extras):
            t.text, t.tool_calls, t.extras = clean, calls, extras
            t.save(update_fields=["text", "tool_calls", "extras", "search"])  # the app-kept vector follows
            Embedding.objects.filter(owner=owner, kind="chat_turn", ref_id=t.pk).delete()
            redacted += 1
    for s in ChatSession.objects.filter(owner=owner):
        # The rolling hash must describe what is stored now, so a re-sent original is compared with it.
        h, count = "", 0
        for role, text in s.turns.order_by("index").values_list("role", "text"):
            h, count = chain_hash(h, role, text), count + 1
        s.title = matcher.redact(s.title)
        ChatSession.objects.filter(pk=s.pk).update(title=s.title, content_hash=h, turn_count=count)
    for lesson in Lesson.objects.filter(owner=owner):
        clean = matcher.redact(lesson.text)
        aliases = [matcher.redact(a) for a in lesson.aliases]
        if clean != lesson.text or aliases != lesson.aliases:
            Lesson.objects.filter(pk=lesson.pk).update(text=clean, aliases=aliases)
    return {"chat_turns_removed": len(removed_ids), "chat_turns_redacted": redacted}


def forget_handler(event) -> dict[str, int]:
    """Runs inside the ledger's forget transaction (raising rolls the forget back)."""
    from chats.models import ChatSession
    from chats.services.store import delete_session

    if event.scope == "entity" and event.matcher:
        return _scrub_stored(event.owner, event.matcher)
    if event.scope == "source" and event.source_label.startswith("chat:"):
        sessions = list(ChatSession.objects.filter(owner=event.owner, source_key=event.source_label))
        for s in sessions:
            delete_session(owner=event.owner, session=s)
        return {"chat_sessions_removed": len(sessions)}
    return {}
