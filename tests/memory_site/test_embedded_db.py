from __future__ import annotations

import subprocess
import sys

import pytest
from django.conf import settings
from django.db import connection

pytestmark = pytest.mark.django_db

embedded = pytest.mark.skipif(bool(__import__("os").environ.get("DATABASE_URL")), reason="external DATABASE_URL in use")


@embedded
def test_embedded_server_is_reused_by_a_second_process():
    from memory_site import embedded_db

    pid = embedded_db.server_pid()
    assert pid is not None
    # A second process (as the worker would be) joins the running server instead of starting another.
    code = (
        "import os; os.environ.setdefault('DJANGO_SETTINGS_MODULE','memory_site.settings');"
        "import django; django.setup();"
        "from memory_site import embedded_db; print(embedded_db.server_pid())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=settings.BASE_DIR
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == str(pid)
    # ... and leaving does not stop it for us.
    with connection.cursor() as cur:
        cur.execute("SELECT 1")
        assert cur.fetchone() == (1,)


@embedded
def test_embedded_server_keeps_data_in_almanac_home():
    assert (settings.ALMANAC_HOME / "pgdata" / "PG_VERSION").read_text().strip() == "18"


def test_database_is_postgresql_with_pgvector():
    assert connection.vendor == "postgresql"
    with connection.cursor() as cur:
        cur.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        assert cur.fetchone()[0].startswith("0.8")


def test_pgvector_round_trip_finds_the_nearest_neighbour():
    with connection.cursor() as cur:
        cur.execute("CREATE TEMP TABLE probe (id int, v vector(3))")
        cur.execute("INSERT INTO probe VALUES (1, '[1,0,0]'), (2, '[0,1,0]'), (3, '[0.9,0.1,0]')")
        cur.execute("SELECT id FROM probe ORDER BY v <=> '[1,0.05,0]' LIMIT 2")
        assert [r[0] for r in cur.fetchall()] == [1, 3]
