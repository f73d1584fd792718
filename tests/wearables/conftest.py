"""Wearables fixtures: imitation servers serving chosen days, and sources configured to talk to them."""

from __future__ import annotations

import pytest

from wearables import services
from wearables.imitation import start_servers

CREDENTIAL_ENV = [
    "ALMANAC_LIMITLESS_API_KEY", "LIMITLESS_API_KEY", "ALMANAC_BEE_API_TOKEN", "BEE_API_TOKEN",
    "ALMANAC_OMI_API_KEY", "OMI_API_KEY", "ALMANAC_OMI_APP_ID", "OMI_APP_ID", "ALMANAC_OMI_USER_ID", "OMI_USER_ID",
    "ALMANAC_OMI_API",
]  # fmt: skip


@pytest.fixture(autouse=True)
def _no_provider_env(monkeypatch):
    """Credentials come from the sources under test, never from a developer's exported keys."""
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


def connect(owner, servers, *kinds):
    """Enable ``kinds`` (default all three) for ``owner`` pointed at ``servers``."""
    out = {}
    for kind in kinds or ("limitless", "omi", "bee"):
        out[kind] = services.update_source(
            owner=owner,
            kind=kind,
            enabled=True,
            base_url=servers.base_urls[kind],
            credentials=servers.credentials[kind],
        )
    return out
