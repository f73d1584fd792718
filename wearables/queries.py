"""Composed reads: transcript search, a day's transcripts with overlap hints, source status."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from datetime import date, timedelta

from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import connection
from django.db.models import F, OuterRef, Q, Subquery

from accounts import crypto
from wearables.models import Conversation, DayTranscript, Source, SyncRun, Utterance

SCAN_LIMIT = 5000  # newest utterances the fallback scan looks at
MAX_LIMIT = 100
_START, _STOP = "\x02", "\x03"  # ts_headline markers, turned into <mark> after escaping


@dataclass
class SearchResult:
    """``mode`` tells callers which search ran: ``indexed`` (full-text) or ``scan`` (bounded substring scan)."""

    query: str
    mode: str
    hits: list[dict] = field(default_factory=list)
    scanned: int = 0


def _safe_snippet(raw: str) -> str:
    return html.escape(raw).replace(_START, "<mark>").replace(_STOP, "</mark>")


def _term_regex(term: str) -> str:
    return r"[\s,-]?".join(term) if term.isdigit() and len(term) > 1 else re.escape(term)


def _highlight_terms(text: str, terms: list[str]) -> str:
    if not terms:
        return html.escape(text)
    pattern = re.compile("|".join(_term_regex(t) for t in sorted(terms, key=len, reverse=True)), re.IGNORECASE)
    marked = pattern.sub(lambda m: f"{_START}{m.group()}{_STOP}", text)
    return _safe_snippet(marked)


def has_indexable_terms(query: str) -> bool:
    """False when PostgreSQL's English parser keeps nothing of ``query`` (only stop words or symbols)."""
    with connection.cursor() as cur:
        cur.execute("SELECT numnode(websearch_to_tsquery('english', %s))", [query])
        return cur.fetchone()[0] > 0


def _filtered(owner, *, source: str | None, date_from: date | None, date_to: date | None, speaker: str | None):
    qs = Utterance.objects.owned_by(owner)
    if source:
        qs = qs.filter(transcript__source__kind=source)
    if date_from:
        qs = qs.filter(transcript__local_date__gte=date_from)
    if date_to:
        qs = qs.filter(transcript__local_date__lte=date_to)
    if speaker:
        if speaker.strip().lower() in {"me", "you", "self", "wearer"}:
            qs = qs.filter(is_wearer=True)
        else:
            qs = qs.filter(Q(speaker_name__icontains=speaker) | Q(speaker_label__iexact=speaker))
    return qs


def _hit(u: Utterance, snippet: str) -> dict:
    kind = u.transcript.source.kind
    day = u.transcript.local_date.isoformat()
    return {
        "id": u.pk,
        "date": day,
        "source": kind,
        "conversation": str(u.conversation.public_id),
        "index": u.index,
        "speaker": u.speaker_name,
        "is_wearer": u.is_wearer,
        "text": u.text,
        "snippet": snippet,
        "started_at": u.started_at.isoformat() if u.started_at else None,
        "url": f"/transcripts/?date={day}&source={kind}#u-{u.index}",
    }


def search_utterances(
    owner,
    query: str,
    *,
    source: str | None = None,
    date_from: date | None = None,
    date_to: date | None = None,
    speaker: str | None = None,
    limit: int = 20,
) -> SearchResult:
    """Full-text search over the owner's utterances, best first, with highlighted snippets (safe HTML).

    Falls back to a bounded newest-first substring scan (``mode="scan"``) when the query has no indexable
    terms or full-text search finds nothing, so "no matches" and "a weaker search ran" can be told apart.
    """
    query = (query or "").strip()
    limit = max(1, min(int(limit or 20), MAX_LIMIT))
    base = _filtered(owner, source=source, date_from=date_from, date_to=date_to, speaker=speaker).select_related(
        "transcript__source", "conversation"
    )
    if query and has_indexable_terms(query):
        tsquery = SearchQuery(query, search_type="websearch", config="english")
        rows = list(
            base.filter(search=tsquery)
            .annotate(rank=SearchRank(F("search"), tsquery))
            .order_by("-rank", "-transcript__local_date", "index")[:limit]
        )
        heads = _headlines([u.text for u in rows], query)
        hits = [_hit(u, _safe_snippet(h)) for u, h in zip(rows, heads, strict=True)]
        if hits:
            return SearchResult(query=query, mode="indexed", hits=hits)
    return _scan(base, query, limit)


_HEADLINE_OPTIONS = {
    "StartSel": _START,
    "StopSel": _STOP,
    "MaxWords": 30,
    "MinWords": 12,
    "ShortWord": 2,
    "MaxFragments": 2,
    "FragmentDelimiter": " … ",
}


def _headlines(texts: list[str], query: str) -> list[str]:
    """``ts_headline`` of each text, with the (decrypted) texts sent as parameters: the stored column may be
    ciphertext (encryption at rest), so PostgreSQL never reads it for snippets. One round trip."""
    if not texts:
        return []
    options = ", ".join(connection.ops.compose_sql(f"{k}=%s", [v]) for k, v in _HEADLINE_OPTIONS.items())
    with connection.cursor() as cur:
        cur.execute(
            "SELECT ts_headline('english'::regconfig, x.t, websearch_to_tsquery('english'::regconfig, %s), %s) "
            "FROM unnest(%s::text[]) WITH ORDINALITY AS x(t, n) ORDER BY x.n",
            [query, options, texts],
        )
        return [r[0] for r in cur.fetchall()]


def _scan(base, query: str, limit: int) -> SearchResult:
    terms = [t for t in re.findall(r"\w+", query) if t]
    if crypto.enabled():
        return _scan_decrypted(base, query, terms, limit)
    newest = base.order_by("-transcript__local_date", "-index").values("pk")[:SCAN_LIMIT]
    rows = base.filter(pk__in=Subquery(newest))
    for term in terms:
        if term.isdigit() and len(term) > 1:
            # Numbers are often read out digit by digit ("unit 1 1 0 4"): let spaces sit between the digits.
            rows = rows.filter(text__iregex=r"\m" + r"[\s,-]?".join(term) + r"\M")
        else:
            rows = rows.filter(text__icontains=term)
    if not terms and query:
        rows = rows.filter(text__icontains=query)
    rows = rows.order_by("-transcript__local_date", "-index")[:limit]
    hits = [_hit(u, _highlight_terms(u.text, terms or ([query] if query else []))) for u in rows]
    return SearchResult(query=query, mode="scan", hits=hits, scanned=SCAN_LIMIT)


def _scan_decrypted(base, query: str, terms: list[str], limit: int) -> SearchResult:
    """The same bounded scan in Python: with encryption at rest the text column is ciphertext to SQL."""
    patterns = [
        re.compile(r"\b" + _term_regex(t) + r"\b" if t.isdigit() and len(t) > 1 else re.escape(t), re.I) for t in terms
    ]
    if not terms and query:
        patterns = [re.compile(re.escape(query), re.IGNORECASE)]
    hits = []
    for u in base.order_by("-transcript__local_date", "-index")[:SCAN_LIMIT].iterator(chunk_size=500):
        if all(p.search(u.text) for p in patterns):
            hits.append(_hit(u, _highlight_terms(u.text, terms or ([query] if query else []))))
            if len(hits) >= limit:
                break
    return SearchResult(query=query, mode="scan", hits=hits, scanned=SCAN_LIMIT)


# --- Day view -------------------------------------------------------------------------------------------
OVERLAP_SLACK = timedelta(seconds=90)


def transcripts_for_day(owner, local_date: date, source: str | None = None):
    qs = DayTranscript.objects.owned_by(owner).filter(local_date=local_date).select_related("source")
    if source:
        qs = qs.filter(source__kind=source)
    return list(qs.order_by("source__kind"))


def overlap_hints(owner, conversations: list[Conversation]) -> dict[int, list[Conversation]]:
    """For each conversation, the other devices' conversations that recorded the same stretch of time."""
    if not conversations:
        return {}
    lo = min(c.started_at for c in conversations) - timedelta(hours=12)
    hi = max((c.ended_at or c.started_at) for c in conversations) + timedelta(hours=12)
    others = list(
        Conversation.objects.owned_by(owner)
        .filter(started_at__gte=lo, started_at__lte=hi)
        .select_related("transcript__source")
    )
    out: dict[int, list[Conversation]] = {}
    for c in conversations:
        c_end = c.ended_at or c.started_at + timedelta(minutes=1)
        out[c.pk] = [
            o
            for o in others
            if o.transcript.source_id != c.transcript.source_id
            and o.started_at - OVERLAP_SLACK < c_end
            and c.started_at - OVERLAP_SLACK < (o.ended_at or o.started_at + timedelta(minutes=1))
        ]
    return out


def day_detail(owner, transcript: DayTranscript) -> list[dict]:
    """Conversations of one transcript with their utterances and overlap hints (3 queries)."""
    conversations = list(transcript.conversations.select_related("transcript__source").order_by("started_at"))
    turns: dict[int, list[Utterance]] = {c.pk: [] for c in conversations}
    for u in transcript.utterances.order_by("index"):
        turns[u.conversation_id].append(u)
    hints = overlap_hints(owner, conversations)
    out = []
    for c in conversations:
        labels = []
        for u in turns[c.pk]:
            if u.speaker_label not in [x["label"] for x in labels]:
                labels.append({"label": u.speaker_label, "name": u.speaker_name, "is_wearer": u.is_wearer})
        out.append({"conversation": c, "utterances": turns[c.pk], "overlaps": hints.get(c.pk, []), "speakers": labels})
    return out


def days_with_transcripts(owner, limit: int = 60) -> list[date]:
    return list(
        DayTranscript.objects.owned_by(owner)
        .order_by("-local_date")
        .values_list("local_date", flat=True)
        .distinct()[:limit]
    )


def source_status(owner) -> list[dict]:
    """Each source with its last sync run and stored totals, for the status API, CLI and Sources page."""
    last_run = SyncRun.objects.filter(source=OuterRef("pk")).order_by("-started_at")
    sources = Source.objects.owned_by(owner).annotate(last_run_id=Subquery(last_run.values("pk")[:1]))
    runs = SyncRun.objects.in_bulk([s.last_run_id for s in sources if s.last_run_id])
    out = []
    for s in sources:
        stats = DayTranscript.objects.filter(source=s)
        out.append(
            {
                "source": s,
                "last_run": runs.get(s.last_run_id),
                "days": stats.count(),
                "latest_day": stats.order_by("-local_date").values_list("local_date", flat=True).first(),
            }
        )
    return out


def recent_runs(owner, source: Source | None = None, limit: int = 10):
    qs = SyncRun.objects.owned_by(owner).select_related("source")
    if source is not None:
        qs = qs.filter(source=source)
    return list(qs.order_by("-started_at")[:limit])
