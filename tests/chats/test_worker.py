"""Debounce and flush with a real django-q2 worker: a session is distilled once it has been idle, or at once
when flushed; turns arriving meanwhile push the debounce back."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from django.conf import settings
from django.test import override_settings

from chats.models import ChatSession
from tests.memory_site.test_worker import _test_database_url, _wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

TURN = {"user": "Move the invoice PDFs generation into a background job so the checkout stays fast.",
        "assistant": "Moved PDF rendering into a django-q2 task; checkout now returns in 120 ms."}  # fmt: skip


@pytest.fixture
def worker():
    env = {**os.environ, "DATABASE_URL": _test_database_url()}
    proc = subprocess.Popen([sys.executable, "manage.py", "qcluster"], cwd=settings.BASE_DIR, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    yield proc
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


def _outcome(api, cid):
    return api.get(f"/memory/ingest/{cid}").json()["outcome"]


@override_settings(ALMANAC_CHATS_IDLE_SECONDS=3)
def test_a_session_is_distilled_after_it_goes_idle(api, user, worker):
    assert api.post("/memory/ingest", {"conversation_id": "c1", "turns": [TURN]}).json()["outcome"] == "queued"
    second = [TURN, {"user": "And email the PDF to the customer afterwards.", "assistant": "Done."}]
    assert api.post("/memory/ingest", {"conversation_id": "c1", "turns": second}).json()["turns_added"] == 2
    assert _wait_for(lambda: _outcome(api, "c1") == "distilled", 90), _outcome(api, "c1")
    session = ChatSession.objects.get(owner=user)
    assert session.turns.filter(distilled_at__isnull=True).count() == 0
    assert session.turn_count == 4


@override_settings(ALMANAC_CHATS_IDLE_SECONDS=3600)
def test_flush_distils_now_through_the_worker(api, user, worker):
    api.post("/memory/ingest", {"conversation_id": "c2", "turns": [TURN]})
    assert api.post("/memory/ingest/flush", {"conversation_id": "c2"}).json()["outcome"] == "queued"
    assert _wait_for(lambda: _outcome(api, "c2") == "distilled", 90), _outcome(api, "c2")
