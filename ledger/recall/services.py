"""Recall's write and orchestration services: indexing vectors, the context block, usage feedback.

Consolidation lives in consolidation.py. Views, API handlers and tasks each call one function here.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from ledger import services as ledger_services
from ledger.models import Entity, IdentityOverride
from ledger.recall.embeddings import Backend, current_backend
from ledger.recall.gate import GateDecision, heuristic_gate, llm_gate, topic_query
from ledger.recall.models import Embedding, Usage
from ledger.recall.planner import RecallItem, clamp_budget, pack_block
from ledger.recall.providers import RecallProvider, providers_for
from ledger.recall.search import search_memory

EMBED_BATCH = 256
CACHE_SECONDS = 10
# Which scope answers each gate route (identity is always included on its own).
ROUTE_SCOPES = {"pinned": "pinned", "episodes": "episodes", "transcript": "transcript", "events": "events"}


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


def identity_items(owner) -> list[RecallItem]:
    return [
        RecallItem(
            id=str(o.public_id),
            kind="identity",
            text=f"{o.key}: {o.value}",
            permitted_uses=["answers", "actions"],
            source_ref=f"identity:{o.key}",
            strength=1.0,
        )
        for o in IdentityOverride.objects.owned_by(owner).order_by("key")
    ]


def known_entities(owner) -> list[str]:
    """Names the gate treats as 'a known entity named': ledger entities (and their aliases)."""
    names: list[str] = []
    for name, aliases in Entity.objects.owned_by(owner).filter(merged_into__isnull=True).values_list("name", "aliases"):
        names.append(name)
        names.extend(a for a in (aliases or []) if a)
    return names


def decide(owner, query: str) -> GateDecision:
    """The gate: heuristic, or the LLM when enabled and configured (falls back to the heuristic)."""
    entities = known_entities(owner)
    if getattr(settings, "ALMANAC_RECALL_LLM_GATE", False):
        from ledger import llm

        if llm.llm_configured():
            return llm_gate(query, entities, chat_json=llm.chat_json, timeout=min(5.0, settings.ALMANAC_LLM_TIMEOUT))
    return heuristic_gate(query, entities)


def _scope_for(decision: GateDecision, scope: str | None) -> str | None:
    if scope and scope != "auto":
        return scope
    return ROUTE_SCOPES.get(decision.route)


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
    decision = decide(owner, query)
    section = _scope_for(decision, scope)
    identity = identity_items(owner)
    found: list[RecallItem] = search_memory(owner, section, topic_query(query, decision), limit=20) if section else []
    if not found and section == "pinned" and not scope:
        # A named entity with nothing pinned about it yet: the facts layer is the next best source.
        section, found = "facts", search_memory(owner, "facts", query, limit=20)
    packed = pack_block(identity, section or "none", found, budget)
    if feedback:
        record_usage(owner=owner, items=packed.items)
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
    cache.set(
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
def record_usage(*, owner, items: list[RecallItem]) -> int:
    """Bump use count and last-used time of every surfaced item (pinned facts on their own row too)."""
    now = timezone.now()
    refs = [(i.kind, i.ref_id) for i in items if i.ref_id is not None]
    if not refs:
        return 0
    by_kind: dict[str, list[int]] = {}
    for kind, ref_id in refs:
        by_kind.setdefault(kind, []).append(ref_id)
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
        ledger_services.record_usage(
            owner=owner,
            pinned_ids=[i.id for i in items if i.kind == "pinned"],
            episode_ids=[i.id for i in items if i.kind == "episode"],
            now=now,
        )
    return len(refs)
