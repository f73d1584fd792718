"""Latency of POST /api/v1/memory/recall (in-process, warm, connection reused) against raw index lookups.

    .venv/bin/python bench/recall_latency.py [--facts 10000 100000] [--utterances 1000000] [--queries 200]
                                             [--fresh] [--drop] [--profile]

Data lives in its own database ``almanac_bench_recall`` on the configured PostgreSQL server (never user data).
It is built once and reused by later runs: each size is one bench user ("bench-facts-100000", "bench-turns-
1000000"), loaded only when missing (``--fresh`` rebuilds, ``--drop`` removes the database at the end). Rows are
bulk-inserted (a benchmark of reads, not of the commit log); facts get hash vectors, turns are full-text only.

For each size it prints p50/p95 of uncached recall calls (distinct questions: gate-routed, forced "facts" scope,
and transcript questions for turns), p50/p95 of cached ones, and in the same run p50/p95 of the raw index lookups the
call builds on (one GIN full-text lookup, one HNSW nearest-neighbour lookup), with recall p95 as a ratio to them.
``--profile`` prints a pyinstrument profile of 50 uncached calls (dev extra).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import statistics
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
os.environ["ALMANAC_TEST_DATABASE"] = "almanac_bench_recall"
os.environ.setdefault("ALMANAC_CONN_MAX_AGE", "600")

NAMES = ["Maya", "Sam", "Priya", "Jonas", "Lena", "Omar", "Chen", "Ava", "Diego", "Nora", "Felix", "Ines"]
SYLLABLES = ["ka", "lo", "mi", "ren", "ta", "vor", "sil", "bra", "den", "qu", "ix", "pal", "mon", "ser", "tu", "ga"]
TURNS_PER_DAY = 2000


def vocabulary(rng: random.Random, size: int = 3000) -> list[str]:
    words = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def zipf_words(rng: random.Random, vocab: list[str], n: int) -> list[str]:
    # Zipf-like: word i drawn with weight 1/(i+1), as in natural text.
    return rng.choices(vocab, weights=[1 / (i + 1) for i in range(len(vocab))], k=n)


def sentence(rng: random.Random, vocab: list[str]) -> str:
    return f"{rng.choice(NAMES)} {' '.join(zipf_words(rng, vocab, rng.randint(5, 12)))}"


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def summary(times: list[float]) -> str:
    return f"p50 {pct(times, 50):.1f} / p95 {pct(times, 95):.1f} ms"


def bench_user(username: str):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get_or_create(username=username)[0]


def load_facts(owner, n: int, rng: random.Random, vocab: list[str]) -> None:
    """n facts (10 % pending review), 2 % pinned, hash vectors for all; HNSW rebuilt afterwards."""
    from django.db import connection
    from django.utils import timezone

    from ledger.models import Entity, Fact, PinnedFact
    from ledger.recall.embeddings import HashBackend
    from ledger.recall.models import Embedding

    backend, now = HashBackend(), timezone.now()
    for name in NAMES:
        Entity.objects.get_or_create(owner=owner, name=name, defaults={"public_id": uuid.uuid4(), "recorded_at": now})
    t0 = time.perf_counter()
    for start in range(0, n, 20_000):
        rows = [
            Fact(
                owner=owner,
                public_id=uuid.uuid4(),
                content=sentence(rng, vocab),
                status="accepted" if i % 10 else "pending_review",
                recorded_at=now,
                updated_at=now,
                proposition_key=uuid.uuid4().hex,
                text_key=uuid.uuid4().hex,
                created_commit_id="bench",
                last_commit_id="bench",
            )
            for i in range(start, min(n, start + 20_000))
        ]
        Fact.objects.bulk_create(rows, batch_size=5000)
        PinnedFact.objects.bulk_create([PinnedFact(owner=owner, fact=f, salience=0.5) for f in rows[::50]])
        pins = PinnedFact.objects.filter(owner=owner, fact__in=rows[::50]).select_related("fact")
        emb = [
            Embedding(owner=owner, kind="fact", ref_id=f.pk, space=backend.space, vector=backend.vector(f.content))
            for f in rows
        ]
        emb += [
            Embedding(
                owner=owner, kind="pinned", ref_id=p.pk, space=backend.space, vector=backend.vector(p.fact.content)
            )
            for p in pins
        ]
        Embedding.objects.bulk_create(emb, batch_size=5000)
    t_load = time.perf_counter() - t0
    with connection.cursor() as cur:
        cur.execute("SET maintenance_work_mem = '1GB'")
        t0 = time.perf_counter()
        cur.execute("REINDEX INDEX recall_emb_fact_hnsw")
        t_hnsw = time.perf_counter() - t0
        cur.execute("ANALYZE")
    print(f"  loaded {n:,} facts + vectors in {t_load:.0f}s, HNSW (re)build {t_hnsw:.0f}s")


def load_turns(owner, n: int, rng: random.Random, vocab: list[str]) -> None:
    from django.db import connection

    from wearables.models import Conversation, DayTranscript, Source, Utterance

    source = Source.objects.create(owner=owner, kind="limitless", enabled=False)
    t0, made, day0 = time.perf_counter(), 0, dt.date(2022, 1, 1)
    while made < n:
        day = DayTranscript.objects.create(
            owner=owner,
            source=source,
            local_date=day0 + dt.timedelta(days=made // TURNS_PER_DAY),
            timezone="UTC",
            content_hash="b",
            markdown="",
        )
        start = dt.datetime.combine(day.local_date, dt.time(9), tzinfo=dt.UTC)
        conv = Conversation.objects.create(owner=owner, transcript=day, external_id="c", started_at=start)
        batch = [
            Utterance(
                owner=owner,
                transcript=day,
                conversation=conv,
                index=i,
                speaker_name=rng.choice(NAMES),
                text=" ".join(zipf_words(rng, vocab, rng.randint(6, 18))),
                started_at=start,
            )
            for i in range(min(TURNS_PER_DAY, n - made))
        ]
        Utterance.objects.bulk_create(batch, batch_size=TURNS_PER_DAY)
        made += len(batch)
    with connection.cursor() as cur:
        cur.execute("ANALYZE")
    print(f"  loaded {n:,} turns in {time.perf_counter() - t0:.0f}s (full-text only: no vectors for turns)")


def raw_lookups(owner, rng, vocab, n: int, *, turns: bool) -> dict[str, list[float]]:
    """The index lookups a recall call builds on, timed alone: one GIN OR-query, one HNSW top-50 (facts)."""
    from django.db import connection, transaction

    from ledger.recall.embeddings import HashBackend

    backend = HashBackend()
    table = "wearables_utterance" if turns else "ledger_fact"
    out = {"gin": [], "hnsw": []}
    with connection.cursor() as cur:
        for _ in range(n):
            a, b = rng.sample(vocab[:600], 2)
            t0 = time.perf_counter()
            cur.execute(
                f"SELECT id FROM {table} WHERE owner_id = %s AND search @@ to_tsquery('simple', %s) LIMIT 50",
                [owner.pk, f"{a} | {b}"],
            )
            cur.fetchall()
            out["gin"].append((time.perf_counter() - t0) * 1000)
            if turns:
                continue
            vec = backend.vector(f"{a} {b}")
            t0 = time.perf_counter()
            with transaction.atomic():
                cur.execute("SET LOCAL hnsw.ef_search = 100; SET LOCAL hnsw.iterative_scan = relaxed_order")
                cur.execute(
                    "SELECT ref_id FROM recall_embedding WHERE owner_id = %s AND kind = 'fact' AND space = %s "
                    "ORDER BY vector <=> %s::vector LIMIT 50",
                    [owner.pk, backend.space, str(vec)],
                )
                cur.fetchall()
            out["hnsw"].append((time.perf_counter() - t0) * 1000)
    return out


def run_queries(client, headers, rng, vocab, n, *, scope, verbatim=False, profile=False) -> tuple[list, list, float]:
    def question() -> str:
        words = " ".join(rng.sample(vocab[:600], 2))
        name = rng.choice(NAMES)
        return (
            f"What were {name}'s exact words about {words}?" if verbatim else f"What does {name} think about {words}?"
        )

    def call(q):
        body = {"query": q, "budget_tokens": 800, **({"scope": scope} if scope else {})}
        t0 = time.perf_counter()
        resp = client.post("/api/v1/memory/recall", json.dumps(body), content_type="application/json", **headers)
        elapsed = (time.perf_counter() - t0) * 1000
        assert resp.status_code == 200, resp.content[:200]
        return elapsed, resp.json()

    for _ in range(10):  # warm-up: connection, caches, code paths
        call(question())
    if profile:
        from pyinstrument import Profiler

        with Profiler(interval=0.0005) as prof:
            for _ in range(50):
                call(question())
        print(prof.output_text(unicode=False, color=False, show_all=False))
    times, items = [], []
    cpu0 = time.process_time()
    for _ in range(n):
        elapsed, body = call(question())
        times.append(elapsed)
        items.append(len(body["items"]))
    # The application's own CPU per call (the test client runs it in this process; PostgreSQL's work is not in
    # it): unlike wall time, it hardly moves with the machine's load.
    _CPU_MS.append((time.process_time() - cpu0) * 1000 / n)
    q = question()
    call(q)
    cached = [call(q)[0] for _ in range(40)]
    return times, cached, statistics.mean(items)


_CPU_MS: list[float] = []


def report(label: str, times, cached, mean_items, raw) -> None:
    gin95 = pct(raw["gin"], 95)
    line = f"  {label}: {summary(times)} (app CPU {_CPU_MS[-1]:.1f} ms/call), cached {summary(cached)}, "
    line += f"{mean_items:.1f} items; "
    line += f"raw GIN {summary(raw['gin'])}"
    if raw["hnsw"]:
        line += f", raw HNSW {summary(raw['hnsw'])}"
    line += f"; recall p95 = {pct(times, 95) / gin95:.1f}x GIN p95"
    if raw["hnsw"]:
        line += f", {pct(times, 95) / (gin95 + pct(raw['hnsw'], 95)):.1f}x (GIN + HNSW) p95"
    print(f"{line}; load average {os.getloadavg()[0]:.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--utterances", type=int, default=0, help="also measure this many transcript turns (1000000)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--fresh", action="store_true", help="rebuild the bench database from scratch")
    parser.add_argument("--drop", action="store_true", help="drop the bench database at the end")
    parser.add_argument("--profile", action="store_true", help="pyinstrument profile of 50 uncached calls")
    args = parser.parse_args()

    import logging

    import django

    django.setup()
    logging.getLogger("django-q").setLevel(logging.WARNING)  # one "Enqueued" line per queued usage task
    from django.db import connection
    from django.test import Client

    from accounts.services import create_token
    from ledger.models import Fact
    from ledger.recall import search
    from wearables.models import Utterance

    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, python "
        f"{platform.python_version()}, load average {os.getloadavg()[0]:.1f}, "
        f"CONN_MAX_AGE {connection.settings_dict['CONN_MAX_AGE']}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    creation = connection.creation
    db = creation.create_test_db(verbosity=0, autoclobber=True, keepdb=not args.fresh, serialize=False)
    print(f"database: {db} ({'rebuilt' if args.fresh else 'reused when present'})")
    client = Client()
    try:
        sizes = [("facts", n) for n in sorted(args.facts)] + ([("turns", args.utterances)] if args.utterances else [])
        for what, n in sizes:
            rng = random.Random(n)
            vocab = vocabulary(random.Random(7))
            owner = bench_user(f"bench-{what}-{n}")
            have = (Fact if what == "facts" else Utterance).objects.filter(owner=owner).count()
            print(f"\n{n:,} {what} (user {owner.username}):")
            if have < n:
                if have:
                    print(f"  incomplete ({have:,} rows); pass --fresh to rebuild")
                    continue
                (load_facts if what == "facts" else load_turns)(owner, n, rng, vocab)
            search.forget_stats()
            _, token = create_token(owner=owner, name=f"bench-{time.time()}")
            headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
            turns = what == "turns"
            raw = raw_lookups(owner, rng, vocab, args.queries, turns=turns)
            runs = (
                [("transcript (exact words)", None, True)]
                if turns
                else [
                    ("gate-routed (pinned facts about a name)", None, False),
                    ('scope "facts" (all facts)', "facts", False),
                ]
            )
            for i, (label, scope, verbatim) in enumerate(runs):
                times, cached, mean_items = run_queries(
                    client,
                    headers,
                    rng,
                    vocab,
                    args.queries,
                    scope=scope,
                    verbatim=verbatim,
                    profile=args.profile and i == len(runs) - 1,
                )
                report(label, times, cached, mean_items, raw)
    finally:
        from django_q.models import OrmQ

        OrmQ.objects.all().delete()  # queued usage feedback: no worker runs on the bench database
        connection.close()
        if args.drop:
            creation.destroy_test_db(db, verbosity=0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
