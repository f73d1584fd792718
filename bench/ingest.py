"""Chats ingest: turns/s on the hot path (POST /api/v1/memory/ingest, in-process, live path) and sessions/s
distilled in the background (deterministic distiller, episodes, lessons and memories through distill/).

    .venv/bin/python bench/ingest.py [--sessions 200] [--turns 12] [--keep]

Runs in its own database ``almanac_bench_ingest`` on the configured PostgreSQL server (created and dropped
here; never user data). Each session is ingested turn by turn, as an agent does (every request carries the
conversation so far; only the new pair is inserted), then all sessions are distilled by the idle sweeper.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
os.environ["ALMANAC_TEST_DATABASE"] = "almanac_bench_ingest"
os.environ.setdefault("ALMANAC_CONN_MAX_AGE", "600")

TASKS = ["add a health endpoint", "fix the flaky date test", "rename the billing module", "export orders to CSV",
         "speed up the search page", "write the migration for lot numbers", "add retries to the mailer"]  # fmt: skip
CORRECTIONS = ["No, use pip and requirements.txt here, never npm.", "No, we keep the version unbumped; use Unreleased.",
               "Don't touch the generated files, edit the templates instead."]  # fmt: skip


def conversation(rng: random.Random, n: int) -> list[dict]:
    task = rng.choice(TASKS)
    turns = [{"user": f"Please {task} in the {rng.choice(['shop', 'api', 'seedbank'])} project; keep it small.",
              "assistant": f"Plan: read the code, {task}, run the tests, report back with the diff summary."}]  # fmt: skip
    for i in range(1, n):
        user = rng.choice(CORRECTIONS) if rng.random() < 0.15 else f"Looks good, continue with step {i} of the plan."
        turns.append({"user": user, "assistant": f"Step {i} done: updated {rng.randint(1, 9)} files, tests pass."})
    return turns


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--turns", type=int, default=12, help="user/assistant pairs per session")
    parser.add_argument("--keep", action="store_true", help="keep the bench database afterwards")
    args = parser.parse_args()

    import django

    django.setup()
    from django.db import connection
    from django.test import Client
    from django.utils import timezone

    creation = connection.creation
    bench_db = creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False, serialize=False)
    try:
        from accounts import services as account_services
        from chats.models import ChatTurn
        from chats.services import distilling

        user = account_services.ensure_user(username="bench-ingest", password="x" * 12)[0]
        token = account_services.create_token(owner=user, name="bench")[1]
        client = Client()
        headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
        rng = random.Random(7)
        latencies, turns_stored = [], 0
        t0 = time.perf_counter()
        for s in range(args.sessions):
            convo = conversation(rng, args.turns)
            for k in range(1, len(convo) + 1):
                body = json.dumps({"agent_id": "bench", "conversation_id": f"s{s}", "turns": convo[:k]})
                t = time.perf_counter()
                r = client.post("/api/v1/memory/ingest", body, content_type="application/json", **headers)
                latencies.append(time.perf_counter() - t)
                assert r.status_code == 200 and r.json()["outcome"] == "queued", r.content
                turns_stored += r.json()["turns_added"]
        hot = time.perf_counter() - t0
        stored = ChatTurn.objects.filter(owner=user).count()
        assert stored == turns_stored, (stored, turns_stored)

        t1 = time.perf_counter()
        later = timezone.now() + timezone.timedelta(minutes=5)
        outcomes: dict[str, int] = {}
        while True:
            done = distilling.drain_due(now=later, limit=100)
            if not done:
                break
            for _, outcome in done:
                key = outcome.split(":")[0]
                outcomes[key] = outcomes.get(key, 0) + 1
        cold = time.perf_counter() - t1

        print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python "
              f"{platform.python_version()}; database {bench_db}")  # fmt: skip
        print(f"hot path: {len(latencies)} ingest requests, {stored} turns in {hot:.1f} s = "
              f"{stored / hot:,.0f} turns/s ({len(latencies) / hot:,.0f} requests/s); request p50 "
              f"{statistics.median(latencies) * 1000:.1f} ms, p95 {pct(latencies, 95) * 1000:.1f} ms")  # fmt: skip
        sessions = sum(outcomes.values())
        print(f"distilled: {sessions} sessions in {cold:.1f} s = {sessions / cold:.2f} sessions/s; outcomes {outcomes}")
    finally:
        if not args.keep:
            creation.destroy_test_db(bench_db, verbosity=0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
