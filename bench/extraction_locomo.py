"""LoCoMo observations for bench/extraction.py: how many of the facts two people state in a multi-session chat
the memory pass finds, and about whom.

Each session of each conversation enters through the generic conversation import (``chats`` app's
``import_conversation``, the service behind ``POST /api/v1/chats/conversations``: ``speaker_a`` is the owner,
``speaker_b`` a third party, every turn keeps its position so its ``dia_id`` is known), which stores the session
and distils it at once through ``distill`` in a separate database; ``--dry`` runs the pure pipeline
(``distill.pipeline``) on the same neutral conversation instead. An observation
(person, fact, dia_id) is

- **found** when a memory whose evidence is that turn, about that person, matches its content (the labeled-days
  reference matcher, containment ≥ 0.5, the person's name tokens dropped from both sides);
- an **attribution error** when a memory from that turn matches its content but is about somebody else (or
  nobody).

Accepted memories per 100 turns say how talkative the gate is; "accepted grounded" is the share of accepted
memories that match some observation of their own turn (a floor on precision: observations are not exhaustive).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

DEFAULT_PATH = Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "locomo-dev.json"
if not DEFAULT_PATH.exists():  # a git worktree sits one level deeper than the checkout
    DEFAULT_PATH = Path(__file__).resolve().parents[3] / "shared" / "bench" / "locomo-dev.json"
THRESHOLD = 0.5


@dataclass
class Session:
    sample_id: str
    number: int
    owner: str  # speaker_a
    other: str  # speaker_b
    started_at: datetime | None
    turns: list[dict]  # {"speaker", "dia_id", "text"}


@dataclass
class Mem:
    sample_id: str
    session: int
    decision: str
    subject: str  # person name, "" when unknown
    content: str
    dia_ids: list[str] = field(default_factory=list)
    note: str = ""


def _parse_when(value: str) -> datetime | None:
    try:
        return datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    except (ValueError, AttributeError):
        return None


def load_sessions(data: list[dict]) -> list[Session]:
    out = []
    for sample in data:
        conv = sample["conversation"]
        numbers = sorted(int(m.group(1)) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)))
        for n in numbers:
            turns = [t for t in conv[f"session_{n}"] if (t.get("text") or "").strip()]
            if turns:
                out.append(
                    Session(
                        sample["sample_id"],
                        n,
                        conv["speaker_a"],
                        conv["speaker_b"],
                        _parse_when(conv.get(f"session_{n}_date_time", "")),
                        turns,
                    )
                )
    return out


def observations(data: list[dict]) -> list[dict]:
    """Flatten to {sample_id, session, person, text, dia_ids}."""
    out = []
    for sample in data:
        for key, per_person in sample.get("observation", {}).items():
            m = re.match(r"session_(\d+)_observation", key)
            if not m:
                continue
            for person, items in per_person.items():
                for item in items:
                    text, ref = item[0], item[1] if len(item) > 1 else ""
                    refs = ref if isinstance(ref, list) else re.findall(r"D\d+:\d+", str(ref))
                    out.append(
                        {
                            "sample_id": sample["sample_id"],
                            "session": int(m.group(1)),
                            "person": person,
                            "text": text,
                            "dia_ids": list(refs),
                        }
                    )
    return out


# --- runs ---------------------------------------------------------------------------------------------------
def neutral_conversation(session: Session):
    """The session as the distill contract's neutral conversation (for the service)."""
    from distill.conversation import Conversation, Speaker, Turn

    owner = Speaker(name=session.owner, is_owner=True)
    other = Speaker(name=session.other)
    turns = [
        Turn(
            index=i,
            speaker=owner if t["speaker"] == session.owner else other,
            text=t["text"],
            at=session.started_at,
            ref={"dia_id": t["dia_id"]},
        )
        for i, t in enumerate(session.turns)
    ]
    day = session.started_at.date().isoformat() if session.started_at else ""
    scope = f"chat:locomo:{session.sample_id}:{session.number}"
    return Conversation(
        source_key="chat:import",
        source_type="chat",
        scope_key=scope,
        day_key=day,
        turns=turns,
        external_id=f"{session.sample_id}/session_{session.number}",
        started_at=session.started_at,
        source_ref={"sample_id": session.sample_id, "session": session.number},
    )


def session_input(session: Session):
    """One LoCoMo session as the gate's input: speaker_a is the owner, one conversation, its dialog ids kept."""
    from distill.extraction.base import ConversationIn, DayInput, TurnIn

    utts = [
        TurnIn(i, t["speaker"], t["speaker"] == session.owner, t["text"], session.started_at)
        for i, t in enumerate(session.turns)
    ]
    conv = ConversationIn(started_at=session.started_at, turns=utts, external_id=str(session.number))
    return DayInput(owner_name=session.owner, conversations=[conv], source_kind="chat")


def run_pure(sessions: list[Session]) -> list[Mem]:
    """The pure pipeline (no database): one owner per LoCoMo sample, sessions in order."""
    os.environ.setdefault("ALMANAC_HOME", "/tmp/almanac-bench")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
    import django

    django.setup()  # the gate reads its modes' TextChoices
    from distill import pipeline, trust
    mems: list[Mem] = []
    state: dict[str, tuple[list, set]] = {}
    for s in sessions:
        active, hashes = state.setdefault(s.sample_id, ([], set()))
        day = session_input(s)
        out = pipeline.run(
            pipeline.PassInput(day=day, policy=trust.Policy(), active=list(active), existing_hashes=set(hashes))
        )
        for sc in out.scored:
            c = sc.candidate
            subject = s.owner if c.attribution == "user" else (c.person or "")
            first = c.evidence.first_index if c.evidence else -1
            last = c.evidence.last_index if c.evidence else -1
            refs = [s.turns[i]["dia_id"] for i in range(first, last + 1) if 0 <= i < len(s.turns)]
            note = f"{sc.score:.2f} {c.kind} {sc.reason}; {','.join(c.flags)}"
            mems.append(Mem(s.sample_id, s.number, sc.decision, subject, c.content, refs, note))
            if sc.decision in ("accepted", "pending_review"):
                hashes.add(c.content_hash)
                if sc.decision == "accepted":
                    active.append(pipeline.ActiveMemory(str(len(active)), c.subject, c.content))
    return mems


def service_available() -> bool:
    try:
        from chats.services import conversations  # noqa: F401
        from distill import services

        return hasattr(services, "distill") and _conversation_module()
    except Exception:  # noqa: BLE001 - any import failure means "not yet"
        return False


def _conversation_module() -> bool:
    try:
        from distill.conversation import Conversation  # noqa: F401
    except ImportError:
        return False
    return True


def import_payload(session: Session) -> dict:
    """The session as the body of ``POST /api/v1/chats/conversations`` (the generic conversation import)."""
    return {
        "external_id": f"locomo/{session.sample_id}/session_{session.number}",
        "title": f"LoCoMo {session.sample_id} session {session.number}",
        "started_at": session.started_at,
        "participants": [{"name": session.owner, "is_owner": True}, {"name": session.other, "is_owner": False}],
        "turns": [{"speaker": t["speaker"], "text": t["text"], "at": session.started_at} for t in session.turns],
    }


def run_service(sessions: list[Session]) -> list[Mem]:
    """The real pass: each session imported through ``chats.services.conversations.import_conversation``
    (stored as a chat session, distilled at once through ``distill``) for one fresh owner per sample whose display
    name is ``speaker_a``. Every scored candidate is recorded on its way through the pipeline."""
    os.environ.setdefault("ALMANAC_HOME", "/tmp/almanac-bench")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
    import django

    django.setup()
    from unittest import mock

    from django.contrib.auth import get_user_model

    from accounts.services import update_settings
    from chats.services.conversations import import_conversation
    from distill import pipeline

    owners = {}
    mems: list[Mem] = []
    user_model = get_user_model()
    real_run = pipeline.run
    current: list[Session] = []

    def recording_run(inp):
        out = real_run(inp)
        s = current[0]
        for sc in out.scored:
            c = sc.candidate
            subject = s.owner if c.attribution == "user" else (c.person or "")
            first = c.evidence.first_index if c.evidence else -1
            last = c.evidence.last_index if c.evidence else -1
            refs = [s.turns[i]["dia_id"] for i in range(first, last + 1) if 0 <= i < len(s.turns)]
            note = f"{sc.score:.2f} {c.kind} {sc.reason}; {','.join(c.flags)}"
            mems.append(Mem(s.sample_id, s.number, sc.decision, subject, c.content, refs, note))
        return out

    with mock.patch.object(pipeline, "run", recording_run):
        for s in sessions:
            if s.sample_id not in owners:
                username = f"bench-locomo-{s.sample_id}"
                user_model.objects.filter(username=username).delete()
                owner = user_model.objects.create_user(username=username, password="bench-pass-1234")
                update_settings(user=owner, display_name=s.owner)
                owners[s.sample_id] = owner
            current[:] = [s]
            import_conversation(owner=owners[s.sample_id], **import_payload(s))
    return mems


# --- scoring ------------------------------------------------------------------------------------------------
def _name_tokens(*names: str) -> tuple[str, ...]:
    out: list[str] = []
    for n in names:
        out += n.split()
    return tuple(out)


def score(data: list[dict], sessions: list[Session], mems: list[Mem], match_score) -> dict:
    obs = observations(data)
    turns = sum(len(s.turns) for s in sessions)
    by_turn: dict[tuple[str, str], list[Mem]] = {}
    for m in mems:
        if m.decision in ("accepted", "pending_review"):
            for ref in m.dia_ids:
                by_turn.setdefault((m.sample_id, ref), []).append(m)
    found_any = found_acc = attribution = 0
    misattributed: list[str] = []
    missed: list[str] = []
    for o in obs:
        names = _name_tokens(o["person"])
        cands = [m for ref in o["dia_ids"] for m in by_turn.get((o["sample_id"], ref), [])]
        matching = [m for m in cands if match_score(o["text"], m.content, names)[0] >= THRESHOLD]
        right = [m for m in matching if m.subject == o["person"]]
        if right:
            found_any += 1
            found_acc += any(m.decision == "accepted" for m in right)
        elif matching:
            attribution += 1
            wrong = matching[0]
            misattributed.append(
                f"{o['dia_ids']} {o['person']}: {o['text']}  <- {wrong.subject or '?'}: {wrong.content}"
            )
        else:
            missed.append(f"{o['dia_ids']} {o['person']}: {o['text']}")
    accepted = [m for m in mems if m.decision == "accepted"]
    queued = [m for m in mems if m.decision == "pending_review"]
    obs_by_turn: dict[tuple[str, str], list[dict]] = {}
    for o in obs:
        for ref in o["dia_ids"]:
            obs_by_turn.setdefault((o["sample_id"], ref), []).append(o)
    grounded = 0
    ungrounded: list[str] = []
    for m in accepted:
        hit = any(
            match_score(o["text"], m.content, _name_tokens(o["person"]))[0] >= THRESHOLD and m.subject == o["person"]
            for ref in m.dia_ids
            for o in obs_by_turn.get((m.sample_id, ref), [])
        )
        grounded += hit
        if not hit:
            ungrounded.append(f"{m.sample_id} {m.dia_ids} {m.subject or '?'}: {m.content}  [{m.note}]")
    return {
        "conversations": len({s.sample_id for s in sessions}),
        "sessions": len(sessions),
        "turns": turns,
        "observations": len(obs),
        "recall_any": (found_any, len(obs)),
        "recall_acc": (found_acc, len(obs)),
        "attribution_errors": attribution,
        "accepted": len(accepted),
        "queued": len(queued),
        "accepted_per_100": 100.0 * len(accepted) / turns if turns else 0.0,
        "queued_per_100": 100.0 * len(queued) / turns if turns else 0.0,
        "grounded": (grounded, len(accepted)),
        "_misattributed": misattributed,
        "_missed": missed,
        "_ungrounded": ungrounded,
    }


def print_summary(result: dict, fmt) -> None:
    print(
        "| set | conversations | sessions | turns | observations | recall acc+queued | recall acc | attribution errors "
        "| accepted / 100 turns | queued / 100 turns | accepted grounded in an observation |"
    )
    print("|" + "---|" * 11)
    print(
        f"| LoCoMo dev | {result['conversations']} | {result['sessions']} | {result['turns']} | "
        f"{result['observations']} | {fmt(result['recall_any'])} | {fmt(result['recall_acc'])} | "
        f"{result['attribution_errors']} | {result['accepted_per_100']:.1f} ({result['accepted']}) | "
        f"{result['queued_per_100']:.1f} ({result['queued']}) | {fmt(result['grounded'])} |"
    )
