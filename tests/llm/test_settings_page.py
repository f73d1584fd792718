"""The Settings page says whether the model is on, what is wrong with its configuration, and today's calls,
fallbacks and average latency per use: for the signed-in owner only."""

from __future__ import annotations

import pytest

from ledger import llm

pytestmark = pytest.mark.django_db


def test_without_a_model_the_page_says_the_deterministic_path_runs(auth_client, settings):
    settings.ALMANAC_LLM_BASE_URL = ""
    settings.ALMANAC_LLM_MODEL = ""
    page = auth_client.get("/settings/").content.decode()
    assert "Language model" in page and "every step runs its deterministic path" in page


def test_a_configuration_problem_is_shown_and_nothing_crashes(auth_client, settings):
    settings.ALMANAC_LLM_BASE_URL = "http://127.0.0.1:8080/v1"
    settings.ALMANAC_LLM_MODEL = "gemma-3-1b-it"
    settings.ALMANAC_LLM_API_KEY = "sk-\u201cquoted\u201d"
    response = auth_client.get("/settings/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "non-ASCII character at position 4" in page and "off until the configuration is fixed" in page
    assert "sk-" not in page  # the key itself is never shown


def test_todays_figures_per_use_are_the_owners_own(auth_client, user, other_user, model):
    model.chat_handler = lambda messages: '{"route": "none", "reason": "general"}'
    from ledger.recall.gate import llm_gate

    llm_gate("What is the capital of Peru?", [], owner=user, timeout=1.0)
    llm.fell_back(user, llm.CallType.DIGEST, "test")
    llm.take_call(other_user, llm.CallType.JUDGE)
    page = auth_client.get("/settings/").content.decode()
    assert "Today 1 of 200 calls" in page
    row = page.split("recall gate</th>", 1)[1].split("</tr>", 1)[0]
    assert row.count("<td>1</td>") == 2 and " ms</td>" in row  # one call, one valid answer, a latency
    digest = page.split("chats digest</th>", 1)[1].split("</tr>", 1)[0]
    assert digest.startswith("<td>0</td><td>0</td><td>1</td>")


def test_a_page_says_the_model_is_on_while_the_worker_calls_it(auth_client, model):
    """A page never calls the model (requests run offline), but the worker does: the page says so."""
    model.chat_handler = lambda messages: '{"ok": true}'
    from ledger.llm import health

    health.probe()
    page = auth_client.get("/settings/").content.decode()
    status = page.split('id="settings-llm-status"', 1)[1].split("</p>", 1)[0]
    assert "off until" not in status and "on: the background worker asks it" in status
    assert "Structured output: response_format json_schema" in status


def test_a_server_every_call_fails_on_is_not_called_on(auth_client, model):
    model.mode = "error"
    from ledger.llm import health

    health.probe()
    status = auth_client.get("/settings/").content.decode().split('id="settings-llm-status"', 1)[1]
    assert status.split("</p>", 1)[0].count("its calls fail") == 1
