"""Export a user's whole memory and restore it into an empty instance: the chain verifies, the projection equals
the exported one, transcripts and settings come back, keys do not travel, and a refused restore writes nothing."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from ledger import chain
from ledger import services as ledger_services
from ledger.forget.services import forget
from ledger.models import Commit, Fact
from tests.factories import ConversationFactory, FactFactory, UtteranceFactory
from wearables.models import Source, Utterance

pytestmark = pytest.mark.django_db


def _memory(user) -> dict:
    facts = sorted((str(f.public_id), f.status, f.content) for f in Fact.objects.filter(owner=user))
    turns = sorted((u.conversation.external_id, u.index, u.text) for u in Utterance.objects.filter(owner=user))
    return {"facts": facts, "turns": turns, "head": chain.head(user).head_commit_id}


def _seed(user) -> None:
    FactFactory(owner=user, content="I moved to Porto in March")
    pending = FactFactory(owner=user, content="Rui likes sardines", pending=True)
    ledger_services.decide(owner=user, fact=pending, status="rejected", author="user", reason="wrong")
    forgotten = FactFactory(owner=user, content="My locker code is 4411")
    forget(owner=user, fact=forgotten, author="user")
    source = Source.objects.create(owner=user, kind="limitless", enabled=True, credentials={"api_key": "lim-SECRET"})
    UtteranceFactory(conversation=ConversationFactory(transcript__source=source), text="the tomatoes are ripe")


def test_export_then_restore_into_an_empty_instance_verifies_and_matches(user, tmp_path):
    _seed(user)
    before = _memory(user)
    assert len(before["facts"]) >= 2 and before["turns"]
    path = tmp_path / "alice.zip"
    call_command("export", "alice", str(path))
    with zipfile.ZipFile(path) as archive:
        manifest = json.loads(archive.read("manifest.json"))
        commits = archive.read("commits.jsonl").decode().splitlines()
        sources = archive.read("rows/wearables.Source.jsonl").decode()
    assert manifest["commits"] == len(commits) >= 4
    assert "lim-SECRET" not in sources  # provider keys stay where they were entered
    assert "4411" not in "\n".join(commits)  # a forgotten fact stays forgotten in the export

    get_user_model().objects.filter(pk=user.pk).delete()  # an empty instance
    assert not Commit.objects.exists()
    out = io.StringIO()
    call_command("import", str(path), stdout=out)
    restored = get_user_model().objects.get(username="alice")
    assert "ledger verify: ok" in out.getvalue()
    assert chain.verify(restored).ok
    assert chain.rebuild(restored, write=False).identical_before
    assert _memory(restored) == before
    assert Source.objects.get(owner=restored, kind="limitless").credentials in ({}, None)


def test_pinned_facts_come_back_pinned_to_the_restored_facts(user, tmp_path):
    from ledger.models import PinnedFact
    from ledger.services import layers

    fact = FactFactory(owner=user, content="I keep bees on the allotment")
    layers.pin_fact(owner=user, fact=Fact.objects.get(owner=user, public_id=fact.public_id), salience=0.8)
    path = tmp_path / "alice.zip"
    call_command("export", "alice", str(path))
    get_user_model().objects.filter(pk=user.pk).delete()
    call_command("import", str(path), stdout=io.StringIO())
    restored = get_user_model().objects.get(username="alice")
    pin = PinnedFact.objects.get(owner=restored)
    assert (pin.fact.public_id, pin.fact.content, pin.salience) == (fact.public_id, "I keep bees on the allotment", 0.8)


def test_restore_refuses_an_account_that_already_has_memory_and_writes_nothing(user, tmp_path):
    _seed(user)
    path = tmp_path / "alice.zip"
    call_command("export", "alice", str(path))
    commits = Commit.objects.count()
    with pytest.raises(CommandError, match="already has memory"):
        call_command("import", str(path))
    assert Commit.objects.count() == commits


def test_restore_refuses_a_file_that_is_not_an_export(tmp_path, db):
    path = tmp_path / "junk.zip"
    path.write_bytes(b"not a zip")
    with pytest.raises(CommandError, match="not an Almanac export"):
        call_command("import", str(path))
    assert not get_user_model().objects.exists()


def test_export_to_a_full_disk_fails_clearly_and_leaves_no_file(user, tmp_path, monkeypatch):
    from pathlib import Path

    def full(self, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", full)
    target = tmp_path / "alice.zip"
    with pytest.raises(CommandError, match="No space left"):
        call_command("export", "alice", str(target))
    assert list(tmp_path.iterdir()) == []


def test_settings_page_offers_the_export_as_a_download(auth_client, user):
    FactFactory(owner=user, content="I drink oolong")
    page = auth_client.get("/settings/")
    assert b'href="/settings/export/"' in page.content
    response = auth_client.get("/settings/export/")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert "attachment" in response["Content-Disposition"]
    with zipfile.ZipFile(
        io.BytesIO(b"".join(response.streaming_content if response.streaming else [response.content]))
    ) as z:
        assert json.loads(z.read("manifest.json"))["username"] == "alice"


def test_another_users_export_is_not_reachable(client, other_user, user):
    client.force_login(other_user)
    FactFactory(owner=user, content="alice secret oolong")
    response = client.get("/settings/export/")
    with zipfile.ZipFile(io.BytesIO(response.content)) as z:
        assert "oolong" not in z.read("commits.jsonl").decode()
