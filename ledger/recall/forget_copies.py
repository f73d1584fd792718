"""Forgetting reaches recall's copies too: vectors, usage counts and cached context blocks of forgotten rows."""

from __future__ import annotations

from django.core.cache import DEFAULT_CACHE_ALIAS, cache, caches
from django.core.cache.backends.db import DatabaseCache
from django.db import connection

from ledger.models import PinnedFact
from ledger.recall.models import Embedding, Usage

CACHE_PREFIX = "recall:"


def forget_copies(*, owner, fact_ids=(), fact_public_ids=(), episode_ids=()) -> None:
    """Ledger forget hook (runs inside the forget transaction)."""
    for kind, ids in (("fact", fact_ids), ("episode", episode_ids)):
        if ids:
            Embedding.objects.owned_by(owner).filter(kind=kind, ref_id__in=ids).delete()
            Usage.objects.owned_by(owner).filter(kind=kind, ref_id__in=ids).delete()
    # Pinned rows went with their facts (CASCADE); drop the vectors that now point at nothing.
    pinned = PinnedFact.objects.filter(owner=owner).values("pk")
    Embedding.objects.owned_by(owner).filter(kind="pinned").exclude(ref_id__in=pinned).delete()
    Usage.objects.owned_by(owner).filter(kind="pinned").exclude(ref_id__in=pinned).delete()
    purge_cached_blocks()


def purge_cached_blocks() -> None:
    """Cached context blocks may quote what was just forgotten: remove them, not just let them expire."""
    backend = caches[DEFAULT_CACHE_ALIAS]  # the backend itself (``cache`` is a proxy to it)
    if isinstance(backend, DatabaseCache):
        table = connection.ops.quote_name(backend._table)
        with connection.cursor() as cur:
            cur.execute(f"DELETE FROM {table} WHERE cache_key LIKE %s", [f"%:{CACHE_PREFIX}%"])
    else:  # other backends cannot be searched by prefix; dropping everything is safe (it is only a cache)
        cache.clear()
