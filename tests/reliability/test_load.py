"""The short load run (the long one with figures is ``python bench/load.py``): two users at once against gunicorn
and the worker (``manage.py up``), syncing the demo wearables, ingesting chat turns, recalling and reviewing; then
no 5xx, every chain verifies, every projection equals its replay, every acknowledged chat turn is stored exactly
once, and every synced day holds exactly what one quiet sync of the same provider data stores."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from django.conf import settings
from django.utils import timezone

from bench.load import check_integrity, drain_queue, run_load, seed_users
from tests.memory_site.test_up import _free_port, _health
from tests.memory_site.test_worker import _test_database_url, _wait_for
from wearables.imitation import start_servers
from wearables.imitation.demo_data import build_demo_days

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def demo_servers():
    servers = start_servers(build_demo_days(timezone.localdate()))
    yield servers
    servers.stop()


def test_concurrent_syncs_ingests_recalls_and_reviews_lose_nothing(demo_servers):
    users = seed_users(2, demo_servers)
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": _test_database_url(), "ALMANAC_DEMO": "false"}
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "up", "--no-demo", "--addr", f"127.0.0.1:{port}"],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        assert _wait_for(lambda: _health(port), seconds=90), "server never came up"
        stats = run_load(f"http://127.0.0.1:{port}", users, seconds=10, concurrency=4, max_requests=400)
        queued = drain_queue(90)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)

    assert stats.server_errors() == 0, stats.errors[:5]
    for route in ("POST /memory/recall", "POST /memory/ingest", "POST /wearables/sync", "GET /review/items"):
        assert sum(stats.statuses[route].values()) > 0, f"{route} never ran"
    assert queued == 0, "the worker did not finish the queued passes"
    checks = check_integrity([u.username for u in users], stats, demo_servers)
    assert checks["problems"] == []
    assert checks["owners"] == 2 and checks["commits"] >= 60 and checks["turns"] > 0 and checks["utterances"] > 0
