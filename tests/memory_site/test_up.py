"""`manage.py up` (what `make up` runs): web server and worker together, health shows both, Ctrl-C stops all."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from django.conf import settings

from tests.memory_site.test_worker import _test_database_url, _wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _health(port: int) -> dict | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/health", timeout=2) as r:
            return json.loads(r.read())
    except OSError:
        return None


def test_up_serves_health_with_a_live_worker_and_stops_on_ctrl_c():
    port = _free_port()
    _served_by_gunicorn = False
    env = {**os.environ, "DATABASE_URL": _test_database_url()}
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "up", "--no-demo", "--addr", f"127.0.0.1:{port}"],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        body = _wait_for(lambda: (h := _health(port)) and h["worker"]["alive"] and h, seconds=60)
        assert body, "server or worker never came up"
        assert body["database"]["ok"] and body["database"]["pgvector"]
        # Pages need their stylesheet and htmx from this same server (no CDN, no separate web server).
        for path, kind in [("/static/css/almanac.css", "text/css"), ("/static/vendor/htmx.min.js", "javascript")]:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
                assert r.status == 200 and kind in r.headers["Content-Type"], path
        found = subprocess.run(["pgrep", "-f", f"gunicorn.*127.0.0.1:{port}"], capture_output=True, text=True)
        _served_by_gunicorn = bool(found.stdout.strip())
        os.killpg(proc.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
        proc.wait(timeout=40)
        assert _health(port) is None
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    time.sleep(0.5)
    # The web server is gunicorn (not Django's development server), and no process of it outlives `up`.
    assert _served_by_gunicorn, "make up must serve through gunicorn"
    leftovers = subprocess.run(["pgrep", "-f", f"gunicorn.*127.0.0.1:{port}"], capture_output=True, text=True)
    assert leftovers.stdout.strip() == ""
