"""A real django-q2 cluster against the test database: heartbeat in health, and a task actually runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from django.conf import settings
from django.db import connection

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _test_database_url() -> str:
    s = connection.settings_dict
    host = s.get("HOST") or ""
    if host.startswith("/"):
        return f"postgresql://{s['USER']}:{s.get('PASSWORD') or ''}@/{s['NAME']}?host={host}"
    return f"postgresql://{s['USER']}:{s.get('PASSWORD') or ''}@{host}:{s.get('PORT') or 5432}/{s['NAME']}"


@pytest.fixture
def worker():
    env = {**os.environ, "DATABASE_URL": _test_database_url()}
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "qcluster"],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    yield proc
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


def _wait_for(predicate, seconds: float = 60.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.5)
    return predicate()


def test_health_shows_a_live_worker_and_tasks_run(client, worker):
    from django_q.models import Success
    from django_q.tasks import async_task

    assert _wait_for(lambda: client.get("/api/v1/health").json()["worker"]["alive"]), "no heartbeat"
    task_id = async_task("memory_site.tasks.heartbeat")
    assert _wait_for(lambda: Success.objects.filter(id=task_id).exists()), "task never ran"
    assert client.get("/api/v1/health").json()["worker"]["heartbeat_age_s"] < 60
