"""A collect asked for while another collect of the same source runs (another node, the schedule) answers 409 with
the reason: it is a conflict, not a failing upstream (found by bench/soak.py, where it answered 502)."""

from __future__ import annotations

import pytest
from django.db import connections

from screen import services
from screen.services.collect import LOCK_NAMESPACE

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_collect_while_another_holds_the_source_answers_409_and_the_next_one_runs(api, user):
    source = services.update_source(owner=user, enabled=True, base_url="http://127.0.0.1:9")
    other = connections.create_connection("default")  # a second session: what another process's collect holds
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s, %s)", [LOCK_NAMESPACE, source.pk])
        busy = api.post("/screen/collect")
    finally:
        other.close()  # the lock goes with the session
    after = api.post("/screen/collect")

    assert busy.status_code == 409
    assert busy.json()["detail"] == "another collect of this source is running; try again when it has finished"
    assert after.status_code == 502 and "unreachable" in after.json()["detail"]  # it ran (nothing listens on :9)
