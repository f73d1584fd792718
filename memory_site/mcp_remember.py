"""What the MCP ``remember`` tool tells an agent: the gate's outcome (``distill.services.remember``) in words a
person understands, and whether the call did what was asked.

The call did what was asked when a new claim waits in the person's review queue. Anything else (refused, already
known, contradicting an accepted fact, dropped, memory off) carries an ``error`` sentence, which the server turns
into a tool error (``isError``) that the agent reads and can pass on: "the user rejected this claim on 2026-03-02",
"contradicts the accepted fact …", "already known: …". A claim that contradicts an accepted fact still waits for
the person beside that fact, and the agent is told so; it is never queued silently.
"""

from __future__ import annotations

from datetime import datetime

from accounts.services import user_timezone
from distill.services import RememberResult
from ledger.choices import Status
from ledger.models import Fact, Refusal

REFUSED = {
    Refusal.Kind.REJECTED: "The user rejected this claim on {on}{what}",
    Refusal.Kind.RETRACTED: "The user retracted this memory on {on}{what}",
    Refusal.Kind.FORGOTTEN: "The user had Almanac forget this on {on}",
    Refusal.Kind.FORGOTTEN_ENTITY: "The user had Almanac forget everything about this person on {on}",
}
# Rejected and retracted claims may come back for review when something changed; forgotten ones never do.
COME_BACK = (
    "; Almanac does not propose it again. If something changed, remember it with a quote that says what "
    "changed and when."
)
STAYS_FORGOTTEN = "; it stays forgotten."
DROPPED = {
    "instruction-like text": "it reads like an instruction to an assistant, not something about the user",
    "below min_importance": "the user keeps only more important memories from agents",
    "below min_confidence": "it is below the confidence the user asks of agent proposals",
    "over max_memories_per_day": "the user's daily limit of memories from agents is reached",
}


def _day(owner, when: datetime | None) -> str:
    return when.astimezone(user_timezone(owner)).date().isoformat() if when else "an earlier day"


def _held(owner, fact: Fact) -> str:
    """'the accepted fact "…" (recorded 2026-03-02)' or 'a memory waiting for review: "…" (…)'."""
    on = _day(owner, fact.recorded_at)
    if fact.status == Status.ACCEPTED:
        return f'the accepted fact "{fact.content}" (recorded {on})'
    return f'a memory already waiting for the user\'s review, "{fact.content}" (proposed {on})'


def _refused(owner, refusal: Refusal | None) -> str:
    if refusal is None:
        return "The user refused this claim earlier" + COME_BACK
    what = ""
    if refusal.kind in (Refusal.Kind.REJECTED, Refusal.Kind.RETRACTED) and refusal.fact_public_id:
        earlier = Fact.objects.owned_by(owner).filter(public_id=refusal.fact_public_id).first()
        what = f' ("{earlier.content}")' if earlier is not None else ""
    sentence = REFUSED.get(refusal.kind, REFUSED[Refusal.Kind.REJECTED]).format(
        on=_day(owner, refusal.recorded_at), what=what
    )
    forgotten = refusal.kind in (Refusal.Kind.FORGOTTEN, Refusal.Kind.FORGOTTEN_ENTITY)
    return sentence + (STAYS_FORGOTTEN if forgotten else COME_BACK)


def _dropped(reason: str) -> str:
    words = next((w for key, w in DROPPED.items() if reason.startswith(key)), reason or "the gate dropped it")
    return f"Not stored: {words}."


def error_for(owner, result: RememberResult) -> str:
    """The sentence for a call that did not do what was asked; "" when the claim waits for review as asked."""
    related = result.related
    match result.outcome:
        case "admitted":
            return ""
        case "escalated" | "contradicted" if related is not None:
            then = (
                "It waits in the user's review queue beside that fact; until the user decides, the accepted fact "
                "stands."
                if result.outcome == "escalated"
                else "It is weaker than that fact, so it was kept as contradicted history and not queued."
            )
            return f"Contradicts {_held(owner, related)}. {then}"
        case "corroborated" | "duplicate":
            known = f"Already known: duplicate of {_held(owner, related)}" if related else "Already known"
            added = "; this quote was added to its evidence" if result.outcome == "corroborated" else ""
            return f"{known}. Nothing new was queued{added}."
        case "refused":
            return _refused(owner, result.refusal)
        case "off":
            return "Not stored: the user has switched off memories proposed by agents."
        case _:
            return _dropped(result.reason)


def remember_out(owner, result: RememberResult) -> dict:
    """The tool's answer: outcome, the new memory's id and status, why (``reason`` for programs, ``message``
    for people), the held fact it repeats or contradicts, and ``error`` when the call did not do what was asked."""
    fact = result.fact if result.outcome not in ("corroborated", "duplicate") else None
    error = error_for(owner, result)
    out = {
        "outcome": result.outcome,
        "id": str(fact.public_id) if fact else None,
        "status": fact.status if fact else None,
        "reason": result.reason,
        "message": error or "Queued for the user's review; the user decides whether Almanac keeps it.",
    }
    if result.related is not None:
        out["related"] = {
            "id": str(result.related.public_id),
            "content": result.related.content,
            "status": result.related.status,
            "recorded": _day(owner, result.related.recorded_at),
        }
    if result.refusal is not None:
        out["refusal"] = {"kind": result.refusal.kind, "on": _day(owner, result.refusal.recorded_at)}
        if not error:
            on = out["refusal"]["on"]
            out["message"] += f" The user rejected a claim like it on {on}; the review shows that beside it."
    if error:
        out["error"] = error
    return out
