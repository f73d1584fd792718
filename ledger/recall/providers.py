"""The registry through which searchable sources plug into recall.

Recall knows no source: ledger layers (pinned facts, episodes, facts) register here from recall's own
AppConfig.ready(); wearables registers the "transcript" scope from its ready(), screen the "events" scope.

A provider adapts one model whose rows have a full-text ``search`` tsvector (GIN-indexed) to recall:

    class MyProvider(RecallProvider):
        kind = "utterance"                      # Embedding.kind of its vectors
        def queryset(self, owner): ...          # owner-scoped AND policy-filtered rows (never others')
        def documents(self, rows): ...          # (ref_id, text to embed) for rows of queryset()
        def items(self, owner, ref_ids): ...    # {ref_id: RecallItem} for display/packing, same filtering
        def prune(self, owner, before): ...     # delete rows older than ``before`` (retention); count

    register_provider("transcript", MyProvider())

``queryset(owner)`` may use the owner only as a filter value (``owned_by(owner)``), never to choose other
filters: full text writes its SQL once per provider and passes each owner's pk into it (statements.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.db import connection
from django.db.models import Q, QuerySet

from ledger.recall.planner import RecallItem

SCOPES = ("pinned", "episodes", "transcript", "events", "facts")
ALL = "all"


class RecallProvider:
    """Base class documenting the contract; subclasses override what they support."""

    kind: str = ""
    search_field: str = "search"  # tsvector column of queryset()'s model
    name_field: str | None = None  # a speaker/subject column whose words boost a full-text match (optional)
    date_field: str | None = None  # when the row happened, for recency (optional)
    retention_setting: str | None = None  # settings name of the retention in days (0 = forever)

    def queryset(self, owner) -> QuerySet:  # pragma: no cover - interface
        raise NotImplementedError

    def documents(self, rows: Iterable) -> list[tuple[int, str]]:  # pragma: no cover - interface
        raise NotImplementedError

    def items(self, owner, ref_ids: list[int]) -> dict[int, RecallItem]:  # pragma: no cover - interface
        raise NotImplementedError

    def prune(self, owner, before: datetime) -> int:
        return 0


# Helpers for providers of conversation turns (their optional ``neighbours`` and ``evidence_refs``).
def adjacent_rows(sql: str, params: list) -> dict[int, list[int]]:
    """Run ``sql``, which selects (row id, adjacent row id) pairs: the adjacent rows of each row id."""
    out: dict[int, list[int]] = {}
    with connection.cursor() as cur:
        cur.execute(sql, params)
        for a, b in cur.fetchall():
            out.setdefault(a, []).append(b)
    return out


def span_rows(rows: QuerySet, spans: list[tuple[object, int, int] | None], *, key_field: str) -> list[list[int]]:
    """For each span of turns ``(key, first index, last index)``, the pks of the turns of ``rows`` whose
    ``key_field`` is that key (compared as text), in index order, turns not found left out; [] for a None span."""
    wanted: dict[object, set[int]] = {}
    for span in spans:
        if span is not None:
            wanted.setdefault(span[0], set()).update(range(span[1], span[2] + 1))
    pks: dict[tuple[str, int], int] = {}
    if wanted:
        q = Q()
        for key, indexes in wanted.items():
            q |= Q(**{key_field: key, "index__in": sorted(indexes)})
        for pk, key, index in rows.filter(q).values_list("pk", key_field, "index"):
            pks[(str(key), index)] = pk
    return [
        [] if span is None else [pks[k] for i in range(span[1], span[2] + 1) if (k := (str(span[0]), i)) in pks]
        for span in spans
    ]


_REGISTRY: dict[str, list[RecallProvider]] = {}


def register_provider(scope: str, provider: RecallProvider) -> None:
    """Register ``provider`` under ``scope`` (idempotent per provider class, so ready() may run twice)."""
    if scope not in SCOPES:
        raise ValueError(f"Unknown recall scope {scope!r}; choose one of {', '.join(SCOPES)}")
    providers = _REGISTRY.setdefault(scope, [])
    providers[:] = [p for p in providers if type(p) is not type(provider)]
    providers.append(provider)


def providers_for(scope: str) -> list[RecallProvider]:
    if scope == ALL:
        return [p for s in SCOPES for p in _REGISTRY.get(s, [])]
    return list(_REGISTRY.get(scope, []))


def provider_for_kind(kind: str) -> RecallProvider | None:
    for providers in _REGISTRY.values():
        for p in providers:
            if p.kind == kind:
                return p
    return None


def registered_scopes() -> list[str]:
    return [s for s in SCOPES if _REGISTRY.get(s)]
