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


@pytest.fixture
def run_queued_usage(db):
    """Run the usage-feedback tasks recall queued (what the django-q2 worker does), return how many ran."""
    from django.utils.module_loading import import_string
    from django_q.models import OrmQ

    from ledger.recall.services import USAGE_TASK

    def run() -> int:
        ran = 0
        for queued in OrmQ.objects.order_by("pk"):
            task = queued.task
            if task.get("func") == USAGE_TASK:
                import_string(USAGE_TASK)(*task["args"], **task.get("kwargs", {}))
                queued.delete()
                ran += 1
        return ran

    return run
