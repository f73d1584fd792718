"""Review benchmark: the Review page over a large queue, and each review action as the page sends it.

    python bench/review.py [--items 1000] [--runs 20] [--keep]

Runs in its own database, never the user's: ``almanac_bench_review`` is created on the configured server (the
embedded PostgreSQL in ALMANAC_HOME, or the server of DATABASE_URL) and dropped at the end (``--keep`` keeps
it). Loads ``--items`` pending memories through ``ledger.services.propose_fact`` (with trust details, spread over
four sources, three importances and ten days), then times, through Django's test client (full middleware
stack, no network): the page, the htmx panel, the nav badge, the stats API, the queue API, and every action
(accept, reject, edit, not about me, merge, snooze, rescue, undo). Prints one table of medians and p95s.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._db import throwaway_database  # noqa: E402

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")

BENCH_DB = "almanac_bench_review"
SOURCES = ["wearable:limitless", "wearable:omi", "chat:claude-code", "screen"]
IMPORTANCE = ["low", "normal", "high"]
WORDS = (
    "garden bicycle sister violin Lisbon harbour nurse peanuts marathon pottery sourdough kayak chess museum "
    "library tennis Oslo guitar Tuesday dentist apartment lease piano choir Portuguese ramen coffee train"
).split()


def load_queue(owner, n: int, rng: random.Random) -> list:
    from django.utils import timezone

    from ledger import services as ledger_services
    from ledger.models import Fact

    now = timezone.now()
    for i in range(n):
        source = SOURCES[i % len(SOURCES)]
        words = rng.sample(WORDS, 4)
        content = f"Bench user mentioned {words[0]} and {words[1]} near {words[2]} ({i})"
        trust = round(rng.uniform(0.3, 0.9), 3)
        ev = ledger_services.EvidenceIn(
            source_type="transcript",
            source_ref={"transcript_id": i, "utterances": [i % 40, i % 40 + 1], "url": f"/transcripts/?u={i}"},
            quote=content,
            capture_confidence=0.8,
            source_label=source,
            details={
                "trust_score": trust,
                "components": {"extraction_confidence": 0.8, "source_trust": 0.8, "judge": 0.15},
                "judge_verdict": rng.choice(["accept", "defer", None]),
                "corroborating_sources": ["omi"] if i % 7 == 0 else [],
                "reason": "score in review band",
            },
        )
        ledger_services.propose_fact(
            owner=owner,
            content=content,
            evidence=[ev],
            veracity=trust,
            importance=IMPORTANCE[i % 3],
            source_label=source,
            status="pending_review",
            on_duplicate="new",
        )
    # Spread over ten days so recency matters in the ordering.
    pks = list(Fact.objects.filter(owner=owner).values_list("pk", flat=True))
    for pk in pks:
        Fact.objects.filter(pk=pk).update(recorded_at=now - timedelta(hours=rng.uniform(0, 240)))
    return pks


def timed(fn, runs: int) -> tuple[list[float], list[float]]:
    """Wall-clock and this process's CPU time per call, in ms. On a shared machine the wall clock includes
    waiting for a core; the CPU column is the app's own work (PostgreSQL's time is in the wall clock only)."""
    wall, cpu = [], []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return wall, cpu


def summary(times: tuple[list[float], list[float]]) -> str:
    wall, cpu = times
    ordered = sorted(wall)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return (
        f"median {statistics.median(ordered):6.1f} ms · p95 {p95:6.1f} ms · "
        f"app CPU {statistics.median(cpu):5.1f} ms · n={len(ordered)}"
    )


def bench(owner, client, api_headers, runs: int) -> list[tuple[str, str]]:
    from review import queries
    from review.models import ReviewPreference

    rows = []
    hx = {"HTTP_HX_REQUEST": "true"}

    def ok(response):
        assert response.status_code == 200, (response.status_code, response.content[:300])
        return response

    client.get("/review/")  # warm templates and connections
    rows.append(("Review page, budget 20 (full page)", summary(timed(lambda: ok(client.get("/review/")), runs))))
    ReviewPreference.objects.update_or_create(owner=owner, defaults={"daily_budget": 500})
    rows.append(("Review page, 50 cards shown (full page)", summary(timed(lambda: ok(client.get("/review/")), runs))))
    rows.append(
        (
            "htmx panel (50 cards, filter change)",
            summary(
                timed(
                    lambda: ok(client.get("/review/?source=wearable:omi", HTTP_HX_TARGET="review-panel", **hx)),
                    runs,
                )
            ),
        )
    )
    rows.append(("Nav badge (queue size)", summary(timed(lambda: ok(client.get("/review/badge/")), runs))))
    rows.append(("Stats partial", summary(timed(lambda: ok(client.get("/review/stats/")), runs))))
    rows.append(
        ("API GET /review/ (50 items)", summary(timed(lambda: ok(client.get("/api/v1/review/", **api_headers)), runs)))
    )
    rows.append(
        ("API GET /review/stats", summary(timed(lambda: ok(client.get("/api/v1/review/stats", **api_headers)), runs)))
    )

    from ledger.models import Fact

    def post(action: str, **data):
        pid = next(ids)
        return ok(client.post(f"/review/items/{pid}/action/", {"action": action, **data}, **hx))

    merge_target = Fact.objects.filter(owner=owner).order_by("pk").last()
    from ledger import services as ledger_services

    ledger_services.decide(owner=owner, fact=merge_target, status="accepted", author="user")
    # The queue as it stands once the merge target is held: no action below meets an item already decided.
    ids = iter([r.public_id for r in queries.queue_plan(owner).rows])
    until = (queries.local_today(owner) + timedelta(days=3)).isoformat()
    actions = [
        ("accept", lambda: post("accept")),
        ("reject", lambda: post("reject")),
        ("edit then accept", lambda: post("edit", edit="Bench user corrected this memory")),
        ("not about me (a person)", lambda: post("not_about_me", subject="Priya Natarajan")),
        ("merge into a held memory", lambda: post("merge", merge_into=str(merge_target.public_id))),
        ("snooze", lambda: post("snooze", snooze_until=until)),
    ]
    for label, fn in actions:
        rows.append((f"Action: {label}", summary(timed(fn, runs))))

    dropped = list(Fact.objects.filter(owner=owner, status="pending_review").order_by("-pk")[:runs])
    for f in dropped:
        ledger_services.decide(owner=owner, fact=f, status="dropped", author="system")
    drop_ids = iter([str(f.public_id) for f in dropped])
    rows.append(
        (
            "Action: rescue a dropped memory",
            summary(
                timed(
                    lambda: ok(client.post(f"/review/items/{next(drop_ids)}/action/", {"action": "rescue"}, **hx)),
                    len(dropped),
                )
            ),
        )
    )
    rows.append(("Action: undo (last action)", summary(timed(lambda: ok(client.post("/review/undo/", **hx)), runs))))
    rows.append(
        (
            "API POST /review/decide (accept)",
            summary(
                timed(
                    lambda: ok(
                        client.post(
                            "/api/v1/review/decide",
                            {"item": next(ids), "action": "accept"},
                            content_type="application/json",
                            **api_headers,
                        )
                    ),
                    runs,
                )
            ),
        )
    )
    # Every action above is a labelled example: refit the owner's learned adjustment from them (floor, guard).
    refit = lambda: ok(client.post("/api/v1/review/learning/refit", **api_headers))  # noqa: E731
    rows.append(("API POST /review/learning/refit", summary(timed(refit, runs))))
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1000, help="pending memories to queue (default 1000)")
    parser.add_argument("--runs", type=int, default=20, help="timed runs per measurement (default 20)")
    parser.add_argument("--keep", action="store_true", help="keep the bench database afterwards")
    parser.add_argument("--db-name", default=BENCH_DB, help=f"database to create and drop (default {BENCH_DB})")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    if args.runs < 1 or args.items < 10 * args.runs:
        parser.error(
            f"--items must be at least 10 × --runs ({10 * max(args.runs, 1)}): each action takes its own items"
        )

    load_start = os.getloadavg()[0]
    teardown = throwaway_database(args.db_name, keep=args.keep, test_client=True)
    try:
        from django.contrib.auth import get_user_model
        from django.db import connection
        from django.test import Client

        from accounts.services import create_token, update_settings

        owner = get_user_model().objects.create_user(username="bench-review", password="x")
        update_settings(user=owner, display_name="Bench User", timezone_name="UTC")
        _, token = create_token(owner=owner, name="bench")
        print(f"queueing {args.items} memories in database {args.db_name} ...", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        load_queue(owner, args.items, random.Random(args.seed))
        load_s = time.perf_counter() - t0
        client = Client()
        client.force_login(owner)
        rows = bench(owner, client, {"HTTP_AUTHORIZATION": f"Bearer {token}"}, args.runs)
        with connection.cursor() as cur:
            cur.execute("SHOW server_version")
            pg = cur.fetchone()[0]
    finally:
        teardown()

    rows.insert(0, ("Queue loaded (propose_fact)", f"{args.items:,} pending memories in {load_s:.1f} s"))
    rows += [
        ("Machine", f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores"),
        ("Load average (start / end)", f"{load_start:.1f} / {os.getloadavg()[0]:.1f}"),
        ("PostgreSQL / Python", f"{pg} / {platform.python_version()}"),
    ]
    width = max(len(k) for k, _ in rows)
    print(f"{'Measurement':<{width}} | Result")
    print(f"{'-' * width}-|-{'-' * 66}")
    for k, v in rows:
        print(f"{k:<{width}} | {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
