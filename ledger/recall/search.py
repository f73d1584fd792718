"""Hybrid search over every registered provider: full-text (BM25-like, in SQL), vector (pgvector HNSW) and their
weighted fusion, then relevance × recency × strength scoring and MMR against near-duplicates.

Full-text: PostgreSQL's ``plainto_tsquery`` ANDs every word, which finds nothing for most questions. We OR the
query's content lexemes (GIN index), then score each hit BM25-style in SQL, in the statement that also fetches
the columns the context block needs: each matched lexeme contributes its IDF (document frequencies counted on
small corpora, read from PostgreSQL's ANALYZE statistics on large ones), normalised by document length.
Candidates come from the informative words; common ones only count, or fill a list that would stay short.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date, datetime
from itertools import combinations

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.search import SearchQuery
from django.db import connection, models, transaction
from django.db.models import Avg, BooleanField, Count, Expression, ExpressionWrapper, F, FloatField, Func, Q
from django.utils import timezone
from pgvector.django import CosineDistance

from ledger.recall import statements
from ledger.recall.embeddings import Backend, current_backend
from ledger.recall.lexical import query_terms, words
from ledger.recall.models import Anchor, Embedding
from ledger.recall.planner import RecallItem
from ledger.recall.providers import ALL, RecallProvider, providers_for
from ledger.recall.ranking import RRF_K, final_score, mmr, recency_score, weighted_rrf
from ledger.recall.when import TIME_WORDS, asks_when, date_windows, date_words, in_windows

K1, B = 1.2, 0.5  # b 0.5: a long turn is less penalised than BM25's usual 0.75 (set on the development split)
CANDIDATES = 50  # depth of each ranked list before fusion
CONTEXT_DEPTH = 100  # full-text hits whose neighbours share their score
CONTEXT_WEIGHT = 0.3  # share of a turn's score given to the turns right before and after it
ANCHOR_WEIGHT = 0.25  # share of a fact's (normalised) score given to the turns it was distilled from
ANCHOR_DEPTH = 30  # best fact hits whose source turns are looked up
DATE_BOOST = 0.5  # rows inside a calendar period the question names score × (1 + DATE_BOOST)
NAME_IN_TEXT_WEIGHT = 0.5  # a speaker's name found in a turn's text, relative to other words (see _ranked_rows)
TIME_WORD_WEIGHT = 0.3  # a when-question's time words (when.TIME_WORDS), as a share of their IDF
EXPANSION_DOCS = 3  # entity/topic expansion: the best hits whose words expand the question
EXPANSION_TERMS = 5
EXPANSION_WEIGHT = 0.3  # an expansion word counts this share of its IDF
EXPAND_DEFAULT = True
LINK_DOCS = 5  # cross-session links: the best hits whose rare words link them to other sessions' rows
LINK_MIN_SHARED = 2
LINK_WEIGHT = 0.0  # measured on the development split: links lowered R@10 at every weight tried (docs/recall.md)
LINK_ONLY_FOUND = True
LINK_CANDIDATES = 500
EXPANSION_MAX_DF = 200  # only words this rare name a thing; commoner ones would make the second pass costly
# Below this cosine similarity a vector neighbour is noise, not a memory that bears on the question: without a
# floor every question would "find" the nearest rows of a small memory and the context block becomes a firehose.
MIN_VECTOR_SIMILARITY = {"hash": 0.12}
MIN_VECTOR_SIMILARITY_DEFAULT = 0.3
DENSE_VECTOR_WEIGHT = 0.5  # a dense model's list in the weighted RRF (full text 1.0)
MMR_LAMBDA = 0.9  # mostly relevance; diversity only breaks near-ties
STATS_TTL = 600.0  # seconds a (owner, kind) corpus size / mean length / document frequency is reused
CANDIDATE_CAP = 2000  # words in more rows than this do not generate candidates (see fulltext_ranking)
ESTIMATE_FROM = 20_000  # tables this large give document frequencies from PostgreSQL's statistics
_stats_cache: dict[tuple, tuple[float, int, float, dict]] = {}
_lexeme_cache: dict[str, tuple[str, ...]] = {}


@dataclass(frozen=True)
class Ranked:
    ref_id: int
    score: float


def _lexemes(terms: list[str]) -> list[str]:
    """PostgreSQL's own english lexemes for ``terms`` (the stored tsvectors' stemming), cached per word."""
    missing = [t for t in dict.fromkeys(terms) if t not in _lexeme_cache]
    if missing:
        with connection.cursor() as cur:
            cur.execute(
                "SELECT w, tsvector_to_array(to_tsvector('english', w)) FROM unnest(%s::text[]) AS w", [missing]
            )
            if len(_lexeme_cache) > 100_000:
                _lexeme_cache.clear()
            for word, lexemes in cur.fetchall():
                # Only plain lexemes go into a raw tsquery: anything else could be tsquery syntax.
                _lexeme_cache[word] = tuple(lx for lx in (lexemes or []) if lx.isalnum())
    return list(dict.fromkeys(lx for t in terms for lx in _lexeme_cache.get(t, ())))


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
    _column_stats.clear()


def _idf(n: int, df: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


_df_cache: dict[tuple, tuple[float, int]] = {}
_column_stats: dict[tuple[str, str], tuple[float, dict[str, float], float, float]] = {}


_search_columns: dict[tuple[type, str], tuple[str, str]] = {}


def _search_column(provider: RecallProvider, owner) -> tuple[str, str]:
    """(table, column) holding the provider's tsvector, following a related path like ``fact__search``."""
    key = (type(provider), provider.search_field)
    if key not in _search_columns:
        parts = provider.search_field.split("__")
        model = provider.queryset(owner).model
        for part in parts[:-1]:
            model = model._meta.get_field(part).related_model
        _search_columns[key] = (model._meta.db_table, model._meta.get_field(parts[-1]).column)
    return _search_columns[key]


def _estimated_frequencies(provider: RecallProvider, owner) -> tuple[dict[str, float], float, float] | None:
    """Share of rows holding each common lexeme, from PostgreSQL's ANALYZE statistics (most_common_elems), the
    share below which a lexeme is not listed, and the indexed table's row count.

    Precomputed by the database itself, so a large corpus needs no counting pass per question: a lexeme not in
    the list is rarer than the rarest listed one. None when the column has not been analysed yet.
    """
    table, column = _search_column(provider, owner)
    now = time.monotonic()
    hit = _column_stats.get((table, column))
    if hit and now - hit[0] < STATS_TTL:
        return None if hit[2] < 0 else (hit[1], hit[2], hit[3])
    with connection.cursor() as cur:
        cur.execute(
            "SELECT s.most_common_elems::text::text[], s.most_common_elem_freqs, c.reltuples FROM pg_stats s "
            "JOIN pg_class c ON c.relname = s.tablename AND c.relnamespace = s.schemaname::regnamespace "
            "WHERE s.tablename = %s AND s.attname = %s AND s.schemaname = current_schema()",
            [table, column],
        )
        row = cur.fetchone()
    # Small tables are counted exactly (cheap there); their sampled statistics would be too coarse.
    if not row or not row[0] or not row[1] or (row[2] or 0) < ESTIMATE_FROM:
        _column_stats[(table, column)] = (now, {}, -1.0, 0.0)
        return None
    elems, freqs, table_rows = row
    shares = {e: float(f) for e, f in zip(elems, freqs[: len(elems)], strict=False)}
    floor = float(freqs[len(elems)]) if len(freqs) > len(elems) else min(shares.values())
    _column_stats[(table, column)] = (now, shares, floor, float(table_rows))
    return shares, floor, float(table_rows)


def _document_frequencies(provider: RecallProvider, owner, lexemes: list[str], n: int) -> dict[str, int]:
    """Rows containing each lexeme: estimated from statistics on large corpora, else counted (GIN, one pass).

    Counts are reused per process for STATS_TTL; "absent" is never cached (a word stored a second ago must be
    findable now).
    """
    estimated = _estimated_frequencies(provider, owner)  # None for tables under ESTIMATE_FROM rows
    # How many rows the GIN index holds per row of this owner's corpus: what a word costs to look up is its
    # share of the whole indexed table (every owner's rows, and every fact behind a pinned one).
    _INDEX_SCALE.set(estimated[2] / n if estimated is not None and n else 0.0)
    if estimated is not None:
        shares, floor, _table_rows = estimated
        return {lx: max(1, round(n * shares.get(lx, floor / 2))) for lx in lexemes}
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
        counts = _count_rows(provider, owner, missing)
        if len(_df_cache) > 50_000:
            _df_cache.clear()
        for i, lx in enumerate(missing):
            out[lx] = counts[f"df{i}"] or 0
            if out[lx]:
                _df_cache[(provider.kind, type(provider).__name__, owner.pk, lx)] = (now, out[lx])
    return out


def _count_rows(provider: RecallProvider, owner, lexemes: list[str]) -> dict[str, int]:
    """{"df<i>": rows holding lexemes[i]} in one pass over the owner's rows holding any of them (GIN); the
    statement is written once per provider and number of lexemes."""
    if not getattr(owner, "is_authenticated", False):
        return {f"df{i}": 0 for i in range(len(lexemes))}
    k = len(lexemes)
    counts = ", ".join(f'count(*) FILTER (WHERE m."m{i}")' for i in range(k))
    st = statements.statement(
        (type(provider), provider.search_field, "df", k),
        lambda sentinel: _counting_queryset(provider, sentinel, k),
        outer=f"SELECT {counts} FROM ({{inner}}) AS m",
        columns=[f"df{i}" for i in range(k)],
    )
    values = {statements.OWNER_SLOT: owner.pk, "any": " | ".join(lexemes)}
    values.update({f"lx{i}": lx for i, lx in enumerate(lexemes)})
    return st.rows(values, 1)[0]


def _counting_queryset(provider: RecallProvider, owner, k: int):
    field = provider.search_field

    def query(name):
        return SearchQuery(statements.slot(name), search_type="raw", config="simple")

    marks = {f"m{i}": ExpressionWrapper(Q(**{field: query(f"lx{i}")}), output_field=BooleanField()) for i in range(k)}
    return provider.queryset(owner).filter(**{field: query("any")}).order_by().annotate(**marks).values_list(*marks)


@dataclass
class TextQuery:
    """What full text looks for: weighted lexemes, name words, and the calendar windows the question names."""

    terms: list[str]
    weights: dict[str, float]  # lexeme -> weight (1.0 for the question's own words, less for expansions)
    windows: list[tuple[date, date]]


def text_query(query: str) -> TextQuery:
    windows = date_windows(query)
    drop = date_words(query) if windows else set()
    terms = [t for t in query_terms(query) if t not in drop]
    weights = {lx: 1.0 for lx in _lexemes(terms)}
    if TIME_WORD_WEIGHT and asks_when(query):
        # Time-aware expansion: the turn that says when ("…yesterday", "last Friday") is what a when-question wants.
        for lx in _lexemes(TIME_WORDS):
            weights.setdefault(lx, TIME_WORD_WEIGHT)
    return TextQuery(terms=terms, weights=weights, windows=windows)


def _scored_rows(provider: RecallProvider, owner, tq: TextQuery, limit: int, with_dates: bool):
    n, avgdl, names = _corpus_stats(provider, owner)
    if n == 0 or not tq.weights:
        return []
    dfs = _document_frequencies(provider, owner, list(tq.weights), n)
    present = [lx for lx in tq.weights if dfs.get(lx)]
    if not present:
        return []
    # Candidates come from the informative words: in a large memory a very common word (a close friend's name)
    # adds little to the score but would make PostgreSQL score a large part of the table. It still counts for
    # the rows found otherwise. A word is common by what it costs to look up: its rows in the whole index.
    scale = _INDEX_SCALE.get()
    rare = [lx for lx in present if dfs[lx] * (scale or 1.0) <= CANDIDATE_CAP]
    common = sorted((lx for lx in present if lx not in rare), key=lambda lx: dfs[lx])
    clauses = list(rare)
    if common and (not rare or scale):
        # Common words generate candidates only in pairs (a row holding two of them), which GIN intersects
        # cheaply. (Estimated statistics cannot tell a rare word from an absent one, so with them the pairs are
        # always added.)
        clauses += [f"({a} & {b})" for a, b in combinations(common[:4], 2)]
    sc = _Scoring(provider, owner, tq, present, dfs, names, n, avgdl)
    # A small corpus over a large index (pinned facts over every fact, one owner's rows among many) is cheaper
    # to walk row by row than through the words' index entries, of which only one in ``scale`` is its own:
    # then one pass ranks every row holding an informative word or the rarest common one.
    if scale and n < sum(dfs[lx] for lx in [*rare, *common[:1]]) * scale:
        return _ranked_rows(sc, [*clauses, *common[:1]], limit, with_dates, walk=True)
    rows = _ranked_rows(sc, clauses, limit, with_dates) if clauses else []
    if len(rows) < limit and common and (scale or not rows):
        # Too few rows hold an informative word: rows holding the rarest common word fill the list, after every
        # row found by an informative word. In a large table they are taken as stored, not ranked among
        # themselves (that would score a large part of the table again).
        need = limit - len(rows)
        fill = _ranked_rows(sc, [common[0]], need, with_dates, exclude=clauses, ranked=not scale)
        rows += sorted(fill, key=lambda r: (-r[1], r[0]))
    return rows


class BM25Score(Expression):
    """The BM25-like score of one row as one flat SQL expression (no deep expression tree to build per question).

    Σ weight × IDF over the query lexemes the row's tsvector holds (plus the IDF of a name-field value equal to
    a query word), × (k1 + 1) / (1 + k1 × (1 − b + b × length / avgdl)), in double precision (numeric
    arithmetic made scoring a large candidate set a quarter slower). Weights are passed as the shortest text
    that reads back as the same double, so a score differs from the expression tree's by rounding only (ranks
    and ties are the same). A weight or ``avgdl`` given as a string is a statement slot (see statements.py).
    """

    output_field = FloatField()

    def __init__(self, field, lexemes: list[tuple[str, float]], name_field=None, names=(), *, avgdl: float | str):
        super().__init__()
        self.column = F(field) if isinstance(field, str) else field
        self.name = (F(name_field) if isinstance(name_field, str) else name_field) if names else None
        self.lexemes = [(lx, _decimal(w)) for lx, w in lexemes]  # plain lexemes (or slots): checked by the caller
        self.names = [(str(t), _decimal(w)) for t, w in names]
        self.scale = avgdl if isinstance(avgdl, str) else _decimal(K1 * B / float(avgdl))

    def get_source_expressions(self):
        return [self.column, self.name]

    def set_source_expressions(self, exprs):
        self.column, self.name = exprs

    def as_sql(self, compiler, connection):
        col, col_params = compiler.compile(self.column)
        parts, params = [], []
        for lx, weight in self.lexemes:
            parts.append(f"CASE WHEN {col} @@ to_tsquery('simple'::regconfig, %s) THEN %s::float8 ELSE 0::float8 END")
            params += [*col_params, lx, weight]
        if self.name is not None:
            name, name_params = compiler.compile(self.name)
            for word, weight in self.names:
                parts.append(f"CASE WHEN UPPER({name}::text) = UPPER(%s) THEN %s::float8 ELSE 0::float8 END")
                params += [*name_params, word, weight]
        total = " + ".join(parts) or "0::float8"
        norm = f"(1::float8 + ({K1 * (1 - B)!r}::float8 + (%s::float8 * length({col}))))"
        return f"((({total}) * {K1 + 1!r}::float8) / {norm})", [*params, self.scale, *col_params]


def _decimal(value) -> str:
    """A weight as the exact decimal text of the float (what a SQL literal of ``repr`` held); slots pass."""
    return value if isinstance(value, str) else repr(float(value))


@dataclass
class _Scoring:
    """What scoring one question against one provider's corpus needs (see _scored_rows)."""

    provider: RecallProvider
    owner: object
    tq: TextQuery
    present: list[str]  # the question's lexemes the corpus holds
    dfs: dict[str, int]
    names: dict[str, int]
    n: int
    avgdl: float


def _ranked_rows(sc: _Scoring, clauses, limit, with_dates, *, exclude=(), ranked=True, walk=False):
    """The ``limit`` best rows holding any of ``clauses`` (none of ``exclude``): (pk, score[, date]) each.

    ``ranked=False`` takes the first ``limit`` matching rows as stored (scored, but not ordered by score);
    ``walk=True`` tests the provider's rows one by one instead of looking the words up in the index. The SQL is
    written once per provider and shape (statements.py); a question only passes its values.
    """
    provider, owner, tq, n, names = sc.provider, sc.owner, sc.tq, sc.n, sc.names
    if not getattr(owner, "is_authenticated", False):
        return []
    # A name field (speaker, subject) counts as part of the document: a query word equal to it adds its IDF.
    name_terms = [(t, _idf(n, names[t])) for t in tq.terms if t in names] if provider.name_field else []
    # The same name said in the text is mostly someone talking *to* that person ("thanks, Maya"): it counts
    # NAME_IN_TEXT_WEIGHT of a word's weight, so the turns the person said lead.
    spoken = {lx for t, _w in name_terms for lx in _lexeme_cache.get(t, ())}
    lexemes = [
        (lx, tq.weights[lx] * _idf(n, sc.dfs[lx]) * (NAME_IN_TEXT_WEIGHT if lx in spoken else 1.0))
        for lx in sc.present
        if lx.isalnum()
    ]
    hydrated = _HYDRATED.get()
    hydrate = hydrated is not None and hasattr(provider, "row_item")
    shape = (len(lexemes), len(name_terms), bool(exclude), ranked, walk, with_dates, hydrate)
    st = statements.statement(
        (type(provider), provider.search_field, *shape), lambda sentinel: _ranking_queryset(provider, sentinel, *shape)
    )
    values = {
        statements.OWNER_SLOT: owner.pk,
        "any": " | ".join(clauses),
        "not": " | ".join(exclude),
        "scale": _decimal(K1 * B / sc.avgdl),
    }
    for i, (lx, weight) in enumerate(lexemes):
        values[f"lx{i}"], values[f"w{i}"] = lx, _decimal(weight)
    for i, (word, weight) in enumerate(name_terms):
        values[f"nm{i}"], values[f"nw{i}"] = word, _decimal(weight)
    rows = st.rows(values, limit)
    if hydrate:
        # The columns the context block needs came with the ranking itself: one round trip, not two.
        hydrated.update({(provider.kind, r["pk"]): provider.row_item(r) for r in rows})
    if with_dates:
        return [(r["pk"], r["bm25"], r[provider.date_field]) for r in rows]
    return [(r["pk"], r["bm25"]) for r in rows]


def _ranking_queryset(provider, owner, n_lexemes, n_names, exclude, ranked, walk, with_dates, hydrate):
    """The ranking statement of one shape, with slots for everything a question varies (see _ranked_rows)."""
    field = provider.search_field
    any_query = SearchQuery(statements.slot("any"), search_type="raw", config="simple")
    if walk:
        unindexed = Func(F(field), any_query, template="(%(expressions)s) IS TRUE", arg_joiner=" @@ ")
        matched = provider.queryset(owner).filter(ExpressionWrapper(unindexed, output_field=BooleanField()))
    else:
        matched = provider.queryset(owner).filter(**{field: any_query})
    if exclude:
        not_query = SearchQuery(statements.slot("not"), search_type="raw", config="simple")
        matched = matched.exclude(**{field: not_query})
    score = BM25Score(
        field,
        [(statements.slot(f"lx{i}"), statements.slot(f"w{i}")) for i in range(n_lexemes)],
        provider.name_field,
        [(statements.slot(f"nm{i}"), statements.slot(f"nw{i}")) for i in range(n_names)],
        avgdl=statements.slot("scale"),
    )
    ranked_qs = matched.annotate(bm25=score).order_by(*(("-bm25", "pk") if ranked else ()))
    columns = ["pk", "bm25", *([provider.date_field] if with_dates else []), *(provider.row_fields if hydrate else ())]
    return ranked_qs.values_list(*dict.fromkeys(columns))


# Rows of the indexed table per corpus row when the last document frequencies came from statistics (estimates),
# 0.0 when they were counted.
_INDEX_SCALE: ContextVar[float] = ContextVar("recall_index_scale", default=0.0)
# Items hydrated by the ranking query during one search_provider call ({(kind, pk): RecallItem}).
_HYDRATED: ContextVar[dict | None] = ContextVar("recall_hydrated", default=None)


def _date_of(value) -> date | None:
    if isinstance(value, datetime):
        return timezone.localtime(value).date() if timezone.is_aware(value) else value.date()
    return value if isinstance(value, date) else None


def fulltext_ranking(provider: RecallProvider, owner, query: str | TextQuery, limit: int = CANDIDATES) -> list[Ranked]:
    """Rows of ``provider`` for ``owner`` matching any content word of ``query``, best BM25-like score first.

    Rows dated inside a calendar period the question names ("in May 2023") score × (1 + DATE_BOOST).
    """
    tq = text_query(query) if isinstance(query, str) else query
    dated = bool(tq.windows and provider.date_field)
    rows = _scored_rows(provider, owner, tq, limit * 2 if dated else limit, dated)
    if not dated:
        return [Ranked(pk, float(s)) for pk, s in rows]
    boosted = [
        Ranked(pk, float(s) * (1 + DATE_BOOST if in_windows(_date_of(when), tq.windows) else 1.0))
        for pk, s, when in rows
    ]
    return sorted(boosted, key=lambda r: (-r.score, r.ref_id))[:limit]


def expanded_query(provider: RecallProvider, owner, tq: TextQuery, hits: list[Ranked]) -> TextQuery:
    """Entity/topic expansion: the rarer words of the best hits join the question at EXPANSION_WEIGHT.

    A two-step question ("what do Melanie's kids like?") first finds the turn naming the thing; the words said
    about it there ("the kids love dinosaurs") then find the other turns about it.
    """
    top = [h.ref_id for h in hits[:EXPANSION_DOCS]]
    if not top:
        return tq
    field = provider.search_field
    arrays = (
        provider.queryset(owner)
        .filter(pk__in=top)
        .order_by()
        .values_list(
            Func(F(field), function="tsvector_to_array", output_field=ArrayField(models.TextField())), flat=True
        )
    )
    seen: dict[str, int] = {}
    for lexemes in arrays:
        for lx in lexemes or []:
            if lx.isalnum() and len(lx) > 2 and lx not in tq.weights and not lx.isdigit():
                seen[lx] = seen.get(lx, 0) + 1
    if not seen:
        return tq
    n = _corpus_stats(provider, owner)[0]
    dfs = _document_frequencies(provider, owner, list(seen), n)
    scored = sorted(
        ((c * _idf(n, dfs[lx]), lx) for lx, c in seen.items() if 1 < dfs.get(lx, 0) <= EXPANSION_MAX_DF),
        reverse=True,
    )[:EXPANSION_TERMS]
    if not scored:
        return tq
    weights = {**tq.weights, **{lx: EXPANSION_WEIGHT for _s, lx in scored}}
    return TextQuery(terms=tq.terms, weights=weights, windows=tq.windows)


def linked_scores(provider: RecallProvider, owner, tq: TextQuery, hits: list[Ranked]) -> dict[int, float]:
    """Cross-session links: rows of *other* sessions that share LINK_MIN_SHARED of a best hit's rare words.

    A person, a place or an event named in one conversation and talked about again weeks later (the sister
    named in May, her new job in August) links the two: each linked row gets LINK_WEIGHT of the hit's score.
    The rare words are a hit's own words in at most EXPANSION_MAX_DF rows (names and events, not topics);
    providers without a session column (``group_field``) get none.
    """
    group = getattr(provider, "group_field", None)
    top = hits[:LINK_DOCS]
    if not group or not top or not LINK_WEIGHT:
        return {}
    field = provider.search_field
    qs = provider.queryset(owner).order_by()
    lexeme_array = Func(F(field), function="tsvector_to_array", output_field=ArrayField(models.TextField()))
    groups, words_of = {}, {}
    for pk, grp, arr in qs.filter(pk__in=[h.ref_id for h in top]).values_list("pk", group, lexeme_array):
        groups[pk] = grp
        words_of[pk] = {lx for lx in arr or [] if lx.isalnum() and len(lx) > 2 and not lx.isdigit()} - set(tq.weights)
    n = _corpus_stats(provider, owner)[0]
    every = sorted(set().union(*words_of.values())) if words_of else []
    dfs = _document_frequencies(provider, owner, every, n) if every else {}
    rare = {pk: {lx for lx in ws if 1 < dfs.get(lx, 0) <= EXPANSION_MAX_DF} for pk, ws in words_of.items()}
    wanted = sorted(set().union(*rare.values())) if rare else []
    if not wanted:
        return {}
    query = SearchQuery(" | ".join(wanted), search_type="raw", config="simple")
    found = qs.filter(**{field: query}).values_list("pk", group, lexeme_array)
    score_of = {h.ref_id: h.score for h in top}
    out: dict[int, float] = {}
    for pk, grp, lexemes in found[:LINK_CANDIDATES]:
        have = set(lexemes or [])
        for hit, linked in rare.items():
            if grp != groups.get(hit) and len(linked & have) >= LINK_MIN_SHARED:
                out[pk] = max(out.get(pk, 0.0), LINK_WEIGHT * score_of.get(hit, 0.0))
    return out


def anchored_scores(provider: RecallProvider, owner, tq: TextQuery) -> dict[int, float]:
    """Fact-augmented keys: the best facts' scores passed to the rows they were distilled from (0..1 each)."""
    from ledger.recall.ledger_providers import FactProvider

    facts = fulltext_ranking(FactProvider(), owner, tq, ANCHOR_DEPTH)
    if not facts:
        return {}
    best = facts[0].score or 1.0
    by_fact = {f.ref_id: f.score / best for f in facts}
    out: dict[int, float] = {}
    links = Anchor.objects.filter(
        owner=owner, kind=provider.kind, fact_id__in=list(by_fact), evidence__tombstoned_at__isnull=True
    ).values_list("fact_id", "ref_id")
    for fact_id, ref in links:
        out[ref] = max(out.get(ref, 0.0), by_fact[fact_id])
    return out


def contextual_ranking(
    provider: RecallProvider,
    owner,
    query: str,
    limit: int = CANDIDATES,
    *,
    expand: bool = EXPAND_DEFAULT,
    anchors: bool = True,
    links: bool = True,
) -> list[Ranked]:
    """Full text with what a row means and where it sits: expansion, fact anchors, session context.

    - expansion: the rarer words of the best hits are searched too, at a lower weight (two-step questions);
    - fact anchors: a turn a matching fact was distilled from gets ANCHOR_WEIGHT of the best hit's score per
      unit of the fact's normalised score (facts say what a turn meant, with the subject's name);
    - session context: in conversation the answer often sits in the turn after the question that names the
      topic (and the other way round), so each hit passes CONTEXT_WEIGHT of its score to its neighbours.
    Providers without neighbours or anchors (facts, episodes) get plain full text.
    """
    if not _corpus_stats(provider, owner)[0]:
        return []  # nothing of this kind to rank or to lift (and no fact search on its behalf)
    tq = text_query(query)
    neighbours = getattr(provider, "neighbours", None)
    # Only hits that pass their score on (to neighbours, via expansion) need the deeper list.
    depth = CONTEXT_DEPTH if neighbours is not None else limit
    hits = fulltext_ranking(provider, owner, tq, depth)
    # Expansion is for conversation turns (fragments that name a thing in one turn and talk about it in
    # another); a fact or an episode already states its subject, and expanding it only costs a round trip.
    if expand and hits and neighbours is not None:
        expanded = expanded_query(provider, owner, tq, hits)
        if expanded is not tq:
            hits = fulltext_ranking(provider, owner, expanded, depth)
    anchored = anchored_scores(provider, owner, tq) if anchors and hasattr(provider, "evidence_refs") else {}
    if not hits and not anchored:
        return []
    top = hits[0].score if hits else 1.0
    base = {h.ref_id: h.score for h in hits}
    for ref, share in anchored.items():
        base[ref] = base.get(ref, 0.0) + ANCHOR_WEIGHT * top * share
    if links and LINK_WEIGHT:
        # Only rows the question itself found are lifted: a link confirms a row, it does not bring a new topic.
        for ref, score in linked_scores(provider, owner, tq, hits).items():
            if ref in base or not LINK_ONLY_FOUND:
                base[ref] = base.get(ref, 0.0) + score
    scores = dict(base)
    if neighbours is not None:
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
    """Full text leads; a dense model gets a say. The hash vectors get none: they only echo full text's words
    (on the development split they added nothing, bench/locomo.py), so by default recall is full text only and
    pays for no vector lookup."""
    return {"fulltext": 1.0, "vector": 0.0 if backend.name == "hash" else DENSE_VECTOR_WEIGHT}


class _WordSets:
    """Word sets of items, computed once per search for MMR's near-duplicate similarity."""

    def __init__(self):
        self.cache: dict[int, frozenset] = {}

    def __call__(self, a: RecallItem, b: RecallItem) -> float:
        sa, sb = self._get(a), self._get(b)
        if not sa and not sb:
            return 1.0
        inter = len(sa & sb)
        return inter / (len(sa) + len(sb) - inter)

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
    hydrated: dict = {}
    token = _HYDRATED.set(hydrated)
    try:
        fused = hybrid_ranking(provider, owner, query, weights=weights, backend=backend)[: max(limit * 2, 20)]
    finally:
        _HYDRATED.reset(token)
    if not fused:
        return []
    items = {ref: hydrated[(provider.kind, ref)] for ref, _ in fused if (provider.kind, ref) in hydrated}
    missing = [ref for ref, _ in fused if ref not in items]  # found by vector, anchor or session context
    if missing:
        items.update(provider.items(owner, missing))
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
    """Ranked ref ids for one mode; used by the benchmark. Modes: fulltext, context (session context only),
    expansion, anchors (context plus one mechanism), vector, hybrid (the full search_provider pipeline)."""
    if mode == "fulltext":
        return [r.ref_id for r in fulltext_ranking(provider, owner, query, limit)]
    if mode in ("context", "expansion", "anchors"):
        ranked = contextual_ranking(
            provider, owner, query, limit, expand=mode == "expansion", anchors=mode == "anchors"
        )
        return [r.ref_id for r in ranked]
    if mode == "vector":
        return [r.ref_id for r in vector_ranking(provider, owner, query, limit, backend=backend)]
    items = search_provider(provider, owner, query, limit, weights=weights, backend=backend)
    return [it.ref_id for it in items]
