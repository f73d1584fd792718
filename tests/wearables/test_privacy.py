"""No SSN or valid card number survives into any stored row, task payload, log line or export.

Fuzzed talk is served by the imitation servers and synced through the real connectors; then every text and
JSON column of every table (django_q's included, task payloads decoded) is scanned.
"""

from __future__ import annotations

import logging
import re
from datetime import UTC, date, datetime

import pytest
from django_q.models import OrmQ
from django_q.signing import SignedPackage
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.stored_text import raw_values
from tests.wearables.conftest import connect
from tests.wearables.days import conversation, day
from wearables import services
from wearables.imitation import start_servers
from wearables.pipeline.redaction import luhn_valid

pytestmark = pytest.mark.django_db

WORDS = st.sampled_from("so the lease um uh card number is my social security okay yeah like you know right".split())


def luhn_complete(prefix: str) -> str:
    return next(prefix + c for c in "0123456789" if luhn_valid(prefix + c))


cards = st.builds(
    lambda p, body: luhn_complete(p + body),
    st.sampled_from(["4", "51", "37", "6011"]),
    st.text(alphabet="0123456789", min_size=11, max_size=13),
)
ssns = st.builds(
    lambda a, b, c: f"{a:03d}-{b:02d}-{c:04d}", st.integers(1, 899), st.integers(1, 99), st.integers(1, 9999)
)


def spoken_card(number: str, style: int) -> str:
    groups = [number[i : i + 4] for i in range(0, len(number), 4)]
    return [number, " ".join(groups), "-".join(groups), " ".join(number), ", um, ".join(groups)][style]


def digit_runs(value: str) -> list[str]:
    return ["".join(ch for ch in run if ch.isdigit()) for run in re.findall(r"\d[\d\s,.\-]*\d|\d", value)]


def stored_strings() -> list[str]:
    """Every value of every text/JSON/search-vector column in the database, plus decoded django_q task payloads."""
    out = [value for _, value in raw_values()]
    for task in OrmQ.objects.all():
        out.append(repr(SignedPackage.loads(task.payload)))
    return out


def assert_absent(secret_digits: str, values: list[str]) -> None:
    for value in values:
        for run in digit_runs(value):
            assert secret_digits not in run, f"leaked into: {value[:200]!r}"


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    card=cards,
    style=st.integers(0, 4),
    ssn=ssns,
    before=st.lists(WORDS, max_size=6),
    after=st.lists(WORDS, max_size=6),
)
def test_no_ssn_or_card_survives_anywhere_after_sync(
    user, caplog, django_capture_on_commit_callbacks, tmp_path, card, style, ssn, before, after
):
    from django.conf import settings as dj

    dj.ALMANAC_HOME = tmp_path
    services.update_wearables_settings(owner=user, export_markdown=True)
    caplog.set_level(logging.DEBUG)
    start = datetime(2026, 6, 10, 15, 0, tzinfo=UTC)
    said = " ".join([*before, spoken_card(card, style), *after])
    lines = [
        ("user", True, f"Okay {said}."),
        ("Sam", False, f"And the social is {ssn}, right?"),
        ("user", True, f"My card is {spoken_card(card, 1)[:9]}"),  # a card split over two fragments
        ("user", True, f"{spoken_card(card, 1)[9:]} and that's it."),
    ]
    bee_lines = [("0" if w else "1", w, t) for _, w, t in lines]
    days = [
        day(
            "2026-06-10",
            "UTC",
            {
                "limitless": [conversation("ll-x", start, lines, gap=1.5)],
                "bee": [conversation("b-x", start, bee_lines, gap=1.5)],
            },
        )
    ]
    servers = start_servers(days, bee_facts=[{"id": 9, "text": f"Card {card} and SSN {ssn}", "confirmed": True}])
    try:
        connect(user, servers, "limitless", "bee")
        with django_capture_on_commit_callbacks(execute=True):
            services.sync_enabled_sources(owner=user, dates=[date(2026, 6, 10)])
    finally:
        servers.stop()
    values = stored_strings() + [caplog.text]
    values += [p.read_text() for p in tmp_path.rglob("*.md")]
    assert any("and that's it" in v for v in values)  # the scan really sees the stored transcript
    assert_absent(card, values)
    assert_absent(ssn.replace("-", ""), values)
