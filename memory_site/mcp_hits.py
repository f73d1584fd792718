"""Progressive disclosure for agents: short cited hits first, full evidence only for the ids an agent opens.

``search_hits`` answers with one line per hit: its id (a citation such as ``fact:<uuid>`` or
``chat:<session uuid>#12``), what it is, when, and ``tokens``, what opening it costs. ``expand`` turns chosen ids
into full evidence: a fact with its status, permitted uses and evidence quotes; an episode with its summary; a
transcript or chat turn with the turns around it. Every lookup is scoped to the owner and to what recall may
show (``RecallProvider.queryset``): another person's id, a rejected fact or a forgotten turn answers as not found,
the same way as an id that never existed.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterable
from datetime import datetime

from django.db.models import Prefetch, Q

from accounts.services import user_timezone
from chats.origins import citation
from ledger import permitted_uses
from ledger.models import Episode, Evidence, Fact, PinnedFact
from ledger.recall.ledger_providers import EpisodeProvider, FactProvider
from ledger.recall.lexical import count_tokens
from ledger.recall.planner import RecallItem

LINE_CHARS = 160  # a hit is one line: enough to choose, not to answer
AROUND = 2  # turns shown on each side of a transcript or chat hit
EVIDENCE_MAX = 10  # evidence quotes shown for one fact (newest kept)
QUOTE_CHARS = 1000
MAX_IDS = 20

_ID = re.compile(r"^(fact|episode|transcript|chat):([0-9a-fA-F-]{36})(?:#(\d{1,7}))?$")
Expansion = dict


def _line(text: str) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= LINE_CHARS else flat[: LINE_CHARS - 1].rstrip() + "…"


def _cost(expansion: Expansion) -> int:
    return count_tokens(json.dumps(expansion, ensure_ascii=False))


def _local_day(occurred_at: str, tz) -> str:
    """The owner's local date of an ISO time ("" when there is none; a bare date stays as it is)."""
    try:
        when = datetime.fromisoformat(occurred_at)
    except ValueError:
        return occurred_at[:10]
    return when.astimezone(tz).date().isoformat() if when.tzinfo and len(occurred_at) > 10 else occurred_at[:10]


def hits(owner, items: list[RecallItem]) -> dict:
    """One short line per item, each with the token cost of opening it (the expansion, computed now)."""
    tz = user_timezone(owner)
    ids = list(dict.fromkeys(citation(i) for i in items))
    opened, _missing = expand(owner, ids)
    by_id = {e["id"]: e for e in opened}
    out, seen = [], set()
    for item in items:
        key = citation(item)
        if key not in by_id or key in seen:
            continue
        seen.add(key)
        out.append(
            {"id": key, "kind": by_id[key]["kind"], "line": _line(item.text), "when": _local_day(item.occurred_at, tz),
             "tokens": _cost(by_id[key])}
        )  # fmt: skip
    return {
        "hits": out,
        "tokens_to_open_all": sum(h["tokens"] for h in out),
        "next": "Call expand_hits with the ids worth reading; each costs about its 'tokens'.",
    }


def parse_ids(ids: Iterable[str]) -> dict[str, list[tuple[str, uuid.UUID, int | None]]]:
    """{kind: [(id as given, uuid, turn index or None)]} for the ids of a known shape; others are left out."""
    out: dict[str, list] = {}
    for raw in ids:
        m = _ID.match(raw.strip()) if isinstance(raw, str) else None
        if m is None:
            continue
        kind, index = m.group(1), m.group(3)
        try:
            public_id = uuid.UUID(m.group(2))
        except ValueError:  # 36 characters of the right alphabet, but not a uuid
            continue
        if (index is None) == (kind in ("transcript", "chat")):
            continue  # a turn needs its index, a fact or an episode has none
        out.setdefault(kind, []).append((raw.strip(), public_id, int(index) if index is not None else None))
    return out


def expand(owner, ids: list[str]) -> tuple[list[Expansion], list[str]]:
    """(expansions in the order asked, ids not found). Unknown shapes, other owners' rows and rows recall may
    not show are all simply not found."""
    tz = user_timezone(owner)
    found: dict[str, Expansion] = {}
    for kind, wanted in parse_ids(ids).items():
        found.update(EXPANDERS[kind](owner, wanted, tz))
    asked = list(dict.fromkeys(i.strip() for i in ids if isinstance(i, str)))
    return [found[i] for i in asked if i in found], [i for i in asked if i not in found]


def _when(value, tz) -> str | None:
    return value.astimezone(tz).isoformat(timespec="minutes") if value else None


def _facts(owner, wanted, tz) -> dict[str, Expansion]:
    by_uuid = {public_id: key for key, public_id, _ in wanted}
    rows = (
        FactProvider()
        .queryset(owner)
        .filter(public_id__in=list(by_uuid))
        .select_related("subject_entity")
        .prefetch_related(Prefetch("evidence", queryset=Evidence.objects.live().order_by("-recorded_at")))
    )
    pinned = set(PinnedFact.objects.owned_by(owner).filter(fact__public_id__in=list(by_uuid)).values_list(
        "fact__public_id", flat=True))  # fmt: skip
    return {by_uuid[f.public_id]: _fact_expansion(f, by_uuid[f.public_id], f.public_id in pinned, tz) for f in rows}


def _fact_expansion(f: Fact, key: str, pinned: bool, tz) -> Expansion:
    evidence = list(f.evidence.all())[:EVIDENCE_MAX]
    return {
        "id": key,
        "kind": "fact",
        "content": f.content,
        "about": f.subject_entity.name if f.subject_entity_id else f.subject_kind,
        "status": f.status,
        "pinned": pinned,
        "importance": f.importance,
        "valid_from": _when(f.valid_from, tz),
        "recorded": _when(f.recorded_at, tz),
        "permitted_uses": permitted_uses.permitted_uses(f.status),
        "evidence": [
            {"quote": (e.quote or "")[:QUOTE_CHARS], "source": e.source_label or e.source_type,
             "observed": _when(e.observed_at or e.recorded_at, tz)}
            for e in evidence
        ],
    }  # fmt: skip


def _episodes(owner, wanted, tz) -> dict[str, Expansion]:
    by_uuid = {public_id: key for key, public_id, _ in wanted}
    rows: Iterable[Episode] = EpisodeProvider().queryset(owner).filter(public_id__in=list(by_uuid))
    return {
        by_uuid[e.public_id]: {
            "id": by_uuid[e.public_id], "kind": "episode", "title": e.title, "summary": e.summary,
            "topics": list(e.topics or []), "started": _when(e.started_at, tz), "ended": _when(e.ended_at, tz),
            "source": e.source_label, "status": e.status,
        }
        for e in rows
    }  # fmt: skip


def _turns(wanted, rows, key_of: Callable, turn_of: Callable) -> dict[str, list[dict]]:
    """For each wanted (key, uuid, index): the rows of its conversation within AROUND turns, in order."""
    by_conversation: dict = {}
    for row in rows:
        by_conversation.setdefault(key_of(row), []).append(row)
    out = {}
    for key, public_id, index in wanted:
        near = sorted(by_conversation.get(public_id, []), key=lambda r: r.index)
        if any(r.index == index for r in near):
            out[key] = [turn_of(r) | {"hit": r.index == index} for r in near if abs(r.index - index) <= AROUND]
    return out


def _window(wanted, field: str) -> Q:
    q = Q(pk__in=[])
    for _key, public_id, index in wanted:
        q |= Q(**{field: public_id, "index__gte": index - AROUND, "index__lte": index + AROUND})
    return q


def _transcripts(owner, wanted, tz) -> dict[str, Expansion]:
    from wearables.recall_provider import TranscriptProvider

    rows = list(
        TranscriptProvider().queryset(owner).filter(_window(wanted, "transcript__public_id"))
        .select_related("transcript__source")
    )  # fmt: skip
    day = {r.transcript.public_id: r.transcript for r in rows}
    turns = _turns(
        wanted,
        rows,
        lambda r: r.transcript.public_id,
        lambda r: {"index": r.index, "speaker": r.speaker_name or r.speaker_label or "unknown speaker",
                   "text": r.text, "at": _when(r.started_at, tz)},
    )  # fmt: skip
    return {
        key: {"id": key, "kind": "transcript", "source": day[public_id].source.kind,
              "date": day[public_id].local_date.isoformat(), "turns": turns[key]}
        for key, public_id, _ in wanted if key in turns
    }  # fmt: skip


def _chats(owner, wanted, tz) -> dict[str, Expansion]:
    from chats.recall_provider import ChatTurnProvider

    rows = list(
        ChatTurnProvider().queryset(owner).filter(_window(wanted, "session__public_id")).select_related("session")
    )
    session = {r.session.public_id: r.session for r in rows}
    turns = _turns(
        wanted,
        rows,
        lambda r: r.session.public_id,
        lambda r: {"index": r.index, "speaker": r.speaker or r.role, "role": r.role, "text": r.text,
                   "at": _when(r.occurred_at or r.created_at, tz)},
    )  # fmt: skip
    return {
        key: {"id": key, "kind": "chat",
              "session": {"title": session[public_id].title, "project": _project_name(session[public_id]),
                          "source": session[public_id].source_key},
              "turns": turns[key]}
        for key, public_id, _ in wanted if key in turns
    }  # fmt: skip


def _project_name(session) -> str:
    return session.agent_project.name if session.agent_project_id else ""


EXPANDERS: dict[str, Callable] = {"fact": _facts, "episode": _episodes, "transcript": _transcripts, "chat": _chats}
