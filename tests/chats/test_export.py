"""A user's chats survive ``manage.py export`` → ``manage.py import`` into an empty instance: conversations,
their turns (distilled and pending), the episode link and import records come back with the same ids, and the
restored ledger still verifies with the same projection."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from chats.models import ChatSession, ChatTurn, ImportedFile
from ledger import chain
from ledger.models import Commit, Episode

pytestmark = pytest.mark.django_db

DONE = [{"user": "Move the nightly backup of the wiki to the NAS and keep thirty days of copies.",
         "assistant": "Done: a timer now copies the wiki dump to /mnt/nas/wiki at 03:00, pruning after 30 days."}]  # fmt: skip
LIVE = [{"user": "Draft a packing list for the canoe trip on the Tarn next weekend.",
         "assistant": "Tent, dry bags, two paddles, headlamp, water filter and a spare rope."}]  # fmt: skip


def _chats(user) -> dict:
    sessions = ChatSession.objects.filter(owner=user).order_by("pk")
    turns = ChatTurn.objects.filter(owner=user).order_by("session_id", "index")
    return {
        "sessions": [
            (s.pk, str(s.public_id), s.external_id, s.status, str(s.episode_id_ref), s.turn_count, s.content_hash)
            for s in sessions
        ],
        "turns": [(t.session_id, t.index, t.role, t.text, t.distilled_at is None) for t in turns],
        "files": list(ImportedFile.objects.filter(owner=user).values_list("path", "mtime")),
        "episodes": sorted(str(p) for p in Episode.objects.filter(owner=user).values_list("public_id", flat=True)),
    }


def test_a_conversation_and_its_turns_round_trip_through_export_and_import(api, user, tmp_path):
    assert api.post("/memory/ingest", {"conversation_id": "backup", "turns": DONE, "flush": True}).json()[
        "outcome"] == "distilled"  # fmt: skip
    assert api.post("/memory/ingest", {"conversation_id": "canoe", "turns": LIVE}).json()["outcome"] == "queued"
    ImportedFile.objects.create(
        owner=user, path="/home/alice/.claude/projects/x.jsonl", format="claude-code", mtime=1.5
    )
    before = _chats(user)
    assert before["episodes"] and len(before["turns"]) == 4
    digest = chain.rebuild(user, write=False).digest

    path = tmp_path / "alice.zip"
    call_command("export", "alice", str(path))
    with zipfile.ZipFile(path) as archive:
        manifest = json.loads(archive.read("manifest.json"))
        turn_rows = [json.loads(line) for line in archive.read("rows/chats.ChatTurn.jsonl").decode().splitlines()]
    assert manifest["rows"]["chats.ChatSession"] == 2 and manifest["rows"]["chats.ChatTurn"] == 4
    assert all("search" not in r["fields"] for r in turn_rows)  # the search vector is the database's to compute

    get_user_model().objects.filter(pk=user.pk).delete()  # an empty instance
    assert not ChatTurn.objects.exists() and not Commit.objects.exists()
    out = io.StringIO()
    call_command("import", str(path), stdout=out)
    restored = get_user_model().objects.get(username="alice")
    assert "ledger verify: ok" in out.getvalue()
    assert chain.verify(restored).ok
    assert chain.rebuild(restored, write=False).digest == digest
    assert _chats(restored) == before
    assert ChatTurn.objects.filter(owner=restored, search="packing").count() == 1  # searchable again
    # The restored conversation keeps working: re-sending it adds nothing, a new turn pair is appended after it.
    from chats.services.ingest import ingest

    assert ingest(owner=restored, agent_id="", conversation_id="canoe", turns=LIVE).added == 0
    more = LIVE + [{"user": "Add sunscreen.", "assistant": "Added sunscreen to the list."}]
    assert ingest(owner=restored, agent_id="", conversation_id="canoe", turns=more).added == 2
    assert ChatTurn.objects.filter(owner=restored, session__external_id="canoe").count() == 4
