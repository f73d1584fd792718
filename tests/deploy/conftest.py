"""Deployment tests run the real commands against a PostgreSQL of their own, loaded from the upgrade fixture.

``tests/fixtures/upgrade/`` holds one ``pg_dump`` per release (``make_upgrade_fixture.py`` writes it): a database
that release created, with the demo in every app, and its description (``release.py``). Restoring it is the
upgrade path, and much faster than running every migration from nothing.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.reliability.pgcluster import PgCluster

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "upgrade"
RELEASES = sorted(FIXTURES.glob("release-*.dump"))


def newest_release() -> Path:
    assert RELEASES, f"no release dump in {FIXTURES}: run python -m tests.deploy.make_upgrade_fixture"
    return max(RELEASES, key=lambda p: json.loads(p.with_suffix(".json").read_text())["release"]["version"])


def manifest_of(dump: Path) -> dict:
    return json.loads(dump.with_suffix(".json").read_text())


def restore_release(cluster: PgCluster, database: str, dump: Path) -> None:
    """A new database ``database`` holding what the release's database held (its schema, data and migrations)."""
    cluster.sql(f'CREATE DATABASE "{database}"')
    subprocess.run(
        [cluster.tool("pg_restore"), "--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction",
         "--dbname", cluster.url(database), str(dump)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
