"""Provider faults end to end through ``sync``: the run finishes or stops with a clear message on the SyncRun, and a
day already stored is never replaced by a partial one (it stays byte-identical when a later sync of it fails)."""

from __future__ import annotations

import errno
from datetime import date
from pathlib import Path

import pytest

from tests.reliability.faults import KEY, fast_connectors, lines, spaced, sync_module
from tests.wearables.days import conversation, day
from wearables import services
from wearables.models import DayTranscript, SyncRun, Utterance

pytestmark = pytest.mark.django_db

DAY = "2026-06-10"
D = date(2026, 6, 10)


def convs(count: int, day_: str = DAY, tag: str = "first") -> list[dict]:
    return [conversation(cid, start, lines(f"{tag} {cid}")) for cid, start in spaced(day_, count)]


def snapshot(owner, kind: str = "limitless", local_date: date = D) -> tuple:
    """Everything stored for one day, down to row ids and timestamps."""
    t = DayTranscript.objects.get(owner=owner, source__kind=kind, local_date=local_date)
    rows = list(
        Utterance.objects.filter(transcript=t)
        .order_by("index")
        .values_list("pk", "conversation_id", "index", "text", "speaker_name", "started_at")
    )
    convs_ = list(t.conversations.order_by("pk").values_list("pk", "external_id", "title", "started_at"))
    return (t.pk, t.content_hash, t.markdown, t.updated_at, t.utterance_count, t.conversation_count, rows, convs_)


def use(owner, server) -> None:
    services.update_source(
        owner=owner, kind="limitless", enabled=True, base_url=server.base_url, credentials={"api_key": KEY}
    )


def good_day_then_more_upstream(user, limitless, count: int = 12) -> tuple:
    """Sync a good day of ``count`` conversations, then let the provider gain one more (so a sync would change it)."""
    limitless.add_days([day(DAY, "UTC", {"limitless": convs(count)})])
    use(user, limitless)
    first = services.sync(owner=user, source="limitless", dates=[D])
    assert first.status == SyncRun.Status.OK and first.days_changed == 1
    limitless.add_days([day(DAY, "UTC", {"limitless": [conversation("late", spaced(DAY, 30)[-1][1], lines("late"))]})])
    return snapshot(user)


def test_a_429_storm_is_waited_out_with_the_providers_hint_then_gives_up_clearly(user, limitless, monkeypatch):
    sleeps = fast_connectors(monkeypatch)
    before = good_day_then_more_upstream(user, limitless)
    limitless.fail_next(429, 50, retry_after=7)

    run = services.sync(owner=user, source="limitless", dates=[D])

    assert run.status == SyncRun.Status.FAILED
    assert "rate limited" in run.errors[0] and "gave up after 4 attempts" in run.errors[0]
    assert sleeps == [7.0, 7.0, 7.0]  # the provider's retryAfter, not a hammering loop
    assert snapshot(user) == before


def test_a_short_429_storm_is_retried_and_the_sync_completes(user, limitless, monkeypatch):
    fast_connectors(monkeypatch)
    good_day_then_more_upstream(user, limitless)
    limitless.fail_next(429, 2, retry_after=1)
    run = services.sync(owner=user, source="limitless", dates=[D])
    assert run.status == SyncRun.Status.OK and run.days_changed == 1
    assert DayTranscript.objects.get(owner=user).conversation_count == 13


@pytest.mark.parametrize("status", [500, 502, 503])
def test_persistent_server_errors_fail_the_run_and_keep_the_stored_day(user, limitless, monkeypatch, status):
    fast_connectors(monkeypatch)
    before = good_day_then_more_upstream(user, limitless)
    limitless.fail_next(status, 50)
    run = services.sync(owner=user, source="limitless", dates=[D])
    assert run.status == SyncRun.Status.FAILED and f"returned {status}" in run.errors[0]
    assert snapshot(user) == before


def test_a_timeout_fails_clearly_and_keeps_the_stored_day(user, limitless, monkeypatch):
    fast_connectors(monkeypatch, timeout=0.2, max_retries=1)
    before = good_day_then_more_upstream(user, limitless)
    limitless.slow_seconds = 0.6
    run = services.sync(owner=user, source="limitless", dates=[D])
    assert run.status == SyncRun.Status.FAILED and "timed out after 0.2s" in run.errors[0]
    assert snapshot(user) == before


@pytest.mark.parametrize(
    ("kind", "message"),
    [("truncated", "not JSON"), ("malformed", "unexpected response")],
)
def test_a_broken_second_page_does_not_replace_the_day_with_its_first_page(user, limitless, monkeypatch, kind, message):
    fast_connectors(monkeypatch)
    before = good_day_then_more_upstream(user, limitless)  # 13 upstream now: two pages of 10
    limitless.corrupt_next(kind, after=1)

    run = services.sync(owner=user, source="limitless", dates=[D])

    assert run.status == SyncRun.Status.FAILED and message in run.errors[0]
    assert run.pages == 0 and run.days_changed == 0
    assert snapshot(user) == before
    again = services.sync(owner=user, source="limitless", dates=[D])  # the fault passed: the day catches up
    assert again.status == SyncRun.Status.OK and DayTranscript.objects.get(owner=user).conversation_count == 13


def test_one_bad_day_leaves_the_other_days_of_the_window(user, limitless, monkeypatch):
    fast_connectors(monkeypatch)
    limitless.add_days([day("2026-06-09", "UTC", {"limitless": convs(3, "2026-06-09")})])
    limitless.add_days([day(DAY, "UTC", {"limitless": convs(3)})])
    use(user, limitless)
    limitless.corrupt_next("truncated", after=1)  # the first day's page is fine, the second day's is cut off
    run = services.sync(owner=user, source="limitless", dates=[date(2026, 6, 9), D])
    assert run.status == SyncRun.Status.PARTIAL and run.days_changed == 1
    assert run.errors[0].startswith("2026-06-10:")
    assert list(DayTranscript.objects.values_list("local_date", flat=True)) == [date(2026, 6, 9)]


def test_a_page_served_forever_under_fresh_cursors_stops_with_a_warning(user, limitless, monkeypatch):
    fast_connectors(monkeypatch)
    limitless.add_days([day(DAY, "UTC", {"limitless": convs(12)})])
    use(user, limitless)
    limitless.repeat_forever = True

    run = services.sync(owner=user, source="limitless", dates=[D])

    assert len(limitless.requests_to("/v1/lifelogs")) <= 3  # stopped on the first repeat, not after thousands
    assert any("repeated a pagination cursor" in w for w in run.warnings)
    assert run.status == SyncRun.Status.OK
    assert DayTranscript.objects.get(owner=user).conversation_count == 10  # a first sync keeps what it could read


def test_a_listing_cut_short_by_a_loop_never_shrinks_a_stored_day(user, limitless, monkeypatch):
    fast_connectors(monkeypatch)
    before = good_day_then_more_upstream(user, limitless)
    limitless.repeat_forever = True  # page one again and again: the 3 conversations on page two never arrive

    run = services.sync(owner=user, source="limitless", dates=[D])

    assert any("cut short; kept the stored day" in w for w in run.warnings)
    assert run.days_changed == 0 and snapshot(user) == before


def test_export_on_a_full_disk_warns_and_leaves_no_half_file(
    user, limitless, monkeypatch, settings, tmp_path, django_capture_on_commit_callbacks
):
    fast_connectors(monkeypatch)
    settings.ALMANAC_HOME = tmp_path
    services.update_wearables_settings(owner=user, export_markdown=True)
    limitless.add_days([day(DAY, "UTC", {"limitless": convs(2)})])
    use(user, limitless)
    services.sync(owner=user, source="limitless", dates=[D])
    exported = tmp_path / "wearables" / "limitless" / f"{DAY}.md"
    good = exported.read_text()
    limitless.add_days([day(DAY, "UTC", {"limitless": [conversation("late", spaced(DAY, 9)[-1][1], lines("x"))]})])

    real_write = Path.write_text

    def full_disk(self, data, *args, **kwargs):
        if self.parent.is_relative_to(tmp_path):
            real_write(self, data[: len(data) // 3], *args, **kwargs)  # a partial write, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(self, data, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full_disk)
    with django_capture_on_commit_callbacks(execute=True):
        run = services.sync(owner=user, source="limitless", dates=[D])

    assert run.status == SyncRun.Status.OK and run.days_changed == 1
    assert any("markdown export failed (No space left on device)" in w for w in run.warnings)
    assert exported.read_text() == good  # the previous export stays whole
    assert sorted(p.name for p in exported.parent.iterdir()) == [f"{DAY}.md"]  # no .md.tmp left behind
    assert DayTranscript.objects.get(owner=user).conversation_count == 3  # the database has the new day


def test_a_provider_that_stops_answering_costs_one_days_attempts_not_every_days(user, limitless, monkeypatch):
    """Found by bench/soak.py: a hanging provider was asked for each day in turn, four attempts a page each."""
    fast_connectors(monkeypatch, timeout=0.2)
    days = ["2026-06-08", "2026-06-09", "2026-06-10"]
    for d in days:
        limitless.add_days([day(d, "UTC", {"limitless": convs(1, d)})])
    use(user, limitless)
    limitless.slow_seconds = 0.5

    run = services.sync(owner=user, source="limitless", dates=[date.fromisoformat(d) for d in days])

    assert run.status == SyncRun.Status.FAILED
    assert len(limitless.requests) == 4  # the first day's attempts, then the run stops
    assert run.errors[-1] == "stopped after 1 of 3 days: the provider did not answer; the next sync tries again"


def test_a_sync_requested_over_the_api_waits_on_a_silent_provider_briefly(api, user, limitless, monkeypatch):
    """A request must never outlive gunicorn's timeout (which kills the worker and every request it holds):
    a sync someone waits for asks a silent provider twice, briefly, and answers with the failed run."""
    monkeypatch.setattr(sync_module, "INTERACTIVE", {"timeout": 0.2, "max_retries": 1})
    limitless.add_days([day(DAY, "UTC", {"limitless": convs(1)})])
    use(user, limitless)
    limitless.slow_seconds = 0.5

    response = api.post("/wearables/sync", {"source": "limitless", "days": 3})

    assert response.status_code == 502 and "timed out after 0.2s (gave up after 2 attempts)" in response.json()["detail"]
    assert len(limitless.requests) == 2
    assert SyncRun.objects.get(owner=user).status == SyncRun.Status.FAILED
