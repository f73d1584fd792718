"""Keys never leave where they are kept: after a sync, a failed check, a memory pass with a (failing) LLM and
page views, no provider or LLM key appears in logs, error responses, django-q2 task payloads or page source."""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime

import pytest
from django.db import connection
from django_q.models import OrmQ
from django_q.signing import SignedPackage

from tests.wearables.conftest import connect
from tests.wearables.days import conversation, day
from wearables import services
from wearables.imitation import start_servers

pytestmark = pytest.mark.django_db

LLM_KEY = "sk-llm-FAKE-SECRET-7f3a9c"
WRONG_KEY = "lim-WRONG-SECRET-41b2e8"
LINES = [
    ("user", True, "I moved to Porto last spring and I work as a pharmacist now."),
    ("Rui", False, "You told me you love sardines, right?"),
]


def _task_payloads() -> list[str]:
    return [repr(SignedPackage.loads(task.payload)) for task in OrmQ.objects.all()]


def _sync_run_text() -> list[str]:
    with connection.cursor() as cur:
        cur.execute("SELECT row_to_json(r)::text FROM wearables_syncrun r")
        return [row[0] for row in cur.fetchall()]


def test_provider_and_llm_keys_appear_nowhere_but_their_own_column(
    user, api, auth_client, caplog, settings, django_capture_on_commit_callbacks
):
    settings.ALMANAC_LLM_BASE_URL = "http://127.0.0.1:9/v1"  # nothing listens: every LLM call fails
    settings.ALMANAC_LLM_MODEL = "fake-model"
    settings.ALMANAC_LLM_API_KEY = LLM_KEY
    caplog.set_level(logging.DEBUG)
    start = datetime(2026, 6, 10, 15, tzinfo=UTC)
    servers = start_servers([day("2026-06-10", "UTC", {"limitless": [conversation("ll-s", start, LINES)]})])
    try:
        good_key = servers.credentials["limitless"]["api_key"]
        connect(user, servers, "limitless")
        responses = [api.put("/wearables/sources/limitless", {"credentials": {"api_key": WRONG_KEY}})]
        responses.append(api.post("/wearables/sources/limitless/check"))  # refused by the provider: 401
        assert responses[-1].status_code in (200, 502)
        api.put("/wearables/sources/limitless", {"credentials": {"api_key": good_key}})
        with django_capture_on_commit_callbacks(execute=True):
            services.sync_enabled_sources(owner=user, dates=[date(2026, 6, 10)])
        responses += [api.get(p) for p in ("/wearables/sources", "/wearables/status", "/settings", "/ledger/facts")]
        pages = [auth_client.get(p) for p in ("/", "/sources/", "/transcripts/?date=2026-06-10", "/memory/")]
    finally:
        servers.stop()
    assert any("pharmacist" in r.content.decode() for r in responses + pages)  # the sync really ran
    haystacks = {
        "logs": caplog.text,
        "responses": "\n".join(r.content.decode() for r in responses),
        "pages": "\n".join(p.content.decode() for p in pages),
        "task payloads": "\n".join(_task_payloads()),
        "sync runs": "\n".join(_sync_run_text()),
    }
    assert "rejected" in haystacks["responses"].lower() or "401" in haystacks["responses"]
    for secret in (LLM_KEY, WRONG_KEY, good_key):
        for where, text in haystacks.items():
            assert secret not in text, f"{secret[:6]}… leaked into {where}"
