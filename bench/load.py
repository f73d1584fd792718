"""Load: several users at once against a real server (gunicorn) and worker, then proof that nothing was lost.

    python bench/load.py [--seconds 60] [--users 4] [--concurrency 8] [--max-requests 20000] [--keep]

Loopback only and bounded: it stops after ``--seconds`` or ``--max-requests``, whichever comes first. It creates
its own database ``almanac_bench_load`` on the configured server (dropped at the end unless ``--keep``), starts
``manage.py up --no-demo`` on a free 127.0.0.1 port and the wearables imitation servers, and mixes per user:
wearables syncs, chat ingests, recall queries, fact lists and review decisions. Afterwards, in-process: every
chain verifies, every projection equals its replay, and each conversation's stored turn count equals the sum the
server acknowledged. Prints requests/s and p50/p95/p99 per route, errors, and the checks.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")

BENCH_DB = "almanac_bench_load"
QUESTIONS = ["where do I live", "what did we discuss about the lease", "who is Priya", "my allergies", "tea"]


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[str, dict[int, int]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(int)))
    errors: list[str] = field(default_factory=list)
    acknowledged: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # user -> texts
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, route: str, status: int, seconds: float, error: str = "") -> None:
        with self.lock:
            self.latencies[route].append(seconds)
            self.statuses[route][status] += 1
            if error:
                self.errors.append(error)

    def server_errors(self) -> int:
        return sum(n for codes in self.statuses.values() for code, n in codes.items() if code >= 500 or code == 0)


@dataclass
class LoadUser:
    username: str
    token: str


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def _call(stats: Stats, client: httpx.Client, route: str, method: str, url: str, **kwargs) -> httpx.Response | None:
    started = time.perf_counter()
    try:
        response = client.request(method, url, **kwargs)
    except httpx.HTTPError as exc:
        stats.record(route, 0, time.perf_counter() - started, f"{route}: {exc.__class__.__name__}")
        return None
    error = f"{route}: {response.status_code} {response.text[:120]}" if response.status_code >= 500 else ""
    stats.record(route, response.status_code, time.perf_counter() - started, error)
    return response


def _one_action(stats: Stats, client: httpx.Client, user: LoadUser, rng: random.Random, n: int, state: dict) -> None:
    roll = rng.random()
    if roll < 0.35:
        _call(
            stats, client, "POST /memory/recall", "POST", "/api/v1/memory/recall", json={"query": rng.choice(QUESTIONS)}
        )
    elif roll < 0.50:
        _call(stats, client, "GET /ledger/facts", "GET", "/api/v1/ledger/facts", params={"limit": 20})
    elif roll < 0.70:
        # A client sends the whole conversation so far (the API upserts turns by position); a new conversation
        # every 10 pairs keeps bodies small. Letters only: long digit runs would be redacted before storage.
        if len(state["turns"]) >= 10:
            state["conversation"], state["turns"] = f"load-{user.username}-{state['thread']}-{n}", []
        tag = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(12))
        text = f"Turn {tag} from {user.username}: I prefer green tea in the morning."
        state["turns"].append({"user": text, "assistant": "Noted."})
        body = {"agent_id": "bench", "conversation_id": state["conversation"], "turns": state["turns"]}
        response = _call(stats, client, "POST /memory/ingest", "POST", "/api/v1/memory/ingest", json=body)
        if response is not None and response.status_code == 200:
            with stats.lock:
                stats.acknowledged[user.username].append(text)
        else:
            state["turns"].pop()
    elif roll < 0.90:
        response = _call(stats, client, "GET /review/items", "GET", "/api/v1/review/items", params={"limit": 5})
        items = response.json().get("items", []) if response is not None and response.status_code == 200 else []
        if items:
            item = rng.choice(items)
            decision = {"decision": rng.choice(["accept", "reject"]), "reason": "load"}
            _call(stats, client, "POST /review/items/decision", "POST", f"/api/v1/review/items/{item['id']}/decision",
                  json=decision)  # fmt: skip
    else:
        _call(stats, client, "POST /wearables/sync", "POST", "/api/v1/wearables/sync", json={"days": 2})


def run_load(base_url: str, users: list[LoadUser], *, seconds: float, concurrency: int, max_requests: int) -> Stats:
    """Drive ``base_url`` (loopback) from ``concurrency`` threads until the time or request budget is spent."""
    if not base_url.startswith(("http://127.", "http://localhost", "http://[::1]")):
        raise SystemExit("bench/load.py only sends traffic to loopback addresses")
    stats = Stats()
    deadline = time.monotonic() + seconds
    budget = iter(range(max_requests))
    budget_lock = threading.Lock()

    def worker(index: int) -> None:
        user = users[index % len(users)]
        rng = random.Random(index)
        headers = {"Authorization": f"Bearer {user.token}"}
        state = {"thread": index, "conversation": f"load-{user.username}-{index}-start", "turns": []}
        with httpx.Client(base_url=base_url, headers=headers, timeout=60) as client:
            while time.monotonic() < deadline:
                with budget_lock:
                    n = next(budget, None)
                if n is None:
                    return
                _one_action(stats, client, user, rng, n, state)

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(concurrency)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + 120)
    stats.elapsed = time.monotonic() - started  # type: ignore[attr-defined]
    return stats


def drain_queue(seconds: float = 90) -> int:
    """Wait (bounded) until the worker has taken every queued task (memory passes, distills); returns what is left."""
    from django_q.models import OrmQ

    deadline = time.monotonic() + seconds
    while OrmQ.objects.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    return OrmQ.objects.count()


def wearables_problems(owners, servers, forgotten: dict[str, set[str]] | None = None) -> tuple[int, list[str]]:
    """Every synced day stored once and whole: no utterance position twice, and each (source, day) holds exactly
    what one quiet sync of the same provider data stores for a fresh reference user (same conversations and
    utterance counts), however many syncs of it ran at once. ``forgotten`` (username → names): people an owner
    forgot; their reference user forgets the same names before its quiet sync (a forget removes their turns)."""
    from django.db.models import Count

    from wearables.models import DayTranscript, Utterance

    problems: list[str] = []
    doubled = (
        Utterance.objects.filter(owner__in=owners).values("transcript", "index").annotate(n=Count("id")).filter(n__gt=1)
    )
    if doubled.exists():
        problems.append(f"{doubled.count()} utterance positions stored twice")
    stored = DayTranscript.objects.filter(owner__in=owners)
    if servers is None or not stored.exists():
        return Utterance.objects.filter(owner__in=owners).count(), problems
    dates = sorted(set(stored.values_list("local_date", flat=True)))
    references: dict[frozenset, dict] = {}
    for owner in owners:
        names = frozenset((forgotten or {}).get(owner.username, ()))
        if names not in references:
            references[names] = _day_shapes(_quiet_reference(f"loadref{len(references)}", servers, dates, names))
        expected = references[names]
        for key, got in _day_shapes(owner).items():
            if got != expected.get(key) or got[0] != got[2]:
                problems.append(f"{owner.username} {key[0]} {key[1]}: stored {got[0]}/{got[2]} utterances, "
                                f"a quiet sync stores {(expected.get(key) or (0,))[0]}")  # fmt: skip
    return Utterance.objects.filter(owner__in=owners).count(), problems


def _quiet_reference(username: str, servers, dates, forgotten_names):
    """A fresh user with the same three sources, who forgot ``forgotten_names`` first, synced once, quietly."""
    from accounts import services as accounts
    from ledger.forget.services import forget_person_names
    from wearables import services as wearables

    ref, _ = accounts.ensure_user(username=username, password="load-bench-pass", display_name="Load ref",
                                  timezone_name="UTC")  # fmt: skip
    for kind in ("limitless", "bee", "omi"):
        wearables.update_source(owner=ref, kind=kind, enabled=True, base_url=servers.base_urls[kind],
                                credentials=servers.credentials[kind])  # fmt: skip
    if forgotten_names:
        forget_person_names(owner=ref, names=sorted(forgotten_names))
    wearables.sync_enabled_sources(owner=ref, dates=dates)
    return ref


def _day_shapes(owner) -> dict:
    from wearables.models import DayTranscript

    days = DayTranscript.objects.filter(owner=owner).select_related("source").prefetch_related("conversations")
    return {(t.source.kind, t.local_date): (t.utterance_count, sorted(c.external_id for c in t.conversations.all()),
                                            t.utterances.count()) for t in days}  # fmt: skip


def check_integrity(usernames: list[str], stats: Stats, servers=None) -> dict[str, object]:
    """In-process, after the load: chains verify, projections equal replays, turn counts match what was acked,
    and (with the imitation ``servers``) every synced day holds exactly what a quiet sync stores."""
    from django.contrib.auth import get_user_model

    from ledger import chain

    problems = []
    owners = list(get_user_model().objects.filter(username__in=usernames))
    commits = 0
    for owner in owners:
        verified = chain.verify(owner)
        replay = chain.rebuild(owner, write=False)
        commits += verified.length
        if not verified.ok:
            problems.append(f"{owner.username}: {verified.line()}")
        if not replay.identical_before:
            problems.append(f"{owner.username}: {replay.line()}")
    turns = 0
    for owner in owners:
        sent = stats.acknowledged.get(owner.username, [])
        stored = _stored_turn_counts(owner, sent)
        turns += len(sent)
        lost = [t for t in sent if stored.get(t, 0) == 0]
        doubled = [t for t in sent if stored.get(t, 0) > 1]
        if lost or doubled:
            problems.append(f"{owner.username}: {len(lost)} acknowledged turns missing, {len(doubled)} stored twice")
    utterances, wearable_problems = wearables_problems(owners, servers)
    problems += wearable_problems
    return {"owners": len(owners), "commits": commits, "turns": turns, "utterances": utterances,
            "problems": problems}  # fmt: skip


def _stored_turn_counts(owner, texts: list[str]) -> dict[str, int]:
    from django.db.models import Count

    from chats.models import ChatTurn

    rows = ChatTurn.objects.filter(owner=owner, text__in=texts).values("text").annotate(n=Count("id"))
    return {row["text"]: row["n"] for row in rows}


def report(stats: Stats, checks: dict) -> str:
    elapsed = getattr(stats, "elapsed", 1.0) or 1.0
    total = sum(len(v) for v in stats.latencies.values())
    lines = [
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.machine()} {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, PostgreSQL (embedded) over loopback",
        f"{total} requests in {elapsed:.1f} s = {total / elapsed:.1f} req/s; server errors (5xx or no answer): "
        f"{stats.server_errors()}",
        "",
        "| route | requests | req/s | p50 ms | p95 ms | p99 ms | statuses |",
        "|---|---|---|---|---|---|---|",
    ]
    for route in sorted(stats.latencies):
        values = stats.latencies[route]
        codes = " ".join(f"{c}×{n}" for c, n in sorted(stats.statuses[route].items()))
        lines.append(
            f"| {route} | {len(values)} | {len(values) / elapsed:.1f} | {_percentile(values, 0.5) * 1000:.0f} | "
            f"{_percentile(values, 0.95) * 1000:.0f} | {_percentile(values, 0.99) * 1000:.0f} | {codes} |"
        )
    lines += ["", f"after the load: {checks['owners']} users, {checks['commits']} commits verified and replayed, "
              f"{checks['turns']} acknowledged chat turns checked (each stored exactly once), "
              f"{checks.get('utterances', 0)} utterances checked against a quiet sync; "
              f"tasks still queued: {checks.get('queued', 0)}; problems: {checks['problems'] or 'none'}"]  # fmt: skip
    if stats.errors:
        lines.append("first errors: " + "; ".join(stats.errors[:5]))
    return "\n".join(lines)


# --- standalone run: its own database, server and worker -----------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _database_url(settings_dict: dict) -> str:
    host = settings_dict.get("HOST") or ""
    user, password = settings_dict["USER"], settings_dict.get("PASSWORD") or ""
    if host.startswith("/"):
        return f"postgresql://{user}:{password}@/{settings_dict['NAME']}?host={host}"
    return f"postgresql://{user}:{password}@{host}:{settings_dict.get('PORT') or 5432}/{settings_dict['NAME']}"


def seed_users(count: int, servers=None) -> list[LoadUser]:
    """``count`` users with a token, some pending memories to review, and (optionally) wearables to sync."""
    from accounts import services as accounts
    from ledger import services as ledger
    from ledger.services import EvidenceIn

    users = []
    for i in range(count):
        user, _ = accounts.ensure_user(username=f"load{i}", password="load-bench-pass", display_name=f"Load {i}",
                                       timezone_name="UTC")  # fmt: skip
        _, token = accounts.create_token(owner=user, name="load")
        for j in range(30):
            evidence = EvidenceIn(source_type="transcript", source_ref={"n": j}, quote=f"claim {j}", extractor_id="bench",
                                  extractor_version="1", capture_confidence=0.6, source_label="wearable:load")  # fmt: skip
            ledger.propose_fact(owner=user, content=f"Load user {i} maybe likes item number {j}", subject="user",
                                status="pending_review", capture_confidence=0.6, veracity=0.55, evidence=[evidence],
                                source_label="wearable:load")  # fmt: skip
        if servers is not None:
            from wearables import services as wearables

            for kind in ("limitless", "bee", "omi"):
                wearables.update_source(owner=user, kind=kind, enabled=True, base_url=servers.base_urls[kind],
                                        credentials=servers.credentials[kind])  # fmt: skip
        users.append(LoadUser(user.username, token))
    return users


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--users", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--max-requests", type=int, default=20_000)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--db", default=f"{BENCH_DB}_{os.getpid()}", help="throw-away database (per run by default)")
    args = parser.parse_args()
    bench_db = args.db

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection, connections
    from django.utils import timezone

    from wearables.imitation import start_servers
    from wearables.imitation.demo_data import build_demo_days

    base = dict(connection.settings_dict)
    with connection.cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{bench_db}"')
        cursor.execute(f'CREATE DATABASE "{bench_db}"')
    connections.close_all()
    connection.settings_dict["NAME"] = bench_db
    call_command("migrate", verbosity=0)
    servers = start_servers(build_demo_days(timezone.localdate()))
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": _database_url({**base, "NAME": bench_db}), "ALMANAC_DEMO": "false"}
    proc = subprocess.Popen([sys.executable, "manage.py", "up", "--no-demo", "--addr", f"127.0.0.1:{port}"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)  # fmt: skip
    try:
        users = seed_users(args.users, servers)
        _wait_up(f"http://127.0.0.1:{port}")
        stats = run_load(f"http://127.0.0.1:{port}", users, seconds=args.seconds, concurrency=args.concurrency,
                         max_requests=args.max_requests)  # fmt: skip
        queued = drain_queue()  # let queued memory passes and distills land before counting
        checks = check_integrity([u.username for u in users], stats, servers)
        print(report(stats, {**checks, "queued": queued}))
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        servers.stop()
        connections.close_all()
        if not args.keep:
            connection.settings_dict["NAME"] = base["NAME"]
            with connection.cursor() as cursor:
                cursor.execute(f'DROP DATABASE IF EXISTS "{bench_db}" WITH (FORCE)')


def _wait_up(base_url: str, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(base_url + "/api/v1/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise SystemExit("server did not come up")


if __name__ == "__main__":
    main()
