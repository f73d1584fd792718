"""Reliability fixtures: imitation servers started per test and stopped after."""

from __future__ import annotations

import pytest

# The wearables fixtures, shared: credentials never come from the environment; ``serve`` starts the imitations.
from tests.wearables.conftest import _no_provider_env, serve  # noqa: F401


@pytest.fixture
def limitless():
    """A fault-injecting Limitless imitation (tests/reliability/faults.py), stopped after the test."""
    from tests.reliability.faults import FaultyLimitless

    with FaultyLimitless() as server:
        yield server
