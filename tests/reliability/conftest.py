"""Reliability fixtures: imitation servers started per test and stopped after."""

from __future__ import annotations

import pytest

from tests.wearables.conftest import CREDENTIAL_ENV
from wearables.imitation import start_servers


@pytest.fixture(autouse=True)
def _no_provider_env(monkeypatch):
    for name in CREDENTIAL_ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def serve():
    """``serve(days, **options)`` starts the three imitation servers for this test and stops them after."""
    running = []

    def start(days, **options):
        servers = start_servers(days, **options)
        running.append(servers)
        return servers

    yield start
    for servers in running:
        servers.stop()


@pytest.fixture
def limitless():
    """A fault-injecting Limitless imitation (tests/reliability/faults.py), stopped after the test."""
    from tests.reliability.faults import FaultyLimitless

    with FaultyLimitless() as server:
        yield server
