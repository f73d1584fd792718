"""No request waits on a model: while the worker's model call hangs, /memory/recall (its gate included) and pages
answer within their own budgets. The worker calls the model outside any transaction, so the daily cap's counter
row is never locked for the length of a model call."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from chats.services import distilling
from chats.services import ingest as ingest_services

GATE_BUDGET = 2.0  # ALMANAC_RECALL_LLM_GATE_TIMEOUT
PAGE_BUDGET = 2.0
HANG = 6.0  # the model's stall, longer than every budget

TURNS = [
    {"user": "I moved to Tromsø in March and I teach chemistry at the upper secondary school there.",
     "assistant": "Noted: chemistry teacher in Tromsø since March."},
    {"user": "My partner Eirik restores wooden boats; we keep a faering in the harbour.",
     "assistant": "A faering in the harbour, and Eirik restores wooden boats."},
]  # fmt: skip


def timed(fn) -> tuple[float, object]:
    started = time.monotonic()
    result = fn()
    return time.monotonic() - started, result


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_recall_and_pages_answer_while_the_worker_waits_on_a_hung_model(model, settings, user, client):
    from tests.conftest import _api_for

    api = _api_for(client, user)
    client.force_login(user)
    for warm_up in (lambda: api.post("/memory/recall", {"query": "hello"}), lambda: client.get("/chats/")):
        warm_up()  # the first request of a process imports the URL configuration: not what is measured
    settings.ALMANAC_RECALL_LLM_GATE = True
    settings.ALMANAC_RECALL_LLM_GATE_TIMEOUT = GATE_BUDGET
    settings.ALMANAC_LLM_TIMEOUT = HANG
    model.timeout_seconds = HANG
    model.mode = "timeout"  # every model call hangs
    ingest_services.ingest(owner=user, agent_id="claude", conversation_id="north", turns=TURNS)
    worker_done = threading.Event()

    def worker():
        try:
            distilling.drain_due(now=timezone.now() + timedelta(minutes=5))
        finally:
            connection.close()
            worker_done.set()

    thread = threading.Thread(target=worker)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not model.chat_requests() and time.monotonic() < deadline:
            time.sleep(0.02)  # wait until the worker's model call is in flight
        assert model.chat_requests(), "the worker never asked the model"
        recall_s, recall = timed(lambda: api.post("/memory/recall", {"query": "Where do I teach chemistry?"}))
        chats_s, chats_page = timed(lambda: client.get("/chats/"))
        settings_s, settings_page = timed(lambda: client.get("/settings/"))
        measured_while_waiting = not worker_done.is_set()
    finally:
        model.mode = "error"  # the worker's later calls fail at once
        thread.join(timeout=3 * HANG)
    assert recall.status_code == 200 and recall.json()["gate"]["method"] == "heuristic"
    assert recall_s < GATE_BUDGET + 0.5, f"/memory/recall took {recall_s:.1f}s"
    assert chats_page.status_code == settings_page.status_code == 200
    assert chats_s < PAGE_BUDGET and settings_s < PAGE_BUDGET, (chats_s, settings_s)
    assert measured_while_waiting, "the worker finished first: nothing was measured while it waited"
