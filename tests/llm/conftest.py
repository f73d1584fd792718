"""Fixtures for the LLM path: the local OpenAI-compatible imitation configured as the model, two owners."""

from __future__ import annotations

import pytest

from ledger.llm import health
from tests.factories import UserFactory
from tests.support.openai_server import OpenAIImitation


@pytest.fixture
def model(settings):
    """The imitation as the configured model (1 s deadline per call, a fresh memory of server dialects)."""
    server = OpenAIImitation(timeout_seconds=3).start()
    settings.ALMANAC_LLM_BASE_URL = server.base_url
    settings.ALMANAC_LLM_MODEL = "imitation-1"
    settings.ALMANAC_LLM_API_KEY = ""
    settings.ALMANAC_LLM_TIMEOUT = 1.0
    health._dialects.clear()
    yield server
    server.stop()
    health._dialects.clear()


@pytest.fixture
def owners(db):
    """Two owners, Oslo and Honolulu, whose local days differ."""
    from accounts.services import update_settings

    a, b = UserFactory(username="ingrid"), UserFactory(username="kaimana")
    update_settings(user=a, timezone_name="Europe/Oslo")
    update_settings(user=b, timezone_name="Pacific/Honolulu")
    return a, b
