"""Forgetting: a fact, a source document, a whole source, a person. Each is one content-free commit (earlier
commits keep only hashes of what is forgotten, so ``ledger verify`` still passes) that leaves lasting
refusals, plus the forget hooks and handlers that remove copies (recall vectors, transcripts, chats, screen)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Q, TextField, Value
from django.db.models.functions import Cast, Concat

from accounts.fields import contains_any
from ledger import hashing, queries
from ledger import mutations as M
from ledger.exceptions import InvalidMutation
from ledger.forget import hooks as forgetting
from ledger.forget.coverage import redact_value
from ledger.models import Entity, Episode, Evidence, Fact, Refusal
from ledger.services.commits import commit, serialised
from ledger.services.layers import _delete_episodes
from ledger.validation import check_owner

logger = logging.getLogger(__name__)


@dataclass
class ForgetReport:
    facts: int = 0
    evidence: int = 0
    entities: int = 0
    episodes: int = 0
    commit_id: str = ""
    copies: dict = field(default_factory=dict)  # what forget handlers removed from sources (counts)


def _fact_refusal(fact: Fact, kind: str = "forgotten") -> dict:
    sources = {fact.source_hash, *fact.evidence.values_list("source_hash", flat=True)}
    return {
        "kind": kind,
        "subject_key": hashing.subject_key(
            fact.subject_kind, str(fact.subject_entity.public_id) if fact.subject_entity_id else None
        ),
        "proposition_key": fact.proposition_key,
        "text_key": fact.text_key,
        "token_hashes": list(fact.token_hashes),
        "source_hashes": sorted(s for s in sources if s),
        "name_hashes": [],
    }


def _forget_episodes(owner, source_type: str | None = None, source_ref: dict | None = None, entity_names=()) -> int:
    qs = Episode.objects.owned_by(owner)
    if source_ref is None:
        return 0
    matched = qs.filter(source_ref__contains=source_ref)
    if source_type:
        matched = matched.filter(source_type=source_type)
    return _delete_episodes(owner, list(matched.values_list("pk", flat=True)))


def forget(*, owner, fact: Fact, author: str = "user") -> str:
    """Right to be forgotten for one fact: fact, evidence and versions deleted, earlier commits' content
    dropped (hashes kept, chain still verifies), a refusal (hashes only) keeps it from coming back."""
    check_owner(fact, owner, "Fact")
    m = {
        "type": M.FORGET,
        "scope": "fact",
        "fact_ids": [str(fact.public_id)],
        "refusals": [_fact_refusal(fact)],
    }
    with transaction.atomic():
        cid = commit(owner=owner, mutations=[m], author=author).commit_id
        forgetting.run_forget_handlers(
            forgetting.ForgetEvent(owner=owner, scope="fact", commit_id=cid, fact_public_ids=(str(fact.public_id),))
        )
    return cid


def forget_source(*, owner, source_type: str, source_ref: dict, author: str = "user") -> ForgetReport:
    """Forget everything derived from one source document (a transcript day, a conversation, a screen
    event): evidence whose source_ref contains ``source_ref``; facts left with no other evidence; episodes."""
    if not isinstance(source_ref, dict) or not source_ref:
        raise InvalidMutation("source_ref must be a non-empty object")
    with transaction.atomic():
        evidence = list(
            Evidence.objects.owned_by(owner)
            .filter(source_type=source_type, source_ref__contains=source_ref)
            .select_related("fact", "fact__subject_entity")
        )
        report = _commit_source_forget(
            owner=owner,
            scope_hash=hashing.digest({"source_type": source_type, "source_ref": source_ref}),
            evidence=evidence,
            only_source=lambda fact, mine: fact.evidence.count() == len(mine),
            author=author,
        )
        report.episodes = _forget_episodes(owner, source_type, source_ref)
    return report


def _commit_source_forget(
    *,
    owner,
    scope_hash: str,
    evidence: list[Evidence],
    only_source: Callable[[Fact, list[Evidence]], bool],
    own_facts: Iterable[Fact] = (),
    author: str,
) -> ForgetReport:
    """One "source" forget commit over the facts of ``evidence`` and ``own_facts``: a fact that ``only_source``
    says rests on this source alone goes whole, leaving a refusal; any other loses just this source's evidence.
    No commit when there is nothing to forget."""
    by_fact: dict[int, list[Evidence]] = {}
    for ev in evidence:
        by_fact.setdefault(ev.fact_id, []).append(ev)
    fact_ids, evidence_ids, refusals = [], [], []
    facts = {f.pk: f for f in own_facts} | {evs[0].fact.pk: evs[0].fact for evs in by_fact.values()}
    for pk, fact in facts.items():
        mine = by_fact.get(pk, [])
        if only_source(fact, mine):
            fact_ids.append(str(fact.public_id))
            refusals.append(_fact_refusal(fact))
        else:
            evidence_ids.extend(str(e.public_id) for e in mine)
    report = ForgetReport(facts=len(fact_ids), evidence=len(evidence))
    if fact_ids or evidence_ids:
        m = {
            "type": M.FORGET,
            "scope": "source",
            "scope_hash": scope_hash,
            "fact_ids": sorted(fact_ids),
            "evidence_ids": sorted(evidence_ids),
            "refusals": refusals,
        }
        report.commit_id = commit(owner=owner, mutations=[m], author=author).commit_id
    return report


def _entity_group(owner, entity: Entity) -> list[Entity]:
    """The surviving entity and every entity merged into it (directly or through others)."""
    root = queries.surviving_entity(entity)
    group = {str(root.public_id)}
    frontier = [str(root.public_id)]
    while frontier:
        nxt = Entity.objects.owned_by(owner).filter(merged_into__in=frontier).values_list("public_id", flat=True)
        frontier = [str(p) for p in nxt if str(p) not in group]
        group.update(frontier)
    return list(Entity.objects.owned_by(owner).filter(public_id__in=group))


def _facts_naming(owner, names) -> dict[str, Fact]:
    """Facts whose words contain all the words of one of ``names`` (a name may be hashed as a word or a name)."""
    out: dict[str, Fact] = {}
    for name in names:
        sig = hashing.token_signature(name)
        if not sig:
            continue
        wanted = hashing.bodies(sig)
        spellings = sorted({k + b for b in wanted for k in "wpn"})
        for f in Fact.objects.owned_by(owner).filter(token_hashes__overlap=spellings):
            if wanted <= hashing.bodies(f.token_hashes):
                out[str(f.public_id)] = f
    return out


def _person_refusals(names: list[str], variants: list[str]) -> list[dict]:
    """Lasting refusals on a person: each full name blocks claims about them and texts naming them; a first
    name alone blocks claims about someone of that name (texts are redacted at ingest)."""
    full = set(names)
    return [
        {
            "kind": Refusal.Kind.FORGOTTEN_ENTITY,
            "subject_key": "",
            "proposition_key": "",
            "text_key": "",
            "token_hashes": hashing.token_signature(name) if name in full else [],
            "source_hashes": [],
            "name_hashes": [hashing.short_hash("name:" + hashing.normalize_name(name))],
        }
        for name in sorted(variants)
    ]


@serialised
def forget_entity(*, owner, entity: Entity, author: str = "user") -> ForgetReport:
    """Forget a person everywhere: every fact about or naming them (any source), the entity (and entities
    merged into it), their episodes' mentions, and what sources store about them (registered forget handlers
    remove their turns and redact their name in transcripts, chats and screen events). Lasting refusals on
    their names keep re-syncs and every other source from bringing them back. A content-free commit."""
    check_owner(entity, owner, "Entity")
    entities = _entity_group(owner, entity)
    names = sorted({n for e in entities for n in [e.name, *e.aliases] if n})
    report = forget_person_names(owner=owner, names=names, entity_ids=[str(e.public_id) for e in entities])
    return report


def _icontains(field: str, words) -> Q:
    q = Q(pk__in=[])
    for w in words:
        q |= Q(**{f"{field}__icontains": w})
    return q


def _redacted_copy(ev: Evidence, matcher) -> dict:
    return {
        "type": M.ADD_EVIDENCE,
        "fact_id": str(ev.fact.public_id),
        "source_type": ev.source_type,
        "source_hash": ev.source_hash,
        "capture_confidence": ev.capture_confidence,
        "observed_at": hashing.iso(ev.observed_at),
        "payload": {
            "source_ref": ev.source_ref,
            "source_label": ev.source_label,
            "quote": matcher.redact(ev.quote),
            "extractor_id": ev.extractor_id,
            "extractor_version": ev.extractor_version,
            "details": redact_value(ev.details, matcher),
        },
    }


def _naming_the_person(owner, names, variants, matcher, entity_ids: set[str]) -> tuple[dict, set[str], list]:
    """The person's entities, the facts about or naming them, and other facts' quotes that name them."""
    for ent in Entity.objects.owned_by(owner).only("public_id", "name", "aliases"):
        if any(matcher.is_forgotten(n) for n in [ent.name, *ent.aliases]):
            entity_ids.add(str(ent.public_id))  # "Lena" from another claim is the same person as "Lena Varga"
    facts = _facts_naming(owner, names)
    for f in Fact.objects.owned_by(owner).filter(_icontains("content", variants)):
        if matcher.spans(f.content):
            facts[str(f.public_id)] = f
    named = Concat(Cast("arguments", TextField()), Value(" "), Cast("tags", TextField()), output_field=TextField())
    words = Fact.objects.owned_by(owner).annotate(words=named)
    for f in words.filter(_icontains("words", variants)):
        if matcher.spans(f.words):  # named only in the claim's arguments or tags
            facts[str(f.public_id)] = f
    for eid in entity_ids:
        for f in Fact.objects.owned_by(owner).about_entity(eid):
            facts[str(f.public_id)] = f
    quoted = [
        ev
        for ev in Evidence.objects.owned_by(owner)
        .filter(contains_any(Evidence.objects.owned_by(owner), "quote", variants))  # quotes may be encrypted
        .exclude(fact__public_id__in=list(facts))
        if matcher.spans(ev.quote)
    ]
    return facts, entity_ids, quoted


def _episodes_naming(owner, matcher) -> list[int]:
    doomed = []
    for ep in Episode.objects.owned_by(owner):
        parts = [ep.entities, ep.topics, ep.decisions, ep.action_items]
        text = " ".join([ep.title, ep.summary, *(json.dumps(p, ensure_ascii=False) for p in parts)])
        if matcher.spans(text):
            doomed.append(ep.pk)
    return doomed


@serialised
def forget_person_names(*, owner, names, entity_ids=(), author: str = "user") -> ForgetReport:
    """``forget_entity`` for names with or without an entity (e.g. a speaker the ledger never had a fact about)."""
    names = sorted({n.strip() for n in names if n and n.strip()})
    if not names:
        raise InvalidMutation("a person to forget needs a name")
    variants = forgetting.person_name_variants(names)
    matcher = forgetting.matcher_for(names)
    facts, entity_ids, quoted = _naming_the_person(owner, names, variants, matcher, set(entity_ids))
    m = {
        "type": M.FORGET,
        "scope": "entity",
        "fact_ids": sorted(facts),
        "evidence_ids": sorted(str(ev.public_id) for ev in quoted),
        "entity_ids": sorted(entity_ids),
        "refusals": _person_refusals(names, variants),
    }
    cid = commit(owner=owner, mutations=[m], author=author).commit_id
    if quoted:
        # Other facts keep their support, with the person's name redacted from the quote (a second commit, so
        # the forget itself stays content-free).
        commit(owner=owner, mutations=[_redacted_copy(ev, matcher) for ev in quoted], author="system")
    episodes = _delete_episodes(owner, _episodes_naming(owner, matcher))
    event = forgetting.ForgetEvent(
        owner=owner,
        scope="entity",
        commit_id=cid,
        names=tuple(variants),
        fact_public_ids=tuple(sorted(facts)),
        matcher=matcher,
    )
    copies = forgetting.run_forget_handlers(event)
    logger.info("ledger: forgot a person (%d facts, %d episodes, %s)", len(facts), episodes, copies)
    return ForgetReport(
        facts=len(facts),
        evidence=len(quoted),
        entities=len(entity_ids),
        episodes=episodes,
        commit_id=cid,
        copies=copies,
    )


@serialised
def forget_source_label(*, owner, source_label: str, author: str = "user") -> ForgetReport:
    """Forget everything one source (e.g. "wearable:bee", "agent:mcp") contributed: its evidence, facts left
    with no other evidence (each leaving a lasting refusal), its episodes; source handlers drop their copies."""
    label = (source_label or "").strip()
    if not label:
        raise InvalidMutation("source_label must not be empty")
    evidence = list(Evidence.objects.owned_by(owner).filter(source_label=label).select_related("fact"))
    own = list(Fact.objects.owned_by(owner).filter(source_label=label).exclude(evidence__source_label__in=["", None]))
    report = _commit_source_forget(
        owner=owner,
        scope_hash=hashing.short_hash(label),
        evidence=evidence,
        own_facts=own,
        only_source=lambda fact, mine: fact.evidence.exclude(source_label=label).count() == 0,
        author=author,
    )
    report.episodes = _delete_episodes(
        owner, list(Episode.objects.owned_by(owner).filter(source_label=label).values_list("pk", flat=True))
    )
    event = forgetting.ForgetEvent(owner=owner, scope="source", commit_id=report.commit_id, source_label=label)
    report.copies = forgetting.run_forget_handlers(event)
    return report


def sources(*, owner) -> list[dict]:
    """The sources that contributed evidence, with counts: ``{"id": source hash, "label", "facts", "evidence"}``."""
    from django.db.models import Count

    rows = (
        Evidence.objects.owned_by(owner)
        .exclude(source_label="")
        .values("source_label")
        .annotate(evidence=Count("id"), facts=Count("fact", distinct=True))
        .order_by("source_label")
    )
    return [
        {
            "id": hashing.short_hash(r["source_label"]),
            "label": r["source_label"],
            **{k: r[k] for k in ("facts", "evidence")},
        }
        for r in rows
    ]
