"""The daily call cap lives in the database: it survives cache expiry (clock travel, no sleeping), counts every
call type, is per owner and per owner-local day, and never lets two workers past the last call."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core.cache import cache
from django.db import connection
from pydantic import BaseModel

from ledger import llm
from ledger.llm.models import DailyBudget

pytestmark = pytest.mark.django_db
NOON_UTC = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


class Ok(BaseModel):
    ok: bool


def ask(owner, call=llm.CallType.EXTRACTOR, n=0):
    return llm.ask(call=call, owner=owner, system="Answer.", data={"n": n}, answer=Ok, prompt_version="cap")


def test_the_cap_holds_ten_minutes_after_a_burst(model, owners, settings):
    settings.ALMANAC_LLM_DAILY_CALLS = 3
    model.chat_handler = lambda messages: '{"ok": true}'
    a, _ = owners
    with time_machine.travel(NOON_UTC, tick=False) as clock:
        for n in range(3):
            ask(a, n=n)
        cache.set("five-minute-entry", 1, 300)  # the old counter's lifetime, as a witness of the travel
        clock.shift(timedelta(minutes=10))
        assert cache.get("five-minute-entry") is None
        assert llm.calls_today(a) == 3
        with pytest.raises(llm.CapReached):
            ask(a, n=99)
    assert len(model.chat_requests()) == 3
    assert DailyBudget.objects.get(owner=a).refused == 1


def test_every_call_type_spends_the_same_budget(model, owners, settings):
    settings.ALMANAC_LLM_DAILY_CALLS = len(llm.CallType)
    model.chat_handler = lambda messages: '{"ok": true}'
    a, _ = owners
    for call in llm.CallType:
        ask(a, call=call)
    with pytest.raises(llm.CapReached):
        ask(a, call=llm.CallType.RECALL_GATE, n=1)
    assert llm.calls_today(a) == len(llm.CallType)
    stats = {s.call_type: s.calls for s in llm.today_stats(a)}
    assert stats == {c.value: 1 for c in llm.CallType}


def test_owners_have_their_own_budgets(model, owners, settings):
    settings.ALMANAC_LLM_DAILY_CALLS = 1
    model.chat_handler = lambda messages: '{"ok": true}'
    a, b = owners
    ask(a)
    ask(b)
    with pytest.raises(llm.CapReached):
        ask(a, n=1)
    assert (llm.calls_today(a), llm.calls_today(b)) == (1, 1)


def test_the_budget_renews_at_the_owners_local_midnight(model, owners, settings):
    settings.ALMANAC_LLM_DAILY_CALLS = 1
    model.chat_handler = lambda messages: '{"ok": true}'
    oslo, honolulu = owners
    # 22:50 UTC: 23:50 in Oslo (UTC+1), 12:50 in Honolulu (UTC-10); twenty minutes later Oslo has a new day.
    with time_machine.travel(datetime(2026, 12, 1, 22, 50, tzinfo=UTC), tick=False) as clock:
        ask(oslo)
        ask(honolulu)
        clock.shift(timedelta(minutes=20))  # 23:10 UTC = 00:10 in Oslo, 13:10 in Honolulu
        ask(oslo, n=1)
        with pytest.raises(llm.CapReached):
            ask(honolulu, n=1)
    days = sorted(DailyBudget.objects.filter(owner=oslo).values_list("day", flat=True))
    assert [d.isoformat() for d in days] == ["2026-12-01", "2026-12-02"]


@pytest.mark.django_db(transaction=True)
def test_two_workers_cannot_both_take_the_last_call(owners, settings):
    settings.ALMANAC_LLM_DAILY_CALLS = 5
    a, _ = owners
    results: list[bool] = []

    def worker():
        try:
            for _ in range(4):
                results.append(llm.take_call(a, llm.CallType.JUDGE))
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 12 and results.count(True) == 5
    assert llm.calls_today(a) == 5
