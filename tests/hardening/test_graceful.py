"""SIGTERM to `manage.py up` (what systemd and compose send): a request already in flight still gets its answer,
then the server is gone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from datetime import UTC, datetime

import pytest
from django.conf import settings
from django.utils import timezone

from accounts import services as accounts
from tests.memory_site.test_up import _free_port, _health
from tests.memory_site.test_worker import _test_database_url, _wait_for
from tests.wearables.conftest import connect
from tests.wearables.days import conversation, day

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_sigterm_lets_an_in_flight_request_finish(user, serve):
    today = timezone.localdate().isoformat()
    start = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)
    servers = serve([day(today, "UTC", {"limitless": [conversation("ll-g", start, [("user", True, "Hello there.")])]})])
    servers.limitless.slow_seconds = 1.5  # each provider call takes a while: the sync is still running at SIGTERM
    connect(user, servers, "limitless")
    _, token = accounts.create_token(owner=user, name="graceful")
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": _test_database_url(), "ALMANAC_DEMO": "false"}
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "up", "--no-demo", "--addr", f"127.0.0.1:{port}"],
        cwd=settings.BASE_DIR, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    answer: dict = {}

    def sync() -> None:
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/v1/wearables/sync",
            data=json.dumps({"source": "limitless", "days": 1}).encode(),
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            answer["status"], answer["body"] = response.status, json.loads(response.read())

    try:
        assert _wait_for(lambda: _health(port), seconds=90), "server never came up"
        client = threading.Thread(target=sync)
        client.start()
        _wait_for(lambda: servers.limitless.requests, seconds=20)  # the sync reached the provider
        os.kill(proc.pid, signal.SIGTERM)
        client.join(timeout=60)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert answer.get("status") == 200, answer
    time.sleep(0.5)
    assert _health(port) is None
