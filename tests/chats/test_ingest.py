"""POST /api/v1/memory/ingest: every outcome token, idempotence per conversation, agent id canonicalisation."""

from __future__ import annotations

import pytest
from django.test import override_settings

from chats.models import ChatSession, ChatTurn
from ledger.models import Episode

pytestmark = pytest.mark.django_db

LONG_USER = "I need the export script to write CSV files into the reports folder every Monday morning."
LONG_AGENT = "Done: export.py now writes reports/weekly.csv and a cron entry runs it on Mondays at 07:00."


def _ingest(api, **kw):
    body = {"agent_id": "agent-1", "conversation_id": "conv-1", "turns": [{"user": LONG_USER, "assistant": LONG_AGENT}]}
    body.update(kw)
    return api.post("/memory/ingest", body)


def test_a_live_turn_is_stored_as_pending_signals_and_queued(api, user):
    r = _ingest(api)
    assert r.status_code == 200, r.content
    assert r.json()["outcome"] == "queued"
    assert r.json()["turns_added"] == 2
    assert ChatTurn.objects.filter(owner=user, distilled_at__isnull=True).count() == 2
    session = ChatSession.objects.get(owner=user)
    assert session.distill_due_at is not None


def test_flush_distils_and_reports_the_episode(api, user):
    r = _ingest(api, flush=True)
    body = r.json()
    assert body["outcome"] == "distilled"
    episode = Episode.objects.get(owner=user, public_id=body["episode_id"])
    assert "export script" in episode.summary
    assert ChatTurn.objects.filter(owner=user, distilled_at__isnull=True).count() == 0


def test_reingesting_the_same_turns_writes_nothing_and_keeps_the_outcome(api, user):
    _ingest(api, flush=True)
    again = _ingest(api)
    assert again.json()["outcome"] == "distilled"
    assert again.json()["turns_added"] == 0
    assert ChatTurn.objects.filter(owner=user).count() == 2


def test_appended_turns_insert_only_the_new_ones(api, user):
    _ingest(api, flush=True)
    turns = [{"user": LONG_USER, "assistant": LONG_AGENT}, {"user": "Also gzip them.", "assistant": "Gzipped."}]
    r = _ingest(api, turns=turns)
    assert r.json()["turns_added"] == 2
    assert r.json()["outcome"] == "queued"
    assert list(ChatTurn.objects.filter(owner=user).values_list("index", flat=True)) == [0, 1, 2, 3]


def test_a_changed_conversation_replaces_turns_and_episode(api, user):
    first = _ingest(api, flush=True).json()
    other = "Please rename the billing module to invoices and update every import that points at it."
    r = _ingest(api, turns=[{"user": other, "assistant": "Renamed billing to invoices across 14 files."}], flush=True)
    assert r.json()["outcome"] == "distilled"
    texts = list(ChatTurn.objects.filter(owner=user).values_list("text", flat=True))
    assert texts[0] == other and len(texts) == 2
    assert not Episode.objects.filter(public_id=first["episode_id"]).exists()


def test_low_novelty_is_skipped_with_the_character_count(api):
    r = _ingest(api, turns=[{"user": "thanks", "assistant": "you're welcome"}], flush=True)
    assert r.json()["outcome"] == "skipped:low_novelty:20chars"


def test_empty_turns_are_reported(api):
    assert _ingest(api, turns=[]).json()["outcome"] == "empty:no_turns"
    assert _ingest(api, turns=[{"user": "  ", "assistant": ""}]).json()["outcome"] == "empty:blank_turns"


def test_skip_extraction_stores_without_pending_signals(api, user):
    r = _ingest(api, skip_extraction=True)
    assert r.json()["outcome"] == "skipped:extraction_disabled"
    assert ChatTurn.objects.filter(owner=user).count() == 2
    assert ChatTurn.objects.filter(owner=user, distilled_at__isnull=True).count() == 0


def test_only_agent_text_has_no_signals(api):
    r = _ingest(api, turns=[{"assistant": LONG_AGENT + " " + LONG_AGENT}], flush=True)
    assert r.json()["outcome"] == "no_signals"


@override_settings(ALMANAC_CHATS_DISTILLER="llm", ALMANAC_LLM_BASE_URL="", ALMANAC_LLM_MODEL="")
def test_llm_distiller_without_a_model_uses_the_deterministic_digest(api, user):
    r = _ingest(api, flush=True)  # issue 25: the deterministic digest behind the model, never parked or lost
    assert r.json()["outcome"] == "distilled"
    assert ChatTurn.objects.filter(owner=user, distilled_at__isnull=True).count() == 0


def test_uuid_agent_ids_are_canonicalised(api, user):
    _ingest(api, agent_id="{6F9619FF-8B86-D011-B42D-00C04FC964FF}")
    _ingest(api, agent_id="6f9619ff8b86d011b42d00c04fc964ff", conversation_id="conv-2")
    ids = set(ChatSession.objects.filter(owner=user).values_list("agent_id", flat=True))
    assert ids == {"6f9619ff-8b86-d011-b42d-00c04fc964ff"}


def test_bad_input_is_422_not_500(api):
    r = api.post("/memory/ingest", {"conversation_id": "", "turns": []})
    assert r.status_code == 422
    assert "detail" in r.json()
    r = api.post("/memory/ingest", {"conversation_id": "c", "turns": [{"user": 5}]})
    assert r.status_code == 422


def test_conversations_are_private_to_their_owner(api, other_api, user):
    _ingest(api, flush=True)
    assert other_api.get("/memory/ingest/conv-1").status_code == 422
    assert other_api.get("/chats/sessions").json() == []
    assert api.get("/memory/ingest/conv-1").json()["outcome"] == "distilled"


def test_secrets_are_redacted_before_storage(api, user):
    _ingest(api, turns=[{"user": "My email is jane.doe@example.com, store the key sk-abcdefghijklmnopqrstuvwx " * 2}])
    text = ChatTurn.objects.get(owner=user, role="user").text
    assert "jane.doe@example.com" not in text
