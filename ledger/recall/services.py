"""Recall's write and orchestration services: indexing vectors, the context block, usage feedback.

Consolidation lives in consolidation.py. Views, API handlers and tasks each call one function here.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from datetime import tzinfo

from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone
from django_q.tasks import async_task

from accounts.models import UserSettings
from accounts.timestamps import zone_or_utc
from ledger.models import Entity, Evidence, IdentityOverride
from ledger.recall import blockcache
from ledger.recall.embeddings import Backend, current_backend
from ledger.recall.gate import GateDecision, heuristic_gate, llm_gate, topic_query
from ledger.recall.models import Anchor, Embedding, Usage
from ledger.recall.planner import RecallItem, clamp_budget, pack_sections
from ledger.recall.providers import RecallProvider, provider_for_kind, providers_for
from ledger.recall.search import search_memory
from ledger.services import layers

EMBED_BATCH = 256
CACHE_SECONDS = 10
# Which scope answers each gate route (identity is always included on its own).
ROUTE_SCOPES = {"pinned": "pinned", "episodes": "episodes", "transcript": "transcript", "events": "events"}
# A question about a named person or thing gets its facts and, after them, the turns where it was said (in the
# speaker's words, with the date): facts state what is known, the turns carry what no extractor kept. Pinned
# facts (chosen by the person) may take 40 % of the budget while turns wait, facts resting on no turn 15 %
# (facts distilled from a turn are shown as that turn: see _not_resting_on_turns); turns take the rest.
SUPPORTING_SCOPE = {"pinned": "transcript", "facts": "transcript"}
SECTION_SHARE = {"pinned": 0.4, "facts": 0.15}


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# --- Vectors ------------------------------------------------------------------------------------------
def embed_pending(*, owner, provider: RecallProvider, backend: Backend | None = None, limit: int | None = None) -> int:
    """Embed rows of ``provider`` that have no vector in the backend's space yet; returns how many were added.

    Idempotent (unique (owner, kind, ref_id, space); conflicts ignored), safe to run from several workers.
    """
    backend = backend or current_backend()
    added = 0
    while limit is None or added < limit:
        have = Embedding.objects.filter(owner=owner, kind=provider.kind, space=backend.space, ref_id=OuterRef("pk"))
        batch_size = EMBED_BATCH if limit is None else min(EMBED_BATCH, limit - added)
        rows = list(provider.queryset(owner).filter(~Exists(have)).order_by("pk")[:batch_size])
        if not rows:
            break
        docs = provider.documents(rows)
        vectors = backend.embed([text for _, text in docs])
        Embedding.objects.bulk_create(
            [
                Embedding(
                    owner=owner,
                    kind=provider.kind,
                    ref_id=ref,
                    space=backend.space,
                    content_hash=_hash(text),
                    vector=vec,
                )
                for (ref, text), vec in zip(docs, vectors, strict=True)
            ],
            ignore_conflicts=True,
        )
        added += len(docs)
    return added


def index_anchors(*, owner, limit: int = 5000) -> int:
    """Fact-augmented keys: link live evidence to the rows it rests on (turns), for every provider that can.

    Idempotent (unique (evidence, kind, ref_id)); evidence already linked is skipped. Returns links added.
    """
    added = 0
    for provider in providers_for("all"):
        resolve = getattr(provider, "evidence_refs", None)
        if resolve is None:
            continue
        linked = Anchor.objects.filter(evidence=OuterRef("pk"), kind=provider.kind)
        evidence = list(
            Evidence.objects.owned_by(owner)
            .live()
            .filter(source_type__in=getattr(provider, "evidence_types", ()))
            .filter(~Exists(linked))
            .order_by("-pk")
            .values_list("pk", "fact_id", "source_ref")[:limit]
        )
        for start in range(0, len(evidence), 500):
            batch = evidence[start : start + 500]
            refs = resolve(owner, [ref or {} for _pk, _fact, ref in batch])
            rows = [
                Anchor(owner=owner, kind=provider.kind, ref_id=ref_id, fact_id=fact_id, evidence_id=ev_id)
                for (ev_id, fact_id, _ref), ref_ids in zip(batch, refs, strict=True)
                for ref_id in ref_ids
            ]
            Anchor.objects.bulk_create(rows, ignore_conflicts=True)
            added += len(rows)
    return added


def reembed_owner(*, owner, scope: str = "all", backend: Backend | None = None) -> dict[str, int]:
    """Bring every provider of ``scope`` to the current space; vectors of other spaces are then dropped."""
    backend = backend or current_backend()
    counts = {}
    for provider in providers_for(scope):
        counts[provider.kind] = embed_pending(owner=owner, provider=provider, backend=backend)
        Embedding.objects.owned_by(owner).filter(kind=provider.kind).exclude(space=backend.space).delete()
    return counts


# --- The context block --------------------------------------------------------------------------------
@dataclass
class RecallResult:
    gate: GateDecision
    block: str
    items: list[RecallItem]
    tokens: int
    latency_ms: float
    budget_tokens: int

    def as_dict(self) -> dict:
        return {
            "gate": self.gate.as_dict(),
            "block": self.block,
            "items": [i.as_dict() for i in self.items],
            "tokens": self.tokens,
            "budget_tokens": self.budget_tokens,
            "latency_ms": round(self.latency_ms, 2),
        }


def _identity_item(public_id, key: str, value: str) -> RecallItem:
    return RecallItem(
        id=str(public_id),
        kind="identity",
        text=f"{key}: {value}",
        permitted_uses=["answers", "actions"],
        source_ref=f"identity:{key}",
        strength=1.0,
    )


def owner_context(owner) -> tuple[list[RecallItem], list[str], tzinfo]:
    """The owner's identity overrides (as items), the names the gate knows and the owner's time zone (block
    times are shown in it), in one round trip."""
    entity, identity = Entity._meta.db_table, IdentityOverride._meta.db_table
    # The owner's own display name is a known name too: "what did <my name> say about…" is about them.
    own = UserSettings._meta.db_table
    with connection.cursor() as cur:
        cur.execute(
            f"SELECT 0, name, aliases, NULL::uuid, NULL FROM {entity} WHERE owner_id = %s AND merged_into IS NULL "
            f"UNION ALL SELECT 0, display_name, NULL, NULL, NULL FROM {own} WHERE user_id = %s AND display_name <> '' "
            f"UNION ALL SELECT 1, key, NULL, public_id, value FROM {identity} WHERE owner_id = %s "
            f"UNION ALL SELECT 2, timezone, NULL, NULL, NULL FROM {own} WHERE user_id = %s ORDER BY 1, 2",
            [owner.pk, owner.pk, owner.pk, owner.pk],
        )
        rows = cur.fetchall()
    items = [_identity_item(public_id, key, value) for kind, key, _a, public_id, value in rows if kind == 1]
    zone = zone_or_utc(next((name for kind, name, *_ in rows if kind == 2), None))
    names: list[str] = []
    for kind, name, aliases, _p, _v in rows:
        if kind == 0 and name not in names:
            names.append(name)
            names.extend(a for a in (aliases or []) if a)
    return items, names, zone


def identity_items(owner) -> list[RecallItem]:
    return owner_context(owner)[0]


def known_entities(owner) -> list[str]:
    """Names the gate treats as 'a known entity named': ledger entities (and their aliases)."""
    return owner_context(owner)[1]


def decide(owner, query: str, entities: list[str] | None = None) -> GateDecision:
    """The gate: heuristic, or the LLM when enabled and configured (falls back to the heuristic)."""
    entities = known_entities(owner) if entities is None else entities
    if getattr(settings, "ALMANAC_RECALL_LLM_GATE", False):
        from ledger import llm

        if llm.llm_configured(llm.CallType.RECALL_GATE):
            return llm_gate(query, entities, owner=owner, timeout=settings.ALMANAC_RECALL_LLM_GATE_TIMEOUT)
    return heuristic_gate(query, entities)


def _scope_for(decision: GateDecision, scope: str | None) -> str | None:
    if scope and scope != "auto":
        return scope
    return ROUTE_SCOPES.get(decision.route)


def _not_resting_on_turns(facts: list[RecallItem]) -> list[RecallItem]:
    """``facts`` less those distilled from a turn: such a fact lifts its turn in the transcript ranking (fact
    anchors), and the block then shows that turn verbatim, with its date. On the development split every share
    of the budget given to those paraphrases lowered block recall (bench/locomo.py); a fact resting on no turn
    (told to an agent, imported) is shown as itself."""
    fact_ids = [f.ref_id for f in facts if f.kind == "fact" and f.ref_id is not None]
    if not fact_ids:
        return facts
    anchored = set(Anchor.objects.filter(fact_id__in=fact_ids).values_list("fact_id", flat=True).distinct())
    return [f for f in facts if not (f.kind == "fact" and f.ref_id in anchored)]


def _sections_for(owner, query: str, decision: GateDecision, scope: str | None) -> list[tuple]:
    """(section, items, share) to pack: the gate's (or the forced) section, then its supporting turns."""
    section = _scope_for(decision, scope)
    found: list[RecallItem] = search_memory(owner, section, topic_query(query, decision), limit=20) if section else []
    if not found and section == "pinned" and not scope:
        # A named entity with nothing pinned about it yet: the facts layer is the next best source.
        section, found = "facts", search_memory(owner, "facts", query, limit=20)
    sections = [(section or "none", found, SECTION_SHARE.get(section or "", 1.0))]
    support = SUPPORTING_SCOPE.get(section or "") if not scope or scope == "auto" else None
    if support:
        turns = search_memory(owner, support, query, limit=20)
        if turns:
            sections[0] = (sections[0][0], _not_resting_on_turns(found), sections[0][2])
        sections.append((support, turns, 1.0))
    return sections


def recall_context(
    *, owner, query: str, budget_tokens: int | None = None, scope: str | None = None, feedback: bool = True
) -> RecallResult:
    """Build the context block an agent gets for ``query``: identity + the gate's section, within budget.

    ``scope`` forces a section (pinned, episodes, transcript, events, facts, all) instead of the gate's
    choice. Results are cached 10 s per (owner, query, budget, scope) in the shared cache. Surfaced items get
    their usage bumped (not on a cache hit: the agent already has them). ``feedback=False`` (the page's preview,
    where the user looks rather than an agent) neither reads nor fills the cache and records no usage.
    """
    started = time.perf_counter()
    budget = clamp_budget(budget_tokens)
    key = "recall:" + _hash(f"{owner.pk}\x00{query}\x00{budget}\x00{scope or ''}")
    cached = cache.get(key) if feedback else None
    if cached is not None:
        result = RecallResult(
            gate=GateDecision(**{**cached["gate"], "entities": tuple(cached["gate"]["entities"])}),
            block=cached["block"],
            items=[RecallItem(**i) for i in cached["items"]],
            tokens=cached["tokens"],
            latency_ms=(time.perf_counter() - started) * 1000,
            budget_tokens=budget,
        )
        return result
    identity, entities, zone = owner_context(owner)
    decision = decide(owner, query, entities)
    sections = _sections_for(owner, query, decision, scope)
    packed = pack_sections(identity, sections, budget, tz=zone)
    if feedback:
        queue_usage(owner=owner, items=packed.items)
    result = RecallResult(
        gate=decision,
        block=packed.block,
        items=packed.items,
        tokens=packed.tokens,
        latency_ms=(time.perf_counter() - started) * 1000,
        budget_tokens=budget,
    )
    if not feedback:
        return result
    blockcache.put(
        key,
        {
            "gate": decision.as_dict(),
            "block": packed.block,
            "items": [{**i.as_dict(), "ref_id": i.ref_id} for i in packed.items],
            "tokens": packed.tokens,
        },
        CACHE_SECONDS,
    )
    return result


# --- Usage feedback -----------------------------------------------------------------------------------
USAGE_TASK = "ledger.recall.tasks.record_usage"


def queue_usage(*, owner, items: list[RecallItem]) -> bool:
    """Usage feedback off the request path: one queued django-q2 task (a single INSERT) instead of the updates.

    The worker applies it within seconds (``record_usage``); a lost task only loses a use count, never memory.
    """
    refs = [(i.kind, i.ref_id, i.id) for i in items if i.ref_id is not None]
    if not refs:
        return False
    async_task(USAGE_TASK, owner.pk, refs, timezone.now().isoformat(), group="recall-usage")
    return True


def record_usage(*, owner, items: list[RecallItem], now=None) -> int:
    """Bump use count and last-used time of every surfaced item (pinned facts on their own row too)."""
    now = now or timezone.now()
    refs = [(i.kind, i.ref_id) for i in items if i.ref_id is not None]
    if not refs:
        return 0
    by_kind: dict[str, list[int]] = {}
    for kind, ref_id in refs:
        by_kind.setdefault(kind, []).append(ref_id)
    for kind, ids in list(by_kind.items()):
        # Feedback runs after the request: a row forgotten in between must not come back as a usage count.
        provider = provider_for_kind(kind)
        if provider is not None:
            by_kind[kind] = list(provider.queryset(owner).filter(pk__in=ids).values_list("pk", flat=True))
    with transaction.atomic():
        # A few set-based statements per kind, not two per item: this runs on the request path.
        for kind, ids in by_kind.items():
            rows = Usage.objects.filter(owner=owner, kind=kind, ref_id__in=ids)
            existing = set(rows.values_list("ref_id", flat=True))
            if existing:
                rows.update(use_count=F("use_count") + 1, last_used_at=now)
            Usage.objects.bulk_create(
                [Usage(owner=owner, kind=kind, ref_id=r, use_count=1, last_used_at=now) for r in set(ids) - existing],
                ignore_conflicts=True,
            )
        layers.record_usage(
            owner=owner,
            pinned_ids=[i.id for i in items if i.kind == "pinned"],
            episode_ids=[i.id for i in items if i.kind == "episode"],
            now=now,
        )
    return len(refs)
