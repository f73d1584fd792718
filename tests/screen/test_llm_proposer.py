"""The optional LLM proposer refines a deterministic draft; any failure keeps the draft."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from screen.events import llm
from screen.services.store import EventDraft
from tests.support.openai_server import OpenAIImitation

pytestmark = pytest.mark.django_db  # every model call is counted in the database

DRAFT = EventDraft(
    key="k",
    event_type="kilnlink.task_completed",
    started_at=datetime(2026, 6, 8, tzinfo=UTC),
    title="Firing complete",
    outcome="completion",
)


@pytest.fixture
def server(settings):
    s = OpenAIImitation(timeout_seconds=2).start()
    settings.ALMANAC_LLM_BASE_URL = s.base_url
    settings.ALMANAC_LLM_MODEL = "imitation-1"
    settings.ALMANAC_LLM_TIMEOUT = 0.5
    yield s
    s.stop()


def test_without_an_llm_the_draft_is_kept(settings):
    settings.ALMANAC_LLM_BASE_URL = ""
    assert llm.refine(DRAFT, ["Firing complete"], owner=None) is DRAFT


def test_llm_names_the_event(server):
    server.chat_handler = lambda messages: (
        '{"event_type": "pottery.firing_completed", "title": "Cone 6 glaze firing finished", '
        '"summary": "The kiln finished a cone 6 glaze firing.", "confidence": 0.8}'
    )
    got = llm.refine(DRAFT, ["Program: Cone 6 glaze", "Firing complete"], owner=None)
    assert got.event_type == "pottery.firing_completed" and got.title == "Cone 6 glaze firing finished"
    assert got.proposer == "llm:imitation-1" and got.outcome == "completion"
    sent = server.requests[-1]["body"]["messages"][1]["content"]
    assert '"screen_lines"' in sent and "Firing complete" in sent


@pytest.mark.parametrize("answer", ['{"event_type": "Not A Type", "title": "x"}', '{"title": "missing type"}'])
def test_a_bad_answer_keeps_the_deterministic_draft(server, answer):
    server.chat_handler = lambda messages: answer
    assert llm.refine(DRAFT, ["Firing complete"], owner=None) == DRAFT


@pytest.mark.parametrize("mode", ["timeout", "error", "invalid_json"])
def test_llm_failures_fall_back(server, mode):
    server.mode = mode
    assert llm.refine(DRAFT, ["Firing complete"], owner=None) == DRAFT
