"""Latency of POST /api/v1/memory/recall (in-process, warm) over synthetic memories, and index build times.

    .venv/bin/python bench/recall_latency.py [--facts 10000 100000] [--utterances 0] [--queries 200]

Set ALMANAC_CONN_MAX_AGE=60 (persistent connections) to measure what a long-running server sees; with the
default 0 every request also pays for a new PostgreSQL connection.

Runs in a separate database ``almanac_bench`` on the same PostgreSQL server (created and dropped here). Rows are
bulk-inserted (a benchmark of reads, not of the commit log), with hash-backend vectors. For each size it prints
p50/p95/max of uncached recall calls (distinct questions: gate-routed, forced "facts" scope over all facts, and
a transcript question when utterances exist), the cached p50, and how long the GIN and HNSW indexes took to build.
"""

from __future__ import annotations

import argparse
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
os.environ["ALMANAC_TEST_DATABASE"] = "almanac_bench"

NAMES = ["Maya", "Sam", "Priya", "Jonas", "Lena", "Omar", "Chen", "Ava", "Diego", "Nora", "Felix", "Ines"]
SYLLABLES = ["ka", "lo", "mi", "ren", "ta", "vor", "sil", "bra", "den", "qu", "ix", "pal", "mon", "ser", "tu", "ga"]


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


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--facts", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--utterances", type=int, default=0, help="also load this many utterances (e.g. 1000000)")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()

    import django

    django.setup()
    from django.db import connection
    from django.test import Client
    from django.utils import timezone

    from ledger.models import Entity, Fact, PinnedFact
    from ledger.recall import search
    from ledger.recall.embeddings import HashBackend
    from ledger.recall.models import Embedding
    from memory_site.services import create_token

    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}, "
        f"load average {os.getloadavg()[0]:.1f}, CONN_MAX_AGE {connection.settings_dict['CONN_MAX_AGE']}"
    )
    creation = connection.creation
    db = creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False, serialize=False)
    rng = random.Random(7)
    vocab = vocabulary(rng)
    backend = HashBackend()
    try:
        from django.contrib.auth import get_user_model

        owner = get_user_model().objects.create(username="bench")
        _, token = create_token(owner=owner, name="bench")
        client = Client()
        headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
        now = timezone.now()
        for name in NAMES:
            Entity.objects.create(owner=owner, public_id=uuid.uuid4(), name=name, recorded_at=now)
        loaded = 0
        for target in sorted(args.facts):
            n_new = target - loaded
            rows = []
            for i in range(n_new):
                content = sentence(rng, vocab)
                rows.append(
                    Fact(
                        owner=owner,
                        public_id=uuid.uuid4(),
                        content=content,
                        status="accepted" if i % 10 else "pending_review",
                        recorded_at=now,
                        updated_at=now,
                        proposition_key=uuid.uuid4().hex,
                        text_key=uuid.uuid4().hex,
                        created_commit_id="bench",
                        last_commit_id="bench",
                    )
                )
            _, t_insert = timed(lambda rows=rows: Fact.objects.bulk_create(rows, batch_size=5000))
            # 2% of facts are pinned (the pinned layer is small by design).
            PinnedFact.objects.bulk_create(
                [PinnedFact(owner=owner, fact=f, salience=0.5) for f in rows[::50]], batch_size=5000
            )
            pins = list(PinnedFact.objects.filter(owner=owner, fact__in=rows[::50]).select_related("fact"))

            def embed_all(rows=rows, pins=pins):
                emb = [
                    Embedding(
                        owner=owner,
                        kind="fact",
                        ref_id=f.pk,
                        space=backend.space,
                        content_hash="",
                        vector=backend.vector(f.content),
                    )
                    for f in rows
                ]
                emb += [
                    Embedding(
                        owner=owner,
                        kind="pinned",
                        ref_id=p.pk,
                        space=backend.space,
                        content_hash="",
                        vector=backend.vector(p.fact.content),
                    )
                    for p in pins
                ]
                Embedding.objects.bulk_create(emb, batch_size=5000)

            with connection.cursor() as cur:
                cur.execute("DROP INDEX IF EXISTS recall_emb_fact_hnsw")
            _, t_embed = timed(embed_all)
            with connection.cursor() as cur:
                _, t_gin = timed(lambda cur=cur: cur.execute("REINDEX INDEX ledger_fact_search"))
                cur.execute("SET maintenance_work_mem = '1GB'")
                _, t_hnsw = timed(
                    lambda cur=cur: cur.execute(
                        "CREATE INDEX recall_emb_fact_hnsw ON recall_embedding USING hnsw (vector vector_cosine_ops) "
                        "WITH (m = 16, ef_construction = 64) WHERE kind = 'fact'"
                    )
                )
                cur.execute("ANALYZE")
            loaded = target
            search.forget_stats()
            print(
                f"\n{target:,} facts: insert {t_insert:.1f}s, embed+store vectors {t_embed:.1f}s, "
                f"GIN (re)build {t_gin:.1f}s, HNSW build {t_hnsw:.1f}s"
            )
            run_queries(
                client, headers, rng, vocab, args.queries, label="gate-routed (pinned facts about a name)", scope=None
            )
            run_queries(client, headers, rng, vocab, args.queries, label='scope "facts" (all facts)', scope="facts")

        if args.utterances:
            load_utterances(owner, args.utterances, rng, vocab, backend)
            run_queries(
                client, headers, rng, vocab, args.queries, label="transcript (exact words)", scope=None, verbatim=True
            )
        else:
            print(
                "\nnote: 1M utterances skipped (pass --utterances 1000000; loading and indexing take several minutes here)"
            )
    finally:
        creation.destroy_test_db(db, verbosity=0)
    return 0


def run_queries(client, headers, rng, vocab, n, *, label, scope, verbatim=False):
    import json

    def question() -> str:
        words = " ".join(rng.sample(vocab[:600], 2))
        name = rng.choice(NAMES)
        return (
            f"What were {name}'s exact words about {words}?" if verbatim else f"What does {name} think about {words}?"
        )

    def call(q):
        body = {"query": q, "budget_tokens": 800}
        if scope:
            body["scope"] = scope
        t0 = time.perf_counter()
        resp = client.post("/api/v1/memory/recall", json.dumps(body), content_type="application/json", **headers)
        dt = (time.perf_counter() - t0) * 1000
        assert resp.status_code == 200, resp.content[:200]
        return dt, resp.json()

    for _ in range(10):  # warm-up: connections, caches, code paths
        call(question())
    times, items = [], []
    for _ in range(n):
        dt, body = call(question())
        times.append(dt)
        items.append(len(body["items"]))
    q = question()
    call(q)
    cached = [call(q)[0] for _ in range(20)]
    print(
        f"  {label}: p50 {pct(times, 50):.1f} ms, p95 {pct(times, 95):.1f} ms, max {max(times):.1f} ms "
        f"({n} distinct questions, {statistics.mean(items):.1f} items); cached p50 {pct(cached, 50):.1f} ms"
    )


def load_utterances(owner, n, rng, vocab, backend):
    from django.db import connection

    from wearables.models import Conversation, DayTranscript, Source, Utterance

    source = Source.objects.create(owner=owner, kind="limitless")
    per_day = 2000
    t0 = time.perf_counter()
    day0 = __import__("datetime").date(2024, 1, 1)
    import datetime as dt

    made = 0
    while made < n:
        day = DayTranscript.objects.create(
            owner=owner,
            source=source,
            local_date=day0 + dt.timedelta(days=made // per_day),
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
            for i in range(min(per_day, n - made))
        ]
        Utterance.objects.bulk_create(batch, batch_size=per_day)
        made += len(batch)
    t_load = time.perf_counter() - t0
    with connection.cursor() as cur:
        t0 = time.perf_counter()
        cur.execute("REINDEX INDEX wearables_utterance_search")
        t_gin = time.perf_counter() - t0
        cur.execute("ANALYZE")
    print(
        f"\n{n:,} utterances: insert {t_load:.1f}s, GIN (re)build {t_gin:.1f}s (full-text only: vectors for 1M turns skipped)"
    )


if __name__ == "__main__":
    sys.exit(main())
