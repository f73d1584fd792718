"""Composed, owner-scoped reads. Everything that returns facts to a reader applies the policy table."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet
from django.utils import timezone

from ledger import hashing, policy
from ledger.models import Commit, CommitRef, Entity, Episode, Fact, FactVersion, Refusal

ACTIVE = policy.ACTIVE_STATUSES


# --- Entities -------------------------------------------------------------------------------------------
def surviving_entity(entity: Entity) -> Entity:
    """Follow ``merged_into`` to the entity that now stands for this one."""
    seen = set()
    while entity.merged_into and entity.merged_into not in seen:
        seen.add(entity.merged_into)
        nxt = Entity.objects.filter(owner_id=entity.owner_id, public_id=entity.merged_into).first()
        if nxt is None:
            break
        entity = nxt
    return entity


def find_entity(*, owner, name: str, kind: str | None = None) -> Entity | None:
    """The surviving entity whose name or an alias matches ``name`` (case, accents and punctuation ignored)."""
    wanted = hashing.normalize_name(name)
    if not wanted:
        return None
    qs = Entity.objects.owned_by(owner).filter(merged_into__isnull=True)
    if kind:
        qs = qs.filter(kind=kind)
    candidates = qs.filter(Q(name__iexact=name.strip()) | Q(aliases__contains=[name.strip()]))
    for ent in candidates:
        return ent
    for ent in qs.only("id", "public_id", "name", "aliases", "kind", "merged_into", "owner_id"):
        if wanted in {hashing.normalize_name(n) for n in [ent.name, *ent.aliases]}:
            return ent
    return None


def entities(*, owner, include_merged: bool = False) -> QuerySet[Entity]:
    qs = Entity.objects.owned_by(owner)
    return qs if include_merged else qs.filter(merged_into__isnull=True)


# --- Keys and refusals -----------------------------------------------------------------------------------
def person_name(person) -> str:
    if person is None:
        return ""
    if isinstance(person, Entity):
        return person.name
    if isinstance(person, dict):
        return str(person.get("name", ""))
    return str(person)


def subject_names(*, owner, subject: str, person=None) -> list[str]:
    """Names (with aliases) of a third-party subject, to leave out of paraphrase signatures."""
    if subject != "third_party" or person is None:
        return []
    entity = person if isinstance(person, Entity) else find_entity(owner=owner, name=person_name(person))
    names = [person_name(person)]
    if entity is not None:
        entity = surviving_entity(entity)
        names += [entity.name, *entity.aliases]
    return [n for n in dict.fromkeys(names) if n]


def resolve_subject_key(*, owner, subject: str, person=None) -> str:
    if subject != "third_party" or person is None:
        return hashing.subject_key(subject)
    entity = person if isinstance(person, Entity) else find_entity(owner=owner, name=person_name(person))
    if entity is None:
        return "person:" + hashing.normalize_name(person_name(person))
    return hashing.subject_key("third_party", str(surviving_entity(entity).public_id))


def keys_for(*, owner, content: str, subject: str = "user", person=None, predicate: str = "states", arguments=None):
    """(proposition_key, text_key) the ledger will use for this claim."""
    skey = resolve_subject_key(owner=owner, subject=subject, person=person)
    return hashing.proposition_key(skey, predicate, arguments, content), hashing.text_key(content)


@dataclass
class RefusalCheck:
    refused: bool = False
    previously_rejected: bool = False
    matched_on: str = ""  # proposition | text | paraphrase | entity
    similarity: float = 0.0
    refusal: Refusal | None = None

    @property
    def decision_commit_id(self) -> str:
        return self.refusal.decision_commit_id if self.refusal else ""

    def __bool__(self) -> bool:
        return self.refused


def check_refusal(
    *,
    owner,
    content: str,
    subject: str = "user",
    person=None,
    objects=(),
    predicate: str = "states",
    arguments=None,
    source_label: str = "",
    threshold: float = hashing.PARAPHRASE_THRESHOLD,
) -> RefusalCheck:
    """Would this claim be refused? Same source -> refused; a different source -> previously_rejected.

    Matches, in order: a forgotten person (by name, or all of a forgotten name's words in the text), the
    proposition key, the normalized text key (same subject), then paraphrase similarity of hashed content
    words against refusals about the same subject. No time window.
    """
    all_tokens = set(hashing.token_signature(content))
    tokens = set(hashing.token_signature(content, subject_names(owner=owner, subject=subject, person=person)))
    names = [n for n in [person_name(person), *[person_name(o) for o in objects]] if n]
    name_hashes = {hashing.short_hash("name:" + hashing.normalize_name(n)) for n in names}
    skey = resolve_subject_key(owner=owner, subject=subject, person=person)
    pkey = hashing.proposition_key(skey, predicate, arguments, content)
    tkey = hashing.text_key(content)
    # One round trip fetches every live refusal that could match (each branch is index-backed: kind, the two
    # keys, and the GIN index on token_hashes for paraphrase candidates); the precedence below is applied in
    # Python: forgotten person, proposition key, text key, then the best paraphrase.
    wanted = Q(kind=Refusal.Kind.FORGOTTEN_ENTITY) | Q(proposition_key=pkey) | Q(text_key=tkey, subject_key=skey)
    if tokens:
        wanted |= Q(subject_key=skey, token_hashes__overlap=list(tokens))
    candidates = list(Refusal.objects.owned_by(owner).filter(wanted, lifted_at__isnull=True))
    newest_first = sorted(candidates, key=lambda r: (r.recorded_at, r.pk), reverse=True)
    for ref in newest_first:
        if ref.kind != Refusal.Kind.FORGOTTEN_ENTITY:
            continue
        if name_hashes & set(ref.name_hashes) or (ref.token_hashes and set(ref.token_hashes) <= all_tokens):
            return RefusalCheck(True, False, "entity", 1.0, ref)
    match, matched_on, score = None, "", 0.0
    oldest_first = newest_first[::-1]
    match = next((r for r in oldest_first if r.proposition_key == pkey), None)
    if match:
        matched_on, score = "proposition", 1.0
    if match is None:
        match = next((r for r in oldest_first if r.text_key == tkey and r.subject_key == skey), None)
        matched_on, score = ("text", 1.0) if match else ("", 0.0)
    if match is None and tokens:
        for ref in newest_first:
            if ref.kind == Refusal.Kind.FORGOTTEN_ENTITY or ref.subject_key != skey:
                continue
            if not tokens.intersection(ref.token_hashes):
                continue
            s = hashing.similarity(tokens, ref.token_hashes)
            if s >= threshold and s > score:
                match, matched_on, score = ref, "paraphrase", s
    if match is None:
        return RefusalCheck()
    if hashing.short_hash(source_label) in set(match.source_hashes):
        return RefusalCheck(True, False, matched_on, score, match)
    return RefusalCheck(False, True, matched_on, score, match)


# --- Finding existing facts ----------------------------------------------------------------------------
def find_by_proposition_key(*, owner, key: str, statuses=ACTIVE) -> Fact | None:
    return Fact.objects.owned_by(owner).filter(proposition_key=key, status__in=statuses).order_by("recorded_at").first()


def find_by_text(*, owner, content: str, subject: str | None = None, person=None, statuses=ACTIVE) -> Fact | None:
    qs = Fact.objects.owned_by(owner).filter(text_key=hashing.text_key(content), status__in=statuses)
    if subject is not None:
        qs = _filter_subject(qs, owner, subject, person)
    return qs.order_by("recorded_at").first()


def _filter_subject(qs, owner, subject: str, person=None):
    qs = qs.filter(subject_kind=subject)
    if subject == "third_party" and person is not None:
        entity = person if isinstance(person, Entity) else find_entity(owner=owner, name=person_name(person))
        if entity is None:
            return qs.none()
        qs = qs.filter(subject_entity__public_id=surviving_entity(entity).public_id)
    return qs


def find_similar(
    *,
    owner,
    content: str,
    subject: str | None = None,
    person=None,
    threshold: float = hashing.PARAPHRASE_THRESHOLD,
    statuses=ACTIVE,
    limit: int = 5,
) -> list[tuple[Fact, float]]:
    """Facts whose wording is close to ``content`` (hashed-token similarity), best first."""
    sig = hashing.token_signature(content, subject_names(owner=owner, subject=subject or "", person=person))
    if not sig:
        return []
    qs = Fact.objects.owned_by(owner).filter(status__in=statuses, token_hashes__overlap=sig)
    if subject is not None:
        qs = _filter_subject(qs, owner, subject, person)
    scored = [(f, hashing.similarity(sig, f.token_hashes)) for f in qs.order_by("-recorded_at")[:500]]
    scored = [(f, s) for f, s in scored if s >= threshold]
    scored.sort(key=lambda fs: (-fs[1], fs[0].recorded_at))
    return scored[:limit]


def find_supporting(*, owner, content: str, threshold: float = hashing.PARAPHRASE_THRESHOLD) -> Fact | None:
    """An accepted fact that supports ``content`` ("supported by an active memory"), or None."""
    exact = find_by_text(owner=owner, content=content, statuses=("accepted",))
    if exact:
        return exact
    found = find_similar(owner=owner, content=content, threshold=threshold, statuses=("accepted",), limit=1)
    return found[0][0] if found else None


# --- Policy-applying reads -------------------------------------------------------------------------------
def fact_view(fact: Fact, *, now: datetime | None = None, use: str | None = None) -> dict:
    """A fact as readers see it: permitted uses, bands, disclaimers; no content when nothing is permitted."""
    now = now or timezone.now()
    uses = policy.permitted_uses(fact.status)
    reasons = list(fact.uncertainty_reasons or [])
    if fact.status in ACTIVE and policy.is_stale(fact.valid_from, fact.updated_at, now):
        reasons.append("stale")
    subject_name = fact.subject_entity.name if fact.subject_entity_id and fact.subject_entity else ""
    visible = bool(uses) and (use is None or policy.permits(fact.status, use))
    return {
        "id": str(fact.public_id),
        "content": fact.content if visible else "",
        "status": fact.status,
        "status_reason": fact.status_reason,
        "permitted_uses": uses,
        "disclaimers": policy.disclaimers(
            status=fact.status,
            subject_kind=fact.subject_kind,
            subject_name=subject_name,
            capture_confidence=fact.capture_confidence,
            veracity=fact.veracity,
            previously_rejected=fact.previously_rejected,
            uncertainty_reasons=reasons,
        ),
        "subject": fact.subject_kind,
        "subject_entity": str(fact.subject_entity.public_id)
        if fact.subject_entity_id and fact.subject_entity
        else None,
        "subject_name": subject_name,
        "predicate": fact.predicate if visible else "",
        "arguments": fact.arguments if visible else {},
        "importance": fact.importance,
        "tags": list(fact.tags) if visible else [],
        "source_label": fact.source_label,
        "capture_confidence": fact.capture_confidence,
        "capture_band": policy.band(fact.capture_confidence),
        "veracity": fact.veracity,
        "veracity_band": policy.band(fact.veracity),
        "uncertainty_reasons": reasons,
        "previously_rejected": fact.previously_rejected,
        "valid_from": fact.valid_from,
        "valid_to": fact.valid_to,
        "recorded_at": fact.recorded_at,
        "retired_at": fact.retired_at,
        "superseded_by": str(fact.superseded_by) if fact.superseded_by else None,
        "supersedes": str(fact.supersedes) if fact.supersedes else None,
    }


def facts(
    *,
    owner,
    status: str | list[str] | None = None,
    subject: str | None = None,
    source: str | None = None,
    tag: str | None = None,
    valid_at: datetime | None = None,
    use: str | None = None,
    q: str | None = None,
) -> QuerySet[Fact]:
    """Filtered facts for lists (API, Memory page). ``use`` keeps only statuses licensed for that use."""
    qs = Fact.objects.owned_by(owner).select_related("subject_entity")
    if status:
        qs = qs.filter(status__in=[status] if isinstance(status, str) else status)
    if use:
        qs = qs.licensed_for(use)
    if subject:
        if subject in ("user", "third_party", "unknown"):
            qs = qs.filter(subject_kind=subject)
        else:
            qs = qs.about_entity(subject)
    if source:
        qs = qs.filter(Q(source_label=source) | Q(evidence__source_label=source) | Q(evidence__source_type=source))
        qs = qs.distinct()
    if tag:
        qs = qs.filter(tags__contains=[tag])
    if valid_at:
        qs = qs.valid_at(valid_at)
    if q:
        qs = qs.filter(content__icontains=q)
    return qs


def facts_for_use(*, owner, use: str = policy.ANSWERS, valid_at: datetime | None = None) -> QuerySet[Fact]:
    """Only facts whose status licenses ``use``, valid now (or at ``valid_at``)."""
    return facts(owner=owner, use=use, valid_at=valid_at or timezone.now())


def fact_views(qs, *, use: str | None = None, now: datetime | None = None) -> list[dict]:
    now = now or timezone.now()
    return [fact_view(f, now=now, use=use) for f in qs]


def as_of(
    *,
    owner,
    known_at: datetime,
    valid_at: datetime | None = None,
    use: str = policy.ANSWERS_WITH_DISCLAIMER,
    subject: str | None = None,
) -> list[dict]:
    """As the ledger knew it at ``known_at``, what was true at ``valid_at`` (default: ``known_at``)?

    Uses the record-time versions, so later corrections do not leak into the past. Only versions whose status
    licenses ``use`` are returned, each with its permitted uses and disclaimers.
    """
    valid_at = valid_at or known_at
    versions = (
        FactVersion.objects.owned_by(owner)
        .filter(recorded_from__lte=known_at)
        .filter(Q(recorded_to__isnull=True) | Q(recorded_to__gt=known_at))
        .filter(Q(valid_from__isnull=True) | Q(valid_from__lte=valid_at))
        .filter(Q(valid_to__isnull=True) | Q(valid_to__gt=valid_at))
        .filter(status__in=policy.statuses_permitting(use))
        .select_related("fact", "fact__subject_entity")
        .order_by("recorded_from")
    )
    if subject:
        versions = versions.filter(fact__subject_kind=subject)
    out = []
    for v in versions:
        fact = v.fact
        fact.status, fact.content, fact.veracity = v.status, v.content, v.veracity
        fact.valid_from, fact.valid_to = v.valid_from, v.valid_to
        view = fact_view(fact, now=known_at, use=use)
        view["version"] = v.version
        view["known_at"] = known_at
        view["valid_at"] = valid_at
        out.append(view)
    return out


def fact_history(fact: Fact) -> list[Commit]:
    """The commits that touched ``fact`` (oldest first)."""
    commit_ids = CommitRef.objects.filter(object_id=fact.public_id).values_list("commit_id", flat=True)
    return list(Commit.objects.filter(pk__in=commit_ids, owner_id=fact.owner_id).order_by("seq"))


def episodes_for_use(*, owner, use: str = policy.ANSWERS) -> QuerySet[Episode]:
    return Episode.objects.owned_by(owner).licensed_for(use)


def pending_counts(*, owner) -> dict[str, int]:
    from django.db.models import Count

    rows = Fact.objects.owned_by(owner).values("status").annotate(n=Count("id"))
    return {r["status"]: r["n"] for r in rows}
