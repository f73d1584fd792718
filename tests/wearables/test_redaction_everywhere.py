"""No secret said in a day reaches the disk or the API, in any form it was said or read back in.

Days in domains no labelled day has (a parcel locker, a gym locker, a utility bill paid with a sort code, a
spaced account number and a card's security code, a server-room keypad, a Wi-Fi password) are served by the Limitless, Bee and Omi imitations in their wire
formats, synced through the real connectors and pipeline, and put through the memory pass (candidates, claims,
episodes, digests, search vectors, embeddings: everything the worker would do). Then every text, JSON and
search-vector column of every table and every model text field (decrypted) is scanned, and so are
``GET /wearables/transcript``, ``/wearables/transcripts/search`` and ``/wearables/memories``.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime

import pytest

from tests.stored_text import everything
from tests.wearables.conftest import connect
from tests.wearables.days import conversation, day
from wearables import services

pytestmark = pytest.mark.django_db

DAY = date(2026, 11, 4)
WHO = "Dana Example"
TALKS = [
    [  # a parcel locker: the code texted, read out, read back bare
        ("Hollis", False, "Your parcel's in the lockers by the pharmacy, did you get the text?"),
        ("user", True, "I did. What's the collection code again?"),
        ("Hollis", False, "It's 5 8 2 9 1 4. It closes at 9 30 tonight."),
        ("user", True, "582914, got it. I'll go after the 6 15 bus."),
    ],
    [  # a gym locker combination, spoken digit by digit and echoed in words
        ("user", True, "The combination on my locker is three eight one nine, can you grab my towel?"),
        ("Marit", False, "Three eight one nine, okay. Which locker?"),
        ("user", True, "Number 44, by the window. Class starts at 7 and costs 12 dollars."),
    ],
    [  # a utility bill paid by phone: bank sort code, a spaced account number, a card's security code
        ("Agent", False, "To set up the direct debit I need the bank details."),
        ("user", True, "Sort code 20-45-77, account number 5 3 1 9 8 2 0 4."),
        ("Agent", False, "20-45-77 and 53198204. And for today's 86 pound balance, the card?"),
        ("user", True, "Card number 4000 0566 5566 5556."),
        ("Agent", False, "And the three digits on the back?"),
        ("user", True, "417."),
        ("Agent", False, "Thank you. Your next bill is on the 14th of December."),
    ],
    [  # a workplace door: said once, echoed as a bare number, with a keypad word after it
        ("Ines", False, "They changed the server room code this morning. It's 6 2 0 7, then enter."),
        ("user", True, "6207 enter. Is the meeting still in room 1412 at 3?"),
        ("Ines", False, "Yes, 1412, and bring the 2 laptops."),
    ],
    [  # a guest Wi-Fi password
        ("user", True, "What's the wifi password here?"),
        ("Tobias", False, "It's velvetgiraffe58, all lower case."),
        ("user", True, "velvetgiraffe58, thanks. We live at 1450 Lakeshore Road now, flat 2B."),
    ],
]
SECRETS = ["582914", "3819", "204577", "53198204", "4000056655665556", "417", "6207", "velvetgiraffe58"]
SPOKEN = ["three eight one nine", "Three eight one nine"]
PLAIN = ["9 30", "6 15", "44", "12 dollars", "86 pound", "14th of December", "1412", "1450 Lakeshore Road"]


def the_day() -> dict:
    start = datetime(2026, 11, 4, 15, tzinfo=UTC)
    convs = {}
    for kind, label in (("limitless", None), ("bee", "bee"), ("omi", "omi")):
        items = []
        for n, lines in enumerate(TALKS):
            if label:  # Bee and Omi label speakers by number
                names = {s for s, w, _ in lines if not w}
                numbers = {s: str(i + 1) for i, s in enumerate(sorted(names))}
                lines = [("0" if w else numbers[s], w, t) for s, w, t in lines]
            at = start.replace(hour=15 + n)
            items.append(conversation(f"{kind[:2]}-{n}", at, lines))
        convs[kind] = items
    return day(DAY.isoformat(), "UTC", convs, wearer=WHO)


def _leaks(values: list[tuple[str, str]]) -> list[str]:
    found = []
    for where, value in values:
        words = value.lower()
        for secret in SECRETS:
            hit = secret.lower() in words if not secret.isdigit() else _digit_hit(secret, value)
            if hit:
                found.append(f"{secret} in {where}: {value[:160]!r}")
        found += [f"{s!r} in {where}" for s in SPOKEN if s in value]
    return found


def _digit_hit(secret: str, value: str) -> bool:
    """The secret as one number in the value, however grouped ("5 8 2 9 1 4", "20-45-77"); a long one also
    inside a longer run. Digits inside words (hashes, ids) are not numbers anyone said."""
    for run in re.findall(r"(?<!\w)\d[\d\s\-.,]*\d(?!\w)|(?<!\w)\d(?!\w)", value):
        digits = re.sub(r"\D", "", run)
        if digits == secret or (len(secret) >= 8 and secret in digits):
            return True
    return False


@pytest.fixture
def synced(user, serve, django_capture_on_commit_callbacks, settings):
    from django_q.conf import Conf

    servers = serve(
        [the_day()],
        bee_facts=[{"id": 31, "text": "Dana's parcel locker code is 582914", "confirmed": True}],
    )
    connect(user, servers)
    previous, Conf.SYNC = Conf.SYNC, True  # the memory pass and the recall indexing run inline, as the worker would
    try:
        with django_capture_on_commit_callbacks(execute=True):
            runs = services.sync_enabled_sources(owner=user, dates=[DAY], force_memories=True)
    finally:
        Conf.SYNC = previous
    assert all(r.status == "ok" for r in runs), [(r.source.kind, r.errors) for r in runs]
    return user


@pytest.mark.slow
def test_no_secret_reaches_any_column_model_field_or_api_answer(synced, api):
    from distill.models import Claim
    from ledger.models import Episode, Evidence

    values = everything()
    assert Evidence.objects.filter(owner=synced).exists() and Episode.objects.filter(owner=synced).exists()
    assert Claim.objects.filter(owner=synced).exists()  # the gate ran, so its derivatives are in the scan
    text = "\n".join(v for _, v in values)
    assert all(p in text for p in PLAIN), [p for p in PLAIN if p not in text]  # the scan sees the transcript
    leaks = _leaks(values) + _leaks(_api_answers(api))
    assert not leaks, "\n".join(leaks)


def _api_answers(api) -> list[tuple[str, str]]:
    bodies = []
    for path, params in [
        ("/wearables/transcript", {"date": DAY.isoformat()}),
        ("/wearables/memories", {"date": DAY.isoformat(), "limit": 500}),
        *[("/wearables/transcripts/search", {"q": q}) for q in ["code", "locker", "password", "card", "account"]],
        *[("/wearables/transcripts/search", {"q": s}) for s in SECRETS],
    ]:
        response = api.get(path, params)
        assert response.status_code == 200, (path, response.content)
        body = response.json()
        if path.endswith("/search"):
            assert params["q"] not in SECRETS or body["hits"] == []
            body = body["hits"]  # the query is echoed back as asked
        bodies.append((path, json.dumps(body)))
    assert "then enter" in bodies[0][1].lower() and len(json.loads(bodies[1][1])) > 0  # real days, real memories
    return bodies
