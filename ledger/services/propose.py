"""Admitting a claim: refusal, duplicate and conflict checks, then one commit (``propose_fact``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import StrEnum

from django.db.models import Q
from django.utils import timezone

from ledger import hashing, permitted_uses, queries
from ledger import mutations as M
from ledger.exceptions import InvalidMutation
from ledger.models import (
    Entity,
    Fact,
    RefusalHit,
    Status,
    SubjectKind,
)
from ledger.services.commits import EvidenceIn, aware, commit, evidence_mutation, fact_by_id, person_ref, serialised
from ledger.validation import check_choice, clamp01

logger = logging.getLogger(__name__)
RefusalCheck = queries.RefusalCheck


class Outcome(StrEnum):
    """What ``propose_fact`` did with a claim."""

    ADMITTED = "admitted"
    CORROBORATED = "corroborated"  # an active fact already said this: evidence added
    DUPLICATE = "duplicate"  # the same evidence again: nothing written
    REFUSED = "refused"  # a lasting refusal
    ESCALATED = "escalated"  # conflicts with a held fact: admitted for review
    CONTRADICTED = "contradicted"  # weaker than the held fact: admitted as contradicted


@dataclass
class ProposeResult:
    outcome: Outcome
    fact: Fact | None = None
    commit_id: str = ""
    refusal: RefusalCheck = field(default_factory=RefusalCheck)
    previously_rejected: bool = False
    conflict_with: Fact | None = None

    @property
    def admitted(self) -> bool:
        return self.outcome in (Outcome.ADMITTED, Outcome.ESCALATED, Outcome.CONTRADICTED)


# --- Admission -------------------------------------------------------------------------------------------
@serialised
def propose_fact(
    *,
    owner,
    content: str,
    evidence: EvidenceIn | list[EvidenceIn] | None = None,
    predicate: str = "states",
    arguments: dict | None = None,
    subject: str = "user",
    person=None,
    objects=(),
    capture_confidence: float = 0.5,
    veracity: float = 0.5,
    importance: str = "normal",
    tags=(),
    source_label: str = "",
    valid_from: datetime | None = None,
    valid_to: datetime | None = None,
    status: str = Status.PENDING_REVIEW,
    reason: str = "",
    author: str = "extractor",
    author_label: str = "",
    on_duplicate: str = "corroborate",
    exclusive: bool | None = None,
) -> ProposeResult:
    """Admit a claim through refusal, dedup and conflict checks, as one commit.

    Outcomes: "refused" (a lasting refusal, from any source; nothing written, a RefusalHit logged),
    "corroborated"/"duplicate" (an active fact already says this), "escalated" (conflicts with a held fact
    and is ambiguous and material: admitted as pending_review), "contradicted" (weaker than the held fact:
    admitted as contradicted), "admitted". Refusals hold for every source; a refused claim whose evidence
    (observed after the rejection) states a change is admitted as pending_review, marked previously_rejected,
    with the earlier rejection in its evidence details. Raises InvalidMutation for bad input.
    """
    arguments_given = locals()  # first statement: exactly the keyword arguments
    claim = _Claim(**{name: arguments_given[name] for name in _Claim.__dataclass_fields__})
    claim.content = (content or "").strip()
    claim.evidence = [evidence] if isinstance(evidence, EvidenceIn) else list(evidence or [])
    _validate(claim, on_duplicate)
    names = queries.known_names(owner=owner)
    check = _check_refusal(claim, names)
    if check.refused:
        _record_refusal_hit(claim, check)
        return ProposeResult(Outcome.REFUSED, refusal=check)
    if check.previously_rejected:
        # A change stated after the rejection: back to review only, the earlier rejection shown beside it.
        claim.status, claim.reason = Status.PENDING_REVIEW, "changed-since-rejection"
        claim.evidence = [_with_previous_rejection(ev, check) for ev in claim.evidence]
    if on_duplicate != "new":
        duplicate = _corroborate_duplicate(claim, check, skip=on_duplicate == "skip", author=author, label=author_label)
        if duplicate is not None:
            return duplicate
    return _commit_new_fact(claim, check, names, exclusive=exclusive, author=author, author_label=author_label)


def _commit_new_fact(claim, check: RefusalCheck, names, *, exclusive, author: str, author_label: str) -> ProposeResult:
    """The add-fact commit of an admitted claim, resolving a conflict with a held exclusive fact on the way."""
    owner, predicate, arguments = claim.owner, claim.predicate, claim.arguments
    muts: list[dict] = []
    add_fact = _add_fact_mutation(claim, check, names, muts)
    fact_index = len(muts)
    muts.append(add_fact)
    muts.extend(evidence_mutation(ev, f"${fact_index}") for ev in claim.evidence)
    is_exclusive = exclusive if exclusive is not None else predicate in permitted_uses.EXCLUSIVE_PREDICATES
    outcome, held = Outcome.ADMITTED, None
    if is_exclusive and claim.status in permitted_uses.ACTIVE_STATUSES and arguments:
        held = _conflicting_fact(owner, claim.subject, claim.person, predicate, claim.content, arguments)
        if held is not None:
            outcome = _resolve_conflict(claim, held, add_fact, f"${fact_index}", muts)
    result = commit(owner=owner, mutations=muts, author=author, author_label=author_label)
    return ProposeResult(
        outcome,
        fact=fact_by_id(owner, result.created_ids[fact_index]),
        commit_id=result.commit_id,
        refusal=check,
        previously_rejected=check.previously_rejected,
        conflict_with=Fact.objects.get(pk=held.pk) if held is not None else None,
    )


@dataclass
class _Claim:
    """``propose_fact``'s arguments, validated once and handed to its steps."""

    owner: object
    content: str
    evidence: list[EvidenceIn]
    predicate: str
    arguments: dict | None
    subject: str
    person: object
    objects: tuple | list
    capture_confidence: float
    veracity: float
    importance: str
    tags: tuple | list
    source_label: str
    valid_from: datetime | None
    valid_to: datetime | None
    status: str
    reason: str


def _validate(claim: _Claim, on_duplicate: str) -> None:
    """Raise InvalidMutation for bad input; clamp the confidences and make the times aware."""
    if not claim.content:
        raise InvalidMutation("content must not be empty")
    check_choice(claim.subject, M.SUBJECT_KINDS, "subject")
    check_choice(claim.importance, permitted_uses.IMPORTANCE_ORDER, "importance")
    check_choice(claim.status, permitted_uses.STATUSES, "status")
    check_choice(on_duplicate, ("corroborate", "skip", "new"), "on_duplicate")
    claim.capture_confidence = clamp01(claim.capture_confidence, "capture_confidence")
    claim.veracity = clamp01(claim.veracity, "veracity")
    if claim.subject == SubjectKind.THIRD_PARTY and claim.person is None:
        raise InvalidMutation("a third_party claim needs the person it is about")
    if claim.arguments is not None and not isinstance(claim.arguments, dict):
        raise InvalidMutation("arguments must be an object keyed by slot")
    for ev in claim.evidence:
        if not isinstance(ev, EvidenceIn):
            raise InvalidMutation("evidence must be ledger.services.EvidenceIn")
        aware(ev.observed_at, "evidence observed_at")
    claim.valid_from, claim.valid_to = aware(claim.valid_from, "valid_from"), aware(claim.valid_to, "valid_to")
    if claim.valid_from and claim.valid_to and claim.valid_to <= claim.valid_from:
        raise InvalidMutation("valid_to must be after valid_from")


def _check_refusal(claim: _Claim, names) -> RefusalCheck:
    return queries.check_refusal(
        owner=claim.owner,
        content=claim.content,
        subject=claim.subject,
        person=claim.person if claim.subject == SubjectKind.THIRD_PARTY else None,
        objects=claim.objects,
        predicate=claim.predicate,
        arguments=claim.arguments,
        source_label=claim.source_label,
        change_text=" ".join([claim.content, *(str(ev.quote or "") for ev in claim.evidence)]),
        observed_at=max((ev.observed_at for ev in claim.evidence if ev.observed_at), default=None),
        names=names,
    )


def _proposition_key(claim: _Claim) -> str:
    return queries.keys_for(
        owner=claim.owner,
        content=claim.content,
        subject=claim.subject,
        person=claim.person,
        predicate=claim.predicate,
        arguments=claim.arguments,
    )[0]


def _record_refusal_hit(claim: _Claim, check: RefusalCheck) -> None:
    RefusalHit.objects.create(
        owner=claim.owner,
        refusal=check.refusal,
        decision_commit_id=check.decision_commit_id,
        matched_on=check.matched_on,
        similarity=check.similarity,
        source_hash=hashing.short_hash(claim.source_label),
        proposition_key=_proposition_key(claim),
    )
    logger.info("ledger: claim refused (%s) -> decision %s", check.matched_on, check.decision_commit_id[:12])


def _corroborate_duplicate(
    claim: _Claim, check: RefusalCheck, *, skip: bool, author: str, label: str
) -> ProposeResult | None:
    """The same claim about the same subject, already held: its evidence is added (or, skipping, nothing)."""
    existing = _find_duplicate(claim.owner, _proposition_key(claim), claim.content, claim.subject, claim.person)
    if existing is None:
        return None
    if skip or not claim.evidence:
        return ProposeResult(Outcome.DUPLICATE, fact=existing, refusal=check)
    result = commit(
        owner=claim.owner,
        mutations=[evidence_mutation(ev, str(existing.public_id)) for ev in claim.evidence],
        author=author,
        author_label=label,
    )
    return ProposeResult(
        Outcome.CORROBORATED,
        fact=fact_by_id(claim.owner, existing.public_id),
        commit_id=result.commit_id,
        refusal=check,
    )


def _add_fact_mutation(claim: _Claim, check: RefusalCheck, names, muts: list[dict]) -> dict:
    """The ADD_FACT mutation; the people it names are appended to ``muts`` first (as entity mutations)."""
    owner, subject, person = claim.owner, claim.subject, claim.person
    subject_ref = person_ref(owner, person, muts) if subject == SubjectKind.THIRD_PARTY else None
    object_refs = [person_ref(owner, o, muts, kind="other") for o in claim.objects]
    return {
        "type": M.ADD_FACT,
        "subject_kind": subject,
        "subject_entity_id": subject_ref,
        "object_entity_ids": object_refs,
        "importance": claim.importance,
        "status": claim.status,
        "capture_confidence": claim.capture_confidence,
        "veracity": claim.veracity,
        "valid_from": hashing.iso(claim.valid_from),
        "valid_to": hashing.iso(claim.valid_to),
        "previously_rejected": check.previously_rejected,
        "refusal_commit_id": check.decision_commit_id if check.previously_rejected else "",
        "token_hashes": hashing.token_signature(
            claim.content, queries.subject_names(owner=owner, subject=subject, person=person), known_names=names
        ),
        "payload": {
            "content": claim.content,
            "predicate": claim.predicate or "states",
            "arguments": claim.arguments or {},
            "tags": [str(t)[:100] for t in claim.tags],
            "source_label": claim.source_label[:200],
            "reason": claim.reason[:200],
        },
    }


def _resolve_conflict(claim: _Claim, held: Fact, add_fact: dict, new_ref: str, muts: list[dict]) -> Outcome:
    """An exclusive predicate already holds another value: escalate, keep the held one, or supersede it."""
    decision = permitted_uses.conflict_resolution(
        new_veracity=claim.veracity,
        new_importance=claim.importance,
        held_veracity=held.veracity,
        held_importance=held.importance,
    )
    if decision == "escalate":
        add_fact["status"] = Status.PENDING_REVIEW
        add_fact["payload"]["reason"] = "conflict-escalated"
        return Outcome.ESCALATED
    if decision == "keep_held":
        add_fact["status"] = Status.CONTRADICTED
        add_fact["payload"]["reason"] = "weaker-than-held"
        return Outcome.CONTRADICTED
    later = claim.valid_from is not None and (held.valid_from is None or claim.valid_from > held.valid_from)
    muts.append(
        {
            "type": M.SUPERSEDE_FACT,
            "old_fact_id": str(held.public_id),
            "new_fact_id": new_ref,
            "kind": "update" if later else "contradict",
        }
    )
    return Outcome.ADMITTED


def _with_previous_rejection(ev: EvidenceIn, check: RefusalCheck) -> EvidenceIn:
    ref = check.refusal
    earlier = {
        "refusal_id": str(ref.public_id),
        "kind": ref.kind,
        "decision_commit_id": ref.decision_commit_id,
        "decided_at": hashing.iso(ref.recorded_at),
        "fact_id": str(ref.fact_public_id) if ref.fact_public_id else None,
        "matched_on": check.matched_on,
    }
    return replace(ev, details={**(ev.details or {}), "previous_rejection": earlier})


def _find_duplicate(owner, pkey: str, content: str, subject: str, person) -> Fact | None:
    """``find_by_proposition_key(pkey) or find_by_text(content, subject, person)`` in one round trip."""
    wanted = Q(proposition_key=pkey)
    text = Q(text_key=hashing.text_key(content), subject_kind=subject)
    if subject == "third_party" and person is not None:
        entity = (
            person if isinstance(person, Entity) else queries.find_entity(owner=owner, name=queries.person_name(person))
        )
        text = (
            None if entity is None else text & Q(subject_entity__public_id=queries.surviving_entity(entity).public_id)
        )
    if text is not None:
        wanted |= text
    rows = list(Fact.objects.owned_by(owner).filter(wanted, status__in=queries.ACTIVE).order_by("recorded_at"))
    by_key = next((f for f in rows if f.proposition_key == pkey), None)
    if by_key is not None or text is None:
        return by_key
    return next((f for f in rows if f.text_key == hashing.text_key(content) and f.subject_kind == subject), None)


def _conflicting_fact(owner, subject, person, predicate, content, arguments) -> Fact | None:
    qs = Fact.objects.owned_by(owner).active().filter(predicate=predicate)
    qs = queries._filter_subject(qs, owner, subject, person if subject == "third_party" else None)
    skey = queries.resolve_subject_key(owner=owner, subject=subject, person=person)
    pkey = hashing.proposition_key(skey, predicate, arguments, content)
    return qs.exclude(proposition_key=pkey).valid_at(timezone.now()).order_by("-recorded_at").first()
