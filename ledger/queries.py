"""Composed, owner-scoped reads. Everything that returns facts to a reader applies the policy table."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet
from django.utils import timezone

from ledger import hashing, permitted_uses, values
from ledger.models import Commit, CommitRef, Entity, Episode, Fact, FactVersion, Refusal, Status

ACTIVE = permitted_uses.ACTIVE_STATUSES


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
    """The answer of ``check_refusal``. ``refused``: keep it out. ``previously_rejected``: it matched a refusal
    but its evidence states a change made after the rejection, so it may go to review (never further)."""

    refused: bool = False
    previously_rejected: bool = False
    matched_on: str = ""  # proposition | text | paraphrase | entity
    similarity: float = 0.0
    refusal: Refusal | None = None
    same_source: bool = False

    @property
    def decision_commit_id(self) -> str:
        return self.refusal.decision_commit_id if self.refusal else ""

    def __bool__(self) -> bool:
        return self.refused


# A forgotten person or fact stays out whatever the evidence says; only an explicit lift brings it back.
CHANGE_EXCEPTION_KINDS = (Refusal.Kind.REJECTED, Refusal.Kind.RETRACTED)


def known_names(*, owner) -> list[str]:
    """The owner's entity names and aliases (proper nouns even when a transcript writes them in lower case)."""
    rows = Entity.objects.owned_by(owner).filter(merged_into__isnull=True).values_list("name", "aliases")
    return [n for name, aliases in rows for n in [name, *aliases] if n]


def _match_refusal(candidates, *, tokens, all_tokens, name_hashes, pkey, tkey, skey, threshold):
    """(refusal, matched_on, score) by precedence: forgotten person, proposition key, text key, paraphrase."""
    newest_first = sorted(candidates, key=lambda r: (r.recorded_at, r.pk), reverse=True)
    all_bodies = hashing.bodies(all_tokens)
    for ref in newest_first:
        if ref.kind != Refusal.Kind.FORGOTTEN_ENTITY:
            continue
        if name_hashes & set(ref.name_hashes) or (ref.token_hashes and hashing.bodies(ref.token_hashes) <= all_bodies):
            return ref, "entity", 1.0
    oldest_first = [r for r in newest_first[::-1] if r.kind != Refusal.Kind.FORGOTTEN_ENTITY]
    # Keys match only when the values agree too: a proposition key built from the same slot arguments must
    # not refuse "... for twelve years" because "... for twenty years" was rejected.
    for ref in oldest_first:
        if ref.proposition_key == pkey and not hashing.values_conflict(tokens, ref.token_hashes):
            return ref, "proposition", 1.0
    for ref in oldest_first:
        if ref.text_key == tkey and ref.subject_key == skey:
            return ref, "text", 1.0
    best, score = None, 0.0
    for ref in newest_first:
        if ref.kind == Refusal.Kind.FORGOTTEN_ENTITY or ref.subject_key != skey:
            continue
        s = hashing.similarity(tokens, ref.token_hashes)
        if s >= threshold and s > score:
            best, score = ref, s
    return (best, "paraphrase", score) if best else (None, "", 0.0)


def _states_new_change(text: str, refusal: Refusal) -> bool:
    """A change statement in ``text`` whose words the refused claim did not contain (function-word cues such as
    "now" or "since March" always count: a refusal keeps no function words to compare with)."""
    held = hashing.bodies(refusal.token_hashes)
    for cue in values.change_cues(text):
        words = hashing.bodies(hashing.token_signature(cue))
        if not words or not words <= held:
            return True
    return False


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
    states_change: bool = False,
    change_text: str = "",
    observed_at: datetime | None = None,
    names=None,
) -> RefusalCheck:
    """Would this claim be refused? One rule for every source: a claim matching a live refusal is refused,
    whichever source proposes it and whichever source the rejection came from.

    The only way back without a lift: evidence observed after the rejection that states a change
    (``states_change``, e.g. "I started…", "now…", "since March") -> ``previously_rejected`` (review only).
    Forgotten people and forgotten facts have no such exception. ``change_text`` (the claim and its quotes)
    is searched for change statements that the refused claim did not already make ("I started running" again
    is a repetition, not news).

    Matches, in order: a forgotten person (by name, or all of a forgotten name's words in the text), the
    proposition key (values agreeing), the normalized text key (same subject), then paraphrase similarity of
    hashed content words against refusals about the same subject (different values never match). No time window.
    """
    names = known_names(owner=owner) if names is None else names
    all_tokens = set(hashing.token_signature(content, known_names=names))
    subject_words = subject_names(owner=owner, subject=subject, person=person)
    tokens = set(hashing.token_signature(content, subject_words, known_names=names))
    person_names = [n for n in [person_name(person), *[person_name(o) for o in objects]] if n]
    name_hashes = {hashing.short_hash("name:" + hashing.normalize_name(n)) for n in person_names}
    skey = resolve_subject_key(owner=owner, subject=subject, person=person)
    pkey = hashing.proposition_key(skey, predicate, arguments, content)
    tkey = hashing.text_key(content)
    match, matched_on, score = _match_refusal(
        _refusal_candidates(owner, tokens=tokens, pkey=pkey, tkey=tkey, skey=skey),
        tokens=tokens,
        all_tokens=all_tokens,
        name_hashes=name_hashes,
        pkey=pkey,
        tkey=tkey,
        skey=skey,
        threshold=threshold,
    )
    if match is None:
        return RefusalCheck()
    same = hashing.short_hash(source_label) in set(match.source_hashes)
    after = (observed_at or timezone.now()) > match.recorded_at
    if change_text:
        states_change = _states_new_change(change_text, match)
    if states_change and after and match.kind in CHANGE_EXCEPTION_KINDS:
        return RefusalCheck(False, True, matched_on, score, match, same)
    return RefusalCheck(True, False, matched_on, score, match, same)


def _refusal_candidates(owner, *, tokens: set[str], pkey: str, tkey: str, skey: str) -> list[Refusal]:
    """Every live refusal that could match, in one round trip. Each branch is index-backed: kind, the two keys,
    and the GIN index on token_hashes for paraphrase candidates; a name may be hashed as a word in one
    signature and as a name in the other, so both spellings are asked for."""
    wanted = Q(kind=Refusal.Kind.FORGOTTEN_ENTITY) | Q(proposition_key=pkey) | Q(text_key=tkey, subject_key=skey)
    if tokens:
        spellings = sorted({k + t[1:] for t in tokens for k in "wnpx"})
        wanted |= Q(subject_key=skey, token_hashes__overlap=spellings)
    return list(Refusal.objects.owned_by(owner).filter(wanted, lifted_at__isnull=True))


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


def find_restating(*, owner, content: str, subject: str = "user", person=None) -> Fact | None:
    """An active fact about the same subject that already says all ``content`` says: a paraphrase
    (``find_similar``) adding no content word the fact lacks ("… in a string quartet" adds one: not restating)."""
    words = hashing.bodies(hashing.token_signature(content, subject_names(owner=owner, subject=subject, person=person)))
    similar = find_similar(owner=owner, content=content, subject=subject, person=person, limit=5)
    return next((f for f, _ in similar if words <= hashing.bodies(f.token_hashes)), None)


def find_contradicting(*, owner, content: str, subject: str = "user", person=None) -> Fact | None:
    """The newest accepted fact, valid now, about the same subject that ``content`` contradicts
    (``hashing.contradicts``: polarity flipped or a different value in the same words), or None."""
    names = known_names(owner=owner)
    sig = hashing.token_signature(
        content, subject_names(owner=owner, subject=subject, person=person), known_names=names
    )
    # A word may be hashed as a name in one signature and as a word in the other: ask for both spellings.
    spellings = sorted({k + t[1:] for t in sig if t[0] == "w" for k in "wp"})
    if not spellings:
        return None
    qs = Fact.objects.owned_by(owner).filter(status=Status.ACCEPTED, token_hashes__overlap=spellings)
    qs = _filter_subject(qs, owner, subject, person).valid_at(timezone.now())
    return next((f for f in qs.order_by("-recorded_at")[:500] if hashing.contradicts(sig, f.token_hashes)), None)


def find_supporting(*, owner, content: str, threshold: float = hashing.PARAPHRASE_THRESHOLD) -> Fact | None:
    """An accepted fact that supports ``content`` ("supported by an active memory"), or None."""
    exact = find_by_text(owner=owner, content=content, statuses=(Status.ACCEPTED,))
    if exact:
        return exact
    found = find_similar(owner=owner, content=content, threshold=threshold, statuses=(Status.ACCEPTED,), limit=1)
    return found[0][0] if found else None


# --- Policy-applying reads -------------------------------------------------------------------------------
def fact_view(fact: Fact, *, now: datetime | None = None, use: str | None = None) -> dict:
    """A fact as readers see it: permitted uses, bands, disclaimers; no content when nothing is permitted."""
    now = now or timezone.now()
    uses = permitted_uses.permitted_uses(fact.status)
    reasons = list(fact.uncertainty_reasons or [])
    if fact.status in ACTIVE and permitted_uses.is_stale(fact.valid_from, fact.updated_at, now):
        reasons.append("stale")
    subject_name = fact.subject_entity.name if fact.subject_entity_id and fact.subject_entity else ""
    visible = bool(uses) and (use is None or permitted_uses.permits(fact.status, use))
    return {
        "id": str(fact.public_id),
        "content": fact.content if visible else "",
        "status": fact.status,
        "status_reason": fact.status_reason,
        "permitted_uses": uses,
        "disclaimers": permitted_uses.disclaimers(
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
        "capture_band": permitted_uses.band(fact.capture_confidence),
        "veracity": fact.veracity,
        "veracity_band": permitted_uses.band(fact.veracity),
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


def facts_for_use(*, owner, use: str = permitted_uses.ANSWERS, valid_at: datetime | None = None) -> QuerySet[Fact]:
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
    use: str = permitted_uses.ANSWERS_WITH_DISCLAIMER,
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
        .filter(status__in=permitted_uses.statuses_permitting(use))
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


def episodes_for_use(*, owner, use: str = permitted_uses.ANSWERS) -> QuerySet[Episode]:
    return Episode.objects.owned_by(owner).licensed_for(use)


def pending_counts(*, owner) -> dict[str, int]:
    from django.db.models import Count

    rows = Fact.objects.owned_by(owner).values("status").annotate(n=Count("id"))
    return {r["status"]: r["n"] for r in rows}


# --- Refusals as the person sees them -------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class RefusalEvent:
    """One refused re-extraction or re-proposal (hashes only; the refused text was never stored). Also the
    API's answer (``ledger.schemas.RefusalEventOut`` is made from it)."""

    at: datetime
    matched_on: str
    similarity: float
    refusal_id: str
    refusal_kind: str
    decision_commit_id: str
    fact_id: str | None = None
    url: str  # the refusal on the Memory page (with its rejected fact, when that still exists)


def refusals(*, owner, include_lifted: bool = False) -> QuerySet[Refusal]:
    """The owner's refusals, newest first, each annotated with ``hit_count`` (how often it refused something)."""
    from django.db.models import Count

    qs = Refusal.objects.owned_by(owner).annotate(hit_count=Count("hits"))
    return (qs if include_lifted else qs.filter(lifted_at__isnull=True)).order_by("-recorded_at", "-id")


def refusal_url(refusal: Refusal) -> str:
    return f"/memory/refusals/#refusal-{refusal.public_id}"


def refusal_events(*, owner, since: datetime | None = None, limit: int = 100) -> list[RefusalEvent]:
    """Claims kept out by a refusal since ``since`` (e.g. "re-extractions refused this week"), newest first."""
    from ledger.models import RefusalHit

    qs = RefusalHit.objects.owned_by(owner).select_related("refusal").order_by("-created_at")
    if since is not None:
        qs = qs.filter(created_at__gte=since)
    out = []
    for hit in qs[:limit]:
        ref = hit.refusal
        out.append(
            RefusalEvent(
                at=hit.created_at,
                matched_on=hit.matched_on,
                similarity=hit.similarity,
                refusal_id=str(ref.public_id) if ref else "",
                refusal_kind=ref.kind if ref else "",
                decision_commit_id=hit.decision_commit_id,
                fact_id=str(ref.fact_public_id) if ref and ref.fact_public_id else None,
                url=refusal_url(ref) if ref else "/memory/refusals/",
            )
        )
    return out


def refusal_event_count(*, owner, since: datetime | None = None) -> int:
    from ledger.models import RefusalHit

    qs = RefusalHit.objects.owned_by(owner)
    return (qs.filter(created_at__gte=since) if since is not None else qs).count()
