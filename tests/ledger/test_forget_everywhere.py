"""Forgetting a person after the full demo: their name is left in no table, index, episode, digest, evidence
quote, candidate or embedding, and a forced re-sync of every source brings nothing back.

The demo is seeded as ``make up`` seeds it (every app, background tasks run inline as the worker would), an
agent and a chat add what they know about the person, then the person is forgotten through the API. Every text,
JSON and search-vector column of every table and every model text field (decrypted) is scanned for any of
their names, before and after a re-sync.
"""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.stored_text import everything

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

PERSON = "Helen Park"  # a neighbour in the demo week (wearables/imitation/demo_data.py)
NAMES = re.compile(r"\bhelen\b", re.IGNORECASE)


def _naming(values: list[tuple[str, str]]) -> list[str]:
    out = set()
    for where, value in values:
        for m in NAMES.finditer(value):
            out.add(f"{where}: …{value[max(0, m.start() - 150) : m.end() + 80]!r}")
    return sorted(out)


@pytest.fixture
def demo():
    from django_q.conf import Conf

    from tests.conftest import _seed_demo

    user, handles = _seed_demo()
    previous, Conf.SYNC = Conf.SYNC, True
    try:
        yield user
    finally:
        Conf.SYNC = previous
        for handle in handles:
            handle.stop()


def _tell_the_other_sources(user) -> None:
    """An agent and a chat also know her: the forget must reach what they stored too."""
    from chats.services.distilling import distill_session
    from chats.services.store import store_session
    from chats.text import SessionIn, TurnIn
    from distill import services as distill

    distill.remember(owner=user, text=f"{PERSON} lent Dana her extension ladder", source_key="agent:mcp")
    now = timezone.now() - timedelta(hours=2)
    turns = [
        TurnIn(role="user", text=f"Remind me to return the ladder to {PERSON} on Saturday.", is_owner=True, at=now),
        TurnIn(role="assistant", text="Noted: return Helen's ladder on Saturday.", at=now + timedelta(minutes=1)),
    ]
    stored = store_session(
        owner=user, data=SessionIn(source_key="chat:openai", external_id="ladder", turns=turns, title="Ladder")
    )
    stored.session.refresh_from_db()
    distill_session(session=stored.session)


def test_forgetting_a_person_after_the_full_demo_leaves_their_name_nowhere(demo, client):
    from django.core.management import call_command

    from ledger import chain
    from ledger.models import Entity
    from tests.conftest import _api_for
    from wearables import services as wearables

    user = demo
    _tell_the_other_sources(user)
    before = _naming(everything())
    where = {line.split(":")[0] for line in before}
    assert {  # she is really there: transcripts, episodes, candidates, evidence, the chain, chats, search vectors
        "wearables.Utterance.speaker_name", "ledger.Episode.summary", "ledger.Evidence.quote", "ledger.Fact.content",
        "ledger.Commit.mutations", "distill.StoredExtraction.candidates", "chats.ChatTurn.text", "ledger_fact.search",
    } <= where, sorted(where)  # fmt: skip

    entity = Entity.objects.filter(owner=user, name__iexact=PERSON).first()
    if entity is not None:
        response = _api_for(client, user).post(f"/ledger/entities/{entity.public_id}/forget", {})
        assert response.status_code == 200, response.content
    else:
        call_command("ledger", "forget-person", PERSON, "--user", user.username, "--yes")
    assert chain.verify(user).ok

    left = _naming(everything() + _answers(client, user))
    assert not left, "\n".join(left)

    dates = wearables.recent_dates(user, 7)
    wearables.sync_enabled_sources(owner=user, dates=dates, force_memories=True)
    again = _naming(everything() + _answers(client, user))
    assert not again, "\n".join(again)


def _answers(client, user) -> list[tuple[str, str]]:
    """What search, recall and the memories list answer about her (dropped and rescuable memories included)."""
    from ledger.recall.services import recall_context
    from tests.conftest import _api_for

    api = _api_for(client, user)
    out = []
    for path, params in [
        ("/wearables/memories", {"limit": 500}),
        ("/wearables/transcripts/search", {"q": "Helen"}),
        ("/wearables/transcripts/search", {"q": "tomatoes fence"}),
    ]:
        response = api.get(path, params)
        assert response.status_code == 200, response.content
        body = response.json()
        out.append((path, json.dumps(body.get("hits") if isinstance(body, dict) else body)))
    for query in (f"who is {PERSON}?", "tomatoes over the fence", "neighbour garden"):
        out.append((f"recall {query}", recall_context(owner=user, query=query, feedback=False).block))
    return out
