"""Start-up: configuration problems are logged once, the probe never blocks, and demo seeding (``manage.py up``
seeds inside ``llm.offline``) calls no model even with one configured."""

from __future__ import annotations

import logging

import pytest

from ledger import llm

pytestmark = pytest.mark.django_db


def test_startup_names_a_static_problem_once(settings, caplog):
    settings.ALMANAC_LLM_BASE_URL = "htp//127.0.0.1:8080"
    settings.ALMANAC_LLM_MODEL = "gemma-3-270m-it"
    with caplog.at_level(logging.WARNING, logger="ledger.llm"):
        llm.report_at_startup()
    assert [r.message for r in caplog.records if "ALMANAC_LLM_BASE_URL" in r.message] == [
        "LLM configuration problem: ALMANAC_LLM_BASE_URL must start with http:// or https://; the deterministic "
        "path runs instead"
    ]


def test_the_startup_probe_runs_in_the_background(model, monkeypatch):
    import threading
    import time

    from ledger.llm import health

    release, probed = threading.Event(), []
    monkeypatch.setattr(health, "probe", lambda: (release.wait(5), probed.append(True)))
    started = time.monotonic()
    llm.report_at_startup()  # returns while the probe still waits
    assert time.monotonic() - started < 0.5 and probed == []
    release.set()
    for thread in threading.enumerate():
        if thread.name == "llm-probe":
            thread.join(timeout=5)
    assert probed == [True]


def test_demo_seeding_calls_no_model(model, settings, user):
    from chats import demo

    settings.ALMANAC_CHATS_DISTILLER = "llm"
    with llm.offline("demo seeding"):
        assert demo.seed(user) > 0
    assert model.chat_requests() == []
