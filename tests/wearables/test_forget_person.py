"""Forgetting a person end to end: ledger, transcripts, search, recall, and a forced re-sync afterwards.

Against the local imitation servers (real wire formats), with names not in the development data.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from ledger import chain, services
from ledger.models import Entity, Evidence, Fact, Refusal
from ledger.recall.services import recall_context
from tests.factories import EvidenceInFactory
from tests.wearables.conftest import connect
from tests.wearables.days import conversation, day
from wearables import queries
from wearables import services as wearables
from wearables.models import DayTranscript, Utterance
from wearables.services.memories import run_memory_pass

pytestmark = pytest.mark.django_db

DAY = date(2026, 8, 3)
LINES = [
    ("Lena Varga", False, "My kiln finally reached temperature, so the blue vases are glazed."),
    ("user", True, "Thanks Lena, I will pick up the blue vases on Friday."),
    ("Lena Varga", False, "Lena Varga always delivers on time, tell everyone."),
    ("user", True, "I promised Lena I would bring the crates back by Sunday."),
    ("Oskar", False, "The crates are stacked behind the workshop."),
]


def the_day():
    return day(
        DAY.isoformat(), "UTC", {"limitless": [conversation("gl-1", datetime(2026, 8, 3, 14, tzinfo=UTC), LINES)]}
    )


def _texts(user):
    return list(Utterance.objects.filter(owner=user).order_by("index").values_list("speaker_name", "text"))


def test_forgetting_a_person_removes_them_everywhere_and_a_forced_resync_brings_nothing_back(
    user, api, serve, django_capture_on_commit_callbacks
):
    servers = serve([the_day()])
    connect(user, servers, "limitless")
    wearables.sync(owner=user, source="limitless", dates=[DAY])
    assert any("Lena" in t for _, t in _texts(user))
    run_memory_pass(transcript=DayTranscript.objects.get(owner=user))
    services.propose_fact(
        owner=user,
        content="Lena Varga runs a glass studio with a wood-fired kiln",
        subject="third_party",
        person="Lena Varga",
        status="accepted",
        source_label="agent:mcp",
        evidence=EvidenceInFactory(source_label="agent:mcp", quote="Lena Varga runs a glass studio"),
    )
    lena = Entity.objects.get(owner=user, name="Lena Varga")
    assert queries.search_utterances(user, "Lena").hits

    resp = api.post(f"/ledger/entities/{lena.public_id}/forget", {})
    assert resp.status_code == 200, resp.content
    body = resp.json()
    assert body["verify_ok"] and body["facts"] >= 1 and body["copies"]["utterances_removed"] == 2

    assert not Entity.objects.filter(owner=user, name__icontains="lena").exists()
    assert not Fact.objects.filter(owner=user, content__icontains="lena").exists()
    assert not Evidence.objects.filter(owner=user, quote__icontains="lena").exists()
    texts = _texts(user)
    assert texts and not any("lena" in (s + t).lower() for s, t in texts)
    assert ("Alice Example (you)", "Thanks [forgotten], I will pick up the blue vases on Friday.") in texts
    assert not queries.search_utterances(user, "Lena").hits
    assert "lena" not in DayTranscript.objects.get(owner=user).markdown.lower()
    assert "lena" not in recall_context(owner=user, query="who is Lena Varga?", feedback=False).block.lower()
    assert Refusal.objects.filter(owner=user, kind="forgotten_entity").exists()
    assert chain.verify(user).ok

    # A forced re-sync of the same provider data writes nothing about her (nor anything at all).
    stored = DayTranscript.objects.get(owner=user)
    with django_capture_on_commit_callbacks(execute=False):
        run = wearables.sync(owner=user, source="limitless", dates=[DAY], force_memories=True)
    assert run.days_changed == 0
    assert DayTranscript.objects.get(pk=stored.pk).content_hash == stored.content_hash
    report = run_memory_pass(transcript=DayTranscript.objects.get(owner=user))
    assert not any("lena" in f.lower() for f in Fact.objects.filter(owner=user).values_list("content", flat=True))
    assert not Entity.objects.filter(owner=user, name__icontains="lena").exists()
    assert report is not None

    # Other sources cannot bring her back either.
    again = services.propose_fact(
        owner=user,
        content="Lena Varga is opening a second studio",
        subject="third_party",
        person="Lena Varga",
        source_label="chat:test",
        evidence=EvidenceInFactory(source_label="chat:test"),
    )
    assert again.outcome == "refused"
    assert not Entity.objects.filter(owner=user, name__icontains="lena").exists()


def test_forget_person_command_by_name(user, serve):
    from django.core.management import call_command

    services.ensure_entity(owner=user, name="Mirela Daskalova")
    services.propose_fact(
        owner=user,
        content="Mirela Daskalova teaches the pottery class",
        subject="third_party",
        person="Mirela Daskalova",
        source_label="agent:mcp",
        evidence=EvidenceInFactory(source_label="agent:mcp"),
    )
    call_command("ledger", "forget-person", "Mirela Daskalova", "--user", user.username, "--yes")
    assert not Fact.objects.filter(owner=user).exists()
    assert not Entity.objects.filter(owner=user).exists()
    assert chain.verify(user).ok
