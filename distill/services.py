"""The trust gate's entry points. Any conversation in, trust-scored memories out, every write a ledger commit.

    distill(...)        the memory pass (``distill.pipeline``: turns → candidates → support → features → model →
                        decision → text → write), with what it needs read from the database
    import_native(...)  a provider's own memories through the same pass, from support on
    remember(...)       an agent's proposal: screened, gated, never auto-accepted, refusals honoured
    upsert_digest(...)  the daily digest episode a source asks for with its conversation titles

One pass per (owner, scope_key) at a time (PostgreSQL advisory lock); re-running a scope matches its stored
claims by (source_key, day_key, claim_hash) and only re-scores them (promote / demote).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone as dj_timezone

from accounts.exceptions import DomainError
from accounts.services import owner_name, user_timezone
from accounts.timestamps import zone_or_utc
from distill import hooks, learning, pipeline, policies, stored_extraction, trust, writing
from distill.conversation import Conversation, NativeMemory, medium_of
from distill.extraction.base import Candidate, content_hash
from distill.extraction.deterministic import clean
from distill.extraction.injection import INJECTION_CAPTURE_CONFIDENCE, looks_like_injection
from distill.models import Claim, MinImportance, Mode
from distill.steps import decision
from distill.steps import text as memory_text
from distill.writing import PassReport
from ledger import hashing
from ledger import queries as ledger_queries
from ledger.choices import Status
from ledger.models import Fact, Refusal
from ledger.redaction import redact_text
from ledger.services import EvidenceIn, layers

log = logging.getLogger(__name__)

NATIVE_CONFIDENCE = 0.85  # a provider's own summarised fact: fairly clean text, but still machine-made
AGENT_CONFIDENCE = 0.6  # an agent's paraphrase of what it was told: plausible, never certain
MAX_REMEMBER_CHARS = 500

__all__ = [
    "PassReport",
    "RememberResult",
    "distill",
    "forget_episodes",
    "import_native",
    "record_episode",
    "remember",
    "upsert_digest",
]


class RememberError(DomainError):
    status_code = 422


def display_tags(source_key: str, marker: str) -> list[str]:
    """Tags for people browsing the ledger ("wearable", "wearable:omi", "wearable-day:2026-06-08"). Display only:
    the gate keys everything on ``Claim`` fields, never on tags."""
    family = source_key.split(":", 1)[0]
    tags = [family, source_key] if family != source_key else [family]
    return tags + ([f"{family}-{marker}"] if marker else [])


def _active_memories(owner) -> list[pipeline.ActiveMemory]:
    facts = Fact.objects.owned_by(owner).filter(status=Status.ACCEPTED).select_related("subject_entity")[:5000]
    return [
        pipeline.ActiveMemory(
            str(f.public_id),
            "user"
            if f.subject_kind == "user"
            else (f"person:{f.subject_entity.name}" if f.subject_entity_id else "unknown"),
            f.content,
        )
        for f in facts
    ]


def distill(
    *, owner, conversations: list[Conversation], scope_key: str, source_key: str, corroboration=None
) -> PassReport:
    """Run the full pass over ``conversations`` (one scope of one source) and write what survives.

    Idempotent per scope: memories this source already wrote for the day are matched by claim hash and only
    re-scored. ``corroboration`` overrides the source's registered hook (``distill.hooks``).
    """
    policy = policies.as_trust_policy(policies.get_policy(owner, source_key))
    conversations = [c for c in conversations if c.turns]
    medium = medium_of(conversations)
    day_key = next((c.day_key for c in conversations if c.day_key), "")
    existing = writing.source_day_facts(owner, source_key, day_key)
    sightings = hooks.sightings(
        owner=owner, source_key=source_key, day_key=day_key, scope_key=scope_key, hook=corroboration
    )
    ctx = pipeline.PassContext(
        policy=policy,
        conversations=conversations,
        owner_name=owner_name(owner),
        owner_key=str(owner.pk),  # the LLM's daily call cap is per owner
        timezone=user_timezone(owner).key,
        source_kind=source_key.split(":")[-1],
        medium=medium,
        siblings=[pipeline.SiblingTurn(s.source, s.text, s.is_owner, s.at) for s in sightings],
        active=_active_memories(owner),
        existing_hashes=writing.active_hashes(owner) - set(existing),
        existing_today=sum(1 for f in existing.values() if f.status in writing.ACTIVE),
        adjust=learning.adjuster(owner, policy=policy, medium=medium),
        store=stored_extraction.Store(owner, scope_key),
        report=PassReport(scope_key=scope_key),
        write=pipeline.WriteTarget(
            owner=owner,
            source_key=source_key,
            scope_key=scope_key,
            day_key=day_key,
            origin=Claim.Origin.EXTRACTED,
            tags=display_tags(source_key, f"day:{day_key}" if day_key else ""),
            names=[owner_name(owner)],
            source_type=conversations[0].source_type if conversations else "",
            with_same_day=True,
        ),
    )
    report = _report(pipeline.run(ctx))
    log.info("distill pass %s: %s", scope_key, report)
    return report


def _report(ctx: pipeline.PassContext) -> PassReport:
    report = ctx.report
    report.warnings, report.extractor, report.reused_extraction = ctx.warnings, ctx.extractor, ctx.reused_extraction
    return report


def _native_candidate(mem: NativeMemory, source_key: str) -> Candidate | None:
    from distill.extraction.deterministic import classify_text

    text = clean(mem.text or "")
    if len(text.split()) < 3:
        return None
    kind, importance, features = classify_text(text)
    cand = Candidate(
        subject="user",
        predicate=f"{kind or 'other'}:native",
        args=[],
        content=text,
        kind=kind or "other",
        importance=importance if kind else "normal",
        extraction_confidence=NATIVE_CONFIDENCE,
        capture_confidence=0.9,
        attribution="user",
        valid_from=mem.at,
        extractor=f"native:{source_key.split(':')[-1]}",
        extractor_version="1",
        features=features,  # the gate model reads a provider's memory as it reads a claim from talk
    )
    if looks_like_injection(text):
        cand.capture_confidence = INJECTION_CAPTURE_CONFIDENCE
        cand.flags.append("instruction-like text")
    return cand


def import_native(
    *, owner, source_key: str, memories: list[NativeMemory], source_ref: dict | None = None
) -> PassReport:
    """Import a provider's own memories through the gate (the pass from its support step on). Prior =
    source_trust × 0.9; the policy's ``native_mode`` (smart | review | off) decides. Idempotent by claim hash
    per source."""
    scope_key = f"{source_key}:native"
    report = PassReport(scope_key=scope_key)
    policy = policies.as_trust_policy(policies.get_policy(owner, source_key), native=True)
    if policy.mode == Mode.OFF:
        report.warnings.append("native memory import off")
        return report
    candidates = [(c, m) for m in memories if (c := _native_candidate(m, source_key)) is not None]
    by_candidate = {id(c): m for c, m in candidates}

    def evidence_for(scored: trust.Scored) -> EvidenceIn:
        cand, mem = scored.candidate, by_candidate.get(id(scored.candidate))
        return EvidenceIn(
            source_type="native_memory",
            source_ref=dict(source_ref or {}) | {"external_id": getattr(mem, "external_id", "")},
            quote=cand.content,
            extractor_id=cand.extractor,
            extractor_version=cand.extractor_version,
            capture_confidence=cand.capture_confidence,
            observed_at=cand.valid_from,
            source_label=source_key,
            details=scored.evidence_payload() | {"native": True, "flags": cand.flags},
        )

    existing = writing.source_day_facts(owner, source_key, "")
    family, _, rest = source_key.partition(":")
    ctx = pipeline.PassContext(
        policy=policy,
        owner_key=str(owner.pk),
        items=[pipeline.Item(candidate=c) for c, _ in candidates],
        existing_hashes=writing.active_hashes(owner) - set(existing),
        adjust=learning.adjuster(owner, policy=policy),
        report=report,
        write=pipeline.WriteTarget(
            owner=owner,
            source_key=source_key,
            scope_key=scope_key,
            day_key="",
            origin=Claim.Origin.NATIVE,
            tags=display_tags(source_key, f"native:{rest}" if rest else "native"),
            names=[owner_name(owner)],
            evidence_for=evidence_for,
        ),
    )
    return _report(pipeline.run_steps(ctx, pipeline.SCORING))


@dataclass
class RememberResult:
    outcome: str  # admitted | escalated | contradicted | corroborated | duplicate | refused | dropped | off
    fact: Fact | None = None
    reason: str = ""
    # Why, for a person: the held fact this claim repeats (duplicate, corroborated) or contradicts (escalated),
    # and the lasting refusal that kept it out (refused: its kind and date; the refused text is not kept).
    related: Fact | None = None
    refusal: Refusal | None = None

    @property
    def status(self) -> str | None:
        return self.fact.status if self.fact else None

    def as_dict(self) -> dict:
        return {
            "outcome": self.outcome,
            "id": str(self.fact.public_id) if self.fact else None,
            "status": self.status,
            "reason": self.reason,
            "related_id": str(self.related.public_id) if self.related else None,
        }


CONTRADICTS_REASON = "contradicts-accepted"


def _owner_day(owner) -> str:
    return dj_timezone.now().astimezone(user_timezone(owner)).date().isoformat()


def remember(
    *,
    owner,
    text: str,
    source_key: str = "agent:mcp",
    about: str = "user",
    quote: str = "",
    importance: str = "normal",
    source_ref: dict | None = None,
) -> RememberResult:
    """An agent asks to remember something. Screened for injection (instruction-like text is dropped, never
    queued), gated by the source's policy, never auto-accepted (at best pending review), and a lasting refusal
    of the same claim wins. ``about``: "user" or a person's name."""
    text = (text or "").strip()
    if not text or len(text) > MAX_REMEMBER_CHARS:
        raise RememberError(f"text must be 1 to {MAX_REMEMBER_CHARS} characters")
    if importance not in MinImportance.values:
        raise RememberError("importance must be low, normal or high")
    quote = (quote or text).strip()[:2000]
    text, quote = redact_text(text), redact_text(quote)  # an agent's words are a source too: secrets never stored
    policy = policies.as_trust_policy(policies.get_policy(owner, source_key))
    if policy.mode == Mode.OFF:
        return RememberResult("off", reason="memory mode off")
    if looks_like_injection(text) or looks_like_injection(quote):
        log.info("remember from %s dropped: instruction-like text", source_key)
        return RememberResult("dropped", reason="instruction-like text")
    cand = _agent_candidate(text=text, about=about, importance=importance, source_key=source_key)
    # An agent asked for this in so many words: the person decides, whatever the model makes of it as talk
    # (its probability is recorded). Mode off, instruction-like text, the gates and refusals still apply.
    scored = pipeline.score(cand, source_trust=policy.source_trust)
    # The agent's sentence when its quote (or the sentence itself) bears it out, else its own words, quoted.
    names = [owner_name(owner), cand.person]
    cand.content = memory_text.faithful(cand, [quote], names, speaker=source_key.split(":")[-1], verb="noted")
    scored.decision = scored.scored_decision = trust.PENDING
    scored.reason = "proposed-by-agent"
    return _write_remembered(owner, scored, policy, source_key=source_key, quote=quote, source_ref=source_ref)


def _agent_candidate(*, text: str, about: str, importance: str, source_key: str) -> Candidate:
    person = "" if about in ("", "user") else about.strip()[:200]
    return Candidate(
        subject=f"person:{person}" if person else "user",
        predicate="other:agent",
        args=[],
        content=text,
        kind="other",
        importance=importance,
        extraction_confidence=AGENT_CONFIDENCE,
        capture_confidence=0.9,
        attribution="third_party" if person else "user",
        person=person,
        extractor=source_key,
        extractor_version="1",
    )


def _write_remembered(owner, scored, policy, *, source_key: str, quote: str, source_ref) -> RememberResult:
    """The agent's claim on today's scope: gated, deduplicated against today's, proposed (at best pending)."""
    cand = scored.candidate
    day_key = _owner_day(owner)
    scope_key = f"{source_key}:{day_key}"
    with transaction.atomic():
        writing.lock_scope(owner, scope_key)
        existing = writing.source_day_facts(owner, source_key, day_key)
        decision.apply_gates([scored], policy, existing_hashes=writing.active_hashes(owner) - set(existing))
        same = existing.get(content_hash(cand.content))
        if same is not None and same.status in writing.ACTIVE:
            return RememberResult("duplicate", fact=same, reason="already proposed today", related=same)
        if scored.decision not in (trust.ACCEPTED, trust.PENDING) and scored.reason != "duplicate":
            return RememberResult("dropped", reason=scored.reason)
        held = _held_saying(owner, cand, duplicate=scored.reason == "duplicate")
        if held is not None or scored.reason == "duplicate":
            return RememberResult("duplicate", reason="duplicate", related=held)
        person = cand.person if cand.attribution == "third_party" else None
        contradicted = ledger_queries.find_contradicting(
            owner=owner, content=cand.content, subject=cand.attribution, person=person
        )
        if contradicted is not None:
            scored.reason = CONTRADICTS_REASON  # queued for the person, never silently: the caller is told
        ctx = writing.WriteContext(
            owner=owner,
            source_key=source_key,
            scope_key=scope_key,
            day_key=day_key,
            origin=Claim.Origin.AGENT,
            tags=display_tags(source_key, ""),
            evidence_for=lambda s: EvidenceIn(
                source_type="agent",
                source_ref=dict(source_ref or {}) | {"source": source_key},
                quote=quote,
                extractor_id=source_key,
                extractor_version="1",
                capture_confidence=cand.capture_confidence,
                source_label=source_key,
                details=s.evidence_payload()
                | ({"contradicts": str(contradicted.public_id)} if contradicted is not None else {}),
            ),
            existing=existing,
        )
        result = writing.propose(ctx, scored)
        if result.fact is not None and result.admitted:
            writing.record_claim(ctx, cand.content_hash, result.fact)
    if result.outcome == "refused":
        return RememberResult("refused", reason=f"refused:{result.refusal.matched_on}", refusal=result.refusal.refusal)
    if not result.admitted:  # corroborated / duplicate: an active fact already says it
        return RememberResult(result.outcome, fact=result.fact, reason=result.outcome, related=result.fact)
    outcome = "escalated" if contradicted is not None and result.outcome == "admitted" else result.outcome
    return RememberResult(
        outcome,
        fact=result.fact,
        reason=result.fact.status_reason or scored.reason,
        related=result.conflict_with or contradicted,
        refusal=result.refusal.refusal if result.previously_rejected else None,
    )


def _held_saying(owner, cand: Candidate, *, duplicate: bool) -> Fact | None:
    """An active fact about the same subject that says ``cand`` in other words (the same words are left to
    ``propose_fact``, which adds the agent's evidence to it), or, ``duplicate`` (the gate found its hash
    among active claims), in the same words."""
    person = cand.person if cand.attribution == "third_party" else None
    subject = {"owner": owner, "content": cand.content, "subject": cand.attribution, "person": person}
    if duplicate:
        return ledger_queries.find_by_text(**subject)
    held = ledger_queries.find_restating(**subject)
    return held if held is not None and held.text_key != hashing.text_key(cand.content) else None


@dataclass
class DigestItem:
    at: datetime
    title: str  # the conversation's title, or its first words


def upsert_digest(
    *,
    owner,
    source_key: str,
    key: str,
    title: str,
    items: list[DigestItem],
    source_type: str,
    timezone_name: str = "UTC",
    source_ref: dict | None = None,
    ended_at: datetime | None = None,
):
    """A daily digest episode ("3 recorded conversations: 09:10 Standup; …"), following the source's mode
    (off: none; review: pending_review). Idempotent per ``key``."""
    if policies.get_policy(owner, source_key).mode == Mode.OFF or not items:
        return None
    tz = zone_or_utc(timezone_name)
    items = sorted(items, key=lambda i: i.at)
    titles = [f"{i.at.astimezone(tz):%H:%M} {clean(i.title)[:60]}".strip() for i in items]
    n = len(items)
    summary = f"{n} recorded conversation{'s' if n != 1 else ''}: " + "; ".join(titles)
    return layers.upsert_episode(
        owner=owner,
        key=key,
        summary=summary,
        title=title,
        kind="day",
        started_at=items[0].at,
        ended_at=ended_at or items[-1].at,
        source_label=source_key,
        source_type=source_type,
        source_ref=dict(source_ref or {}),
        status=Status.PENDING_REVIEW if policies.get_policy(owner, source_key).mode == Mode.REVIEW else Status.ACCEPTED,
    )


def record_episode(*, owner, source_key: str, key: str, summary: str, **fields):
    """An episode of any source (a conversation's summary, a moment in it), following the source's mode: off →
    none is written (returns None); review → it waits as pending_review; otherwise accepted. Idempotent per
    ``key``; ``fields`` are the ledger's episode fields."""
    mode = policies.get_policy(owner, source_key).mode
    if mode == Mode.OFF:
        return None
    fields.setdefault("status", Status.PENDING_REVIEW if mode == Mode.REVIEW else Status.ACCEPTED)
    fields.setdefault("source_label", source_key)
    return layers.upsert_episode(owner=owner, key=key, summary=summary, **fields)


def forget_episodes(*, owner, key_prefix: str) -> int:
    """Remove the episodes whose key starts with ``key_prefix`` (a source re-reading a changed conversation)."""
    from ledger.models import Episode
    from ledger.services import layers

    rows = list(Episode.objects.owned_by(owner).filter(key__startswith=key_prefix))
    for ep in rows:
        layers.delete_episode(owner=owner, episode=ep)
    return len(rows)
