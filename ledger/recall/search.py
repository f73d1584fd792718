"""Hybrid search over every registered provider: full-text (BM25-like, in SQL), vector (pgvector HNSW) and their
weighted fusion, then relevance × recency × strength scoring and MMR against near-duplicates.

Full-text: PostgreSQL's ``plainto_tsquery`` ANDs every word, which finds nothing for most questions. We OR the
query's content lexemes (GIN index), then score each hit BM25-style in SQL: each matched lexeme contributes its
IDF (document frequencies counted over the matched rows in the same query pass), normalised by document length.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from django.contrib.postgres.search import SearchQuery
from django.db import connection, transaction
from django.db.models import Avg, Case, Count, F, FloatField, Func, Q, Value, When
from django.utils import timezone
from pgvector.django import CosineDistance

from ledger.recall.embeddings import Backend, current_backend
from ledger.recall.models import Embedding
from ledger.recall.planner import RecallItem
from ledger.recall.providers import ALL, RecallProvider, providers_for
from ledger.recall.ranking import DEFAULT_WEIGHTS, RRF_K, final_score, mmr, recency_score, weighted_rrf
from ledger.recall.text import jaccard, query_terms, words

K1, B = 1.2, 0.75
CANDIDATES = 50  # depth of each ranked list before fusion
CONTEXT_DEPTH = 100  # full-text hits whose neighbours share their score
CONTEXT_WEIGHT = 0.2  # share of a turn's score given to the turns right before and after it
# Below this cosine similarity a vector neighbour is noise, not a memory that bears on the question: without a
# floor every question would "find" the nearest rows of a small memory and the context block becomes a firehose.
MIN_VECTOR_SIMILARITY = {"hash": 0.12}
MIN_VECTOR_SIMILARITY_DEFAULT = 0.3
MMR_LAMBDA = 0.9  # mostly relevance; diversity only breaks near-ties
STATS_TTL = 600.0
CANDIDATE_CAP = 2000  # words in more rows than this do not generate candidates (see fulltext_ranking)  # seconds a (owner, kind) corpus size / mean length is reused
_stats_cache: dict[tuple, tuple[float, int, float, dict]] = {}


@dataclass(frozen=True)
class Ranked:
    ref_id: int
    score: float


def _lexemes(text: str) -> list[str]:
    """PostgreSQL's own english lexemes for ``text`` (the same stemming as the stored tsvectors)."""
    if not text.strip():
        return []
    with connection.cursor() as cur:
        cur.execute("SELECT tsvector_to_array(to_tsvector('english', %s))", [text])
        row = cur.fetchone()
    # Only plain lexemes go into a raw tsquery: anything else could be tsquery syntax.
    return [lx for lx in (row[0] or []) if lx.isalnum()]


def _corpus_stats(provider: RecallProvider, owner) -> tuple[int, float, dict[str, int]]:
    """(row count, mean lexemes per row, rows per speaker/subject name), cached per process for STATS_TTL."""
    key = (provider.kind, type(provider).__name__, owner.pk)
    hit = _stats_cache.get(key)
    now = time.monotonic()
    if hit and now - hit[0] < STATS_TTL:
        return hit[1], hit[2], hit[3]
    qs = provider.queryset(owner)
    agg = qs.aggregate(
        n=Count("pk"), avgdl=Avg(Func(F(provider.search_field), function="length", output_field=FloatField()))
    )
    names: dict[str, int] = {}
    if provider.name_field:
        for name, c in (
            qs.values_list(provider.name_field).annotate(c=Count("pk")).values_list(provider.name_field, "c")
        ):
            if name:
                names[name.lower()] = names.get(name.lower(), 0) + c
    n, avgdl = int(agg["n"] or 0), float(agg["avgdl"] or 1.0)
    _stats_cache[key] = (now, n, avgdl, names)
    return n, avgdl, names


def forget_stats(owner=None) -> None:
    """Drop cached corpus statistics (after bulk ingestion, and in tests)."""
    for cache in (_stats_cache, _df_cache):
        for key in list(cache):
            if owner is None or key[2] == owner.pk:
                del cache[key]


def _idf(n: int, df: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


_df_cache: dict[tuple, tuple[float, int]] = {}


def _document_frequencies(provider: RecallProvider, owner, lexemes: list[str]) -> dict[str, int]:
    """Rows containing each lexeme, counted in one GIN-backed pass; reused per process for STATS_TTL."""
    now = time.monotonic()
    out: dict[str, int] = {}
    missing = []
    for lx in lexemes:
        hit = _df_cache.get((provider.kind, type(provider).__name__, owner.pk, lx))
        if hit and now - hit[0] < STATS_TTL:
            out[lx] = hit[1]
        else:
            missing.append(lx)
    if missing:
        field = provider.search_field
        any_query = SearchQuery(" | ".join(missing), search_type="raw", config="simple")
        counts = (
            provider.queryset(owner)
            .filter(**{field: any_query})
            .aggregate(
                **{
                    f"df{i}": Count("pk", filter=Q(**{field: SearchQuery(lx, search_type="raw", config="simple")}))
                    for i, lx in enumerate(missing)
                }
            )
        )
        if len(_df_cache) > 50_000:
            _df_cache.clear()
        for i, lx in enumerate(missing):
            out[lx] = counts[f"df{i}"] or 0
            if out[lx]:  # never cache "absent": a word in a memory stored a second ago must be findable now
                _df_cache[(provider.kind, type(provider).__name__, owner.pk, lx)] = (now, out[lx])
    return out


def fulltext_ranking(provider: RecallProvider, owner, query: str, limit: int = CANDIDATES) -> list[Ranked]:
    """Rows of ``provider`` for ``owner`` matching any content word of ``query``, best BM25-like score first."""
    terms = query_terms(query)
    lexemes = list(dict.fromkeys(_lexemes(" ".join(terms))))
    if not lexemes:
        return []
    field = provider.search_field
    n, avgdl, names = _corpus_stats(provider, owner)
    if n == 0:
        return []
    dfs = _document_frequencies(provider, owner, lexemes)
    present = [lx for lx in lexemes if dfs.get(lx)]
    if not present:
        return []
    # Candidates come from the informative words only: in a large memory a very common word (a close friend's
    # name) adds little to the score but would make PostgreSQL score a large part of the table. It still counts for rows found otherwise; when every
    # word is common, the rarest one alone generates candidates.
    rare = [lx for lx in present if dfs[lx] <= CANDIDATE_CAP] or [min(present, key=lambda lx: dfs[lx])]
    any_query = SearchQuery(" | ".join(rare), search_type="raw", config="simple")
    matched = provider.queryset(owner).filter(**{field: any_query})
    weights = [
        When(Q(**{field: SearchQuery(lx, search_type="raw", config="simple")}), then=Value(_idf(n, dfs[lx])))
        for lx in present
    ]
    if not weights:
        return []
    # A name field (speaker, subject) counts as part of the document: a query word equal to it adds its IDF.
    name_terms = [t for t in terms if t in names] if provider.name_field else []
    matched_terms = [Case(w, default=Value(0.0), output_field=FloatField()) for w in weights]
    for t in name_terms:
        matched_terms.append(
            Case(
                When(Q(**{f"{provider.name_field}__iexact": t}), then=Value(_idf(n, names[t]))),
                default=Value(0.0),
                output_field=FloatField(),
            )
        )
    total = matched_terms[0]
    for expr in matched_terms[1:]:
        total = total + expr
    length = Func(F(field), function="length", output_field=FloatField())
    norm = Value(K1 * (1 - B)) + Value(K1 * B / avgdl) * length
    score = total * Value(K1 + 1) / (Value(1.0) + norm)
    rows = matched.annotate(bm25=score).order_by("-bm25", "pk").values_list("pk", "bm25")[:limit]
    return [Ranked(pk, float(s)) for pk, s in rows]


def contextual_ranking(provider: RecallProvider, owner, query: str, limit: int = CANDIDATES) -> list[Ranked]:
    """Full-text ranking with session context: each hit passes CONTEXT_WEIGHT of its score to its neighbours.

    In conversation the answer often sits in the turn after the question that names the topic (and the other
    way round), so a turn adjacent to strong matches is itself likely relevant. Providers without a notion of
    neighbours (facts, episodes) get the plain full-text ranking.
    """
    hits = fulltext_ranking(provider, owner, query, CONTEXT_DEPTH)
    neighbours = getattr(provider, "neighbours", None)
    if not hits or neighbours is None:
        return hits[:limit]
    base = {h.ref_id: h.score for h in hits}
    scores = dict(base)
    for ref, adjacent in neighbours(owner, list(base)).items():
        for other in adjacent:
            scores[other] = scores.get(other, 0.0) + CONTEXT_WEIGHT * base[ref]
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    return [Ranked(r, s) for r, s in ranked]


def vector_ranking(
    provider: RecallProvider, owner, query: str, limit: int = CANDIDATES, *, backend: Backend | None = None
) -> list[Ranked]:
    """Nearest rows by cosine distance among this owner's vectors of the backend's (default: current) space."""
    backend = backend or current_backend()
    qvec = query_vector(backend, query)
    with transaction.atomic():
        with connection.cursor() as cur:
            # Iterative scans keep HNSW useful under the owner/space filter (pgvector >= 0.8).
            cur.execute("SET LOCAL hnsw.ef_search = 100; SET LOCAL hnsw.iterative_scan = relaxed_order")
        rows = list(
            Embedding.objects.owned_by(owner)
            .filter(kind=provider.kind, space=backend.space)
            .annotate(distance=CosineDistance("vector", qvec))
            .order_by("distance")
            .values_list("ref_id", "distance")[: limit * 2]
        )
    if not rows:
        return []
    allowed = set(provider.queryset(owner).filter(pk__in=[r for r, _ in rows]).values_list("pk", flat=True))
    ranked = sorted(((r, 1.0 - float(d)) for r, d in rows if r in allowed), key=lambda x: -x[1])
    return [Ranked(r, s) for r, s in ranked[:limit]]


_query_vectors: dict[tuple[str, str], list[float]] = {}


def query_vector(backend: Backend, query: str) -> list[float]:
    key = (backend.space, query)
    vec = _query_vectors.get(key)
    if vec is None:
        vec = backend.embed_one(query)
        if len(_query_vectors) > 512:
            _query_vectors.clear()
        _query_vectors[key] = vec
    return vec


def _age_days(item: RecallItem, now: datetime) -> float:
    if not item.occurred_at:
        return 365.0
    try:
        when = datetime.fromisoformat(item.occurred_at)
    except ValueError:
        return 365.0
    if isinstance(when, date) and not isinstance(when, datetime):
        when = datetime(when.year, when.month, when.day)
    if timezone.is_naive(when):
        when = timezone.make_aware(when, timezone.get_current_timezone())
    return max(0.0, (now - when).total_seconds() / 86400)


def hybrid_ranking(
    provider: RecallProvider,
    owner,
    query: str,
    *,
    weights: dict[str, float] | None = None,
    backend: Backend | None = None,
) -> list[tuple[int, float]]:
    """Weighted RRF of the full-text and vector lists; scores normalised so 1.0 = first in every list."""
    backend = backend or current_backend()
    weights = weights or fusion_weights(backend)
    lists = {"fulltext": [r.ref_id for r in contextual_ranking(provider, owner, query)]}
    if weights.get("vector", 0) > 0:
        floor = MIN_VECTOR_SIMILARITY.get(backend.name, MIN_VECTOR_SIMILARITY_DEFAULT)
        lists["vector"] = [
            r.ref_id for r in vector_ranking(provider, owner, query, backend=backend) if r.score >= floor
        ]
    fused = weighted_rrf(lists, weights)
    best = sum(weights.get(name, 1.0) for name in lists) / (RRF_K + 1)
    return [(ref, s / best) for ref, s in fused]


def fusion_weights(backend: Backend) -> dict[str, float]:
    """Full-text leads; a dense model earns more say than the lexical hash vectors (which mostly echo full-text)."""
    return {"fulltext": 1.0, "vector": DEFAULT_WEIGHTS["vector"] if backend.name == "hash" else 0.5}


class _WordSets:
    """Word sets of items, computed once per search for MMR's near-duplicate similarity."""

    def __init__(self):
        self.cache: dict[int, frozenset] = {}

    def __call__(self, a: RecallItem, b: RecallItem) -> float:
        return jaccard(self._get(a), self._get(b))

    def _get(self, item: RecallItem) -> frozenset:
        key = id(item)
        if key not in self.cache:
            self.cache[key] = frozenset(words(item.text))
        return self.cache[key]


def search_provider(
    provider: RecallProvider,
    owner,
    query: str,
    limit: int,
    *,
    weights: dict[str, float] | None = None,
    backend: Backend | None = None,
) -> list[RecallItem]:
    """Hybrid results of one provider: fusion, then scoring by relevance/recency/strength, then MMR."""
    fused = hybrid_ranking(provider, owner, query, weights=weights, backend=backend)[: max(limit * 2, 20)]
    if not fused:
        return []
    items = provider.items(owner, [ref for ref, _ in fused])
    now = timezone.now()
    scored = []
    for ref, relevance in fused:
        item = items.get(ref)
        if item is None:  # filtered out by policy since it was indexed
            continue
        item.score = final_score(relevance, recency_score(_age_days(item, now)), item.strength)
        scored.append(item)
    scored.sort(key=lambda it: -it.score)
    picked = mmr(
        [(it, it.score) for it in scored], _WordSets(), limit=limit, lambda_=MMR_LAMBDA, duplicate_threshold=0.9
    )
    return [it for it, _ in picked]


_LAYER_RANK = {"pinned": 0, "fact": 1}


def search_memory(owner, scope: str, query: str, limit: int = 10) -> list[RecallItem]:
    """Owner-scoped, policy-filtered hybrid search over one scope (or ``all``), best first.

    Each provider's ``queryset(owner)`` applies the owner scope and the policy (e.g. no rejected facts), so
    nothing here can surface another user's row or a refused one.
    """
    results: list[RecallItem] = []
    for provider in providers_for(scope):
        results.extend(search_provider(provider, owner, query, limit))
    if scope == ALL:
        # The same fact can come back as a fact and as a pinned fact: keep one, labelled with the higher layer.
        by_ref: dict[str, RecallItem] = {}
        for it in results:
            key = it.source_ref or f"{it.kind}:{it.id}"
            held = by_ref.get(key)
            if held is None or (_LAYER_RANK.get(it.kind, 9), -it.score) < (_LAYER_RANK.get(held.kind, 9), -held.score):
                if held is not None:
                    it.score = max(it.score, held.score)
                by_ref[key] = it
        results = list(by_ref.values())
    results.sort(key=lambda it: -it.score)
    if scope == ALL:
        picked = mmr(
            [(it, it.score) for it in results], _WordSets(), limit=limit, lambda_=MMR_LAMBDA, duplicate_threshold=0.9
        )
        return [it for it, _ in picked]
    return results[:limit]


def rank_ids(
    provider: RecallProvider,
    owner,
    query: str,
    mode: str,
    limit: int,
    *,
    backend: Backend | None = None,
    weights: dict[str, float] | None = None,
) -> Sequence[int]:
    """Ranked ref ids for one mode (fulltext | vector | hybrid); used by the benchmark."""
    if mode == "fulltext":
        return [r.ref_id for r in fulltext_ranking(provider, owner, query, limit)]
    if mode == "context":
        return [r.ref_id for r in contextual_ranking(provider, owner, query, limit)]
    if mode == "vector":
        return [r.ref_id for r in vector_ranking(provider, owner, query, limit, backend=backend)]
    items = search_provider(provider, owner, query, limit, weights=weights, backend=backend)
    return [it.ref_id for it in items]
