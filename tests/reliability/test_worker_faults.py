"""A django-q2 worker killed (SIGKILL) in the middle of a sync task: the task is delivered again once the broker's
retry window has passed, the day it was writing is written once, the run it left open is closed, and the memory
passes that follow store every memory once (chain verifies, projection equals replay)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from ledger import chain
from ledger.models import Commit
from tests.memory_site.test_worker import _test_database_url, _wait_for
from tests.reliability.faults import KEY
from tests.reliability.test_database_faults import LINES, stored
from tests.wearables.days import conversation, day
from wearables import services
from wearables.models import DayTranscript, SyncRun
from wearables.services.memories import run_memory_pass
from wearables.services.sync import INTERRUPTED_AFTER

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def start_worker() -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": _test_database_url(), "ALMANAC_TASKS_SYNC": "0", "ALMANAC_WORKERS": "1"}
    return subprocess.Popen(
        [sys.executable, "manage.py", "qcluster"],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def stop(proc: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


@pytest.fixture
def workers():
    started: list[subprocess.Popen] = []

    def start() -> subprocess.Popen:
        started.append(start_worker())
        return started[-1]

    yield start
    for proc in started:
        stop(proc)


def test_a_worker_killed_mid_sync_is_redelivered_and_everything_lands_exactly_once(
    user, other_user, limitless, workers
):
    from django_q.models import OrmQ, Success
    from django_q.tasks import async_task

    today = timezone.now().date()
    dates = [today - timedelta(days=n) for n in (2, 1, 0)]
    for n, d in enumerate(dates):
        start = timezone.now().replace(year=d.year, month=d.month, day=d.day, hour=0, minute=5 + n, second=0)
        limitless.add_days([day(d.isoformat(), "UTC", {"limitless": [conversation(f"c-{d}", start, LINES)]})])
    source = services.update_source(
        owner=user, kind="limitless", enabled=True, base_url=limitless.base_url, credentials={"api_key": KEY}
    )
    limitless.slow_seconds = 1.5  # each day's page takes a while: the kill lands inside the task
    first = workers()
    task_id = async_task("wearables.tasks.sync_now", source.pk, 3)
    assert _wait_for(lambda: DayTranscript.objects.filter(owner=user).exists(), 90), "the worker never wrote a day"
    os.killpg(first.pid, signal.SIGKILL)
    first.wait(timeout=10)

    assert SyncRun.objects.get(owner=user).status == SyncRun.Status.RUNNING  # half-open, as a crash leaves it
    assert DayTranscript.objects.filter(owner=user).count() < 3
    # Time passes: the broker's retry window and the open run's age (both far longer than a test may wait).
    OrmQ.objects.update(lock=timezone.now() - timedelta(seconds=settings.Q_CLUSTER["retry"] + 60))
    SyncRun.objects.update(started_at=timezone.now() - INTERRUPTED_AFTER - timedelta(minutes=1))
    limitless.slow_seconds = 0
    workers()
    assert _wait_for(lambda: Success.objects.filter(id=task_id).exists(), 120), "the task was not redelivered"
    assert _wait_for(lambda: not OrmQ.objects.exists(), 120), "memory passes did not finish"

    runs = dict(SyncRun.objects.filter(owner=user).values_list("status", "errors"))
    assert set(runs) == {SyncRun.Status.FAILED, SyncRun.Status.OK} and "interrupted" in runs["failed"][0]
    services.update_source(
        owner=other_user, kind="limitless", enabled=True, base_url=limitless.base_url, credentials={"api_key": KEY}
    )
    services.sync(owner=other_user, source="limitless", dates=dates)
    assert stored(user) == stored(other_user) and len(stored(user)) == 3

    commits = Commit.objects.filter(owner=user).count()
    assert commits > 0 and chain.verify(user).ok and chain.rebuild(user, write=False).identical_before
    for transcript in DayTranscript.objects.filter(owner=user):
        run_memory_pass(transcript=transcript)
    assert Commit.objects.filter(owner=user).count() == commits  # every pass had already landed, once
