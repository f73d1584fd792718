from __future__ import annotations

import pytest
from django.core.cache import cache

from ledger.recall import search


@pytest.fixture
def fresh_recall(db):
    """Empty recall caches (context blocks in the shared cache, corpus statistics in memory) around a test."""
    cache.clear()
    search.forget_stats()
    yield
    search.forget_stats()
