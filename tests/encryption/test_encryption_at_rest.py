"""Encryption at rest (ALMANAC_ENCRYPTION_KEY): what the database holds is ciphertext, what users see is text.

Each test reads the columns with raw SQL (what a stolen disk or dump shows) and the same data through the
pages, the API, recall and search (what the owner sees).
"""

from __future__ import annotations

import io
import json
import zipfile
from datetime import UTC, datetime

import pytest
from cryptography.fernet import Fernet
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import connection

from accounts import crypto
from accounts.models import DataKey
from chats.models import ChatTurn
from chats.services.ingest import ingest
from ledger import chain
from ledger.models import Commit, Evidence
from screen.models import Assertion, EventEvidence, ScreenEvent, Signal
from screen.services.store import AssertionDraft, EventDraft, attach_evidence, create_event
from tests.factories import EvidenceInFactory, FactFactory, UtteranceFactory
from wearables.models import Utterance
from wearables.queries import search_utterances

pytestmark = pytest.mark.django_db

SECRET_TURN = "The gate code for the allotment is heron seven"
SECRET_CHAT = "Remember that my sister's birthday dinner is at Casa Lupita"
SECRET_QUOTE = "I keep the spare key under the blue planter"
SECRET_OCR = "Invoice 8841 approved by Marisol"


def _key() -> str:
    return Fernet.generate_key().decode()


@pytest.fixture
def key(settings):
    k = _key()
    settings.ALMANAC_ENCRYPTION_KEY = [k]
    return k


def _raw(sql: str, params=()) -> str:
    with connection.cursor() as cur:
        cur.execute(sql, params)
        return "\n".join(str(r[0]) for r in cur.fetchall())


def _event(user):
    at = datetime(2026, 6, 8, 18, 40, tzinfo=UTC)
    draft = EventDraft(
        key="enc",
        event_type="work.invoice_approved",
        started_at=at,
        ended_at=at,
        title="Invoice approved",
        outcome="approved",
        status=ScreenEvent.Status.CONFIRMED,
        assertions=[
            AssertionDraft(
                "Invoice approved",
                Assertion.ContentRole.SYSTEM_OUTPUT,
                0.9,
                [{"kind": "ocr", "frame_id": 7, "excerpt": SECRET_OCR}],
            )
        ],
    )
    event, _ = create_event(owner=user, draft=draft)
    attach_evidence(event=event, role="outcome", at=at, excerpt=SECRET_OCR, frame_id=7)
    Signal.objects.create(
        owner=user, kind="text_changed", key="s1", occurred_at=at, data={"added": [SECRET_OCR], "n": 1}
    )
    return event


def _seed(user):
    UtteranceFactory(conversation__owner=user, conversation__transcript__owner=user, owner=user, text=SECRET_TURN)
    ingest(owner=user, agent_id="", conversation_id="c1", turns=[{"user": SECRET_CHAT, "assistant": "Noted."}])
    FactFactory(owner=user, content="Where the spare key is kept", evidence=[EvidenceInFactory(quote=SECRET_QUOTE)])
    return _event(user)


def _everything_raw() -> str:
    return "\n".join(
        [
            _raw("SELECT text FROM wearables_utterance"),
            _raw("SELECT text FROM chats_chatturn"),
            _raw("SELECT quote FROM ledger_evidence"),
            _raw("SELECT mutations::text FROM ledger_commit"),
            _raw("SELECT excerpt FROM screen_eventevidence"),
            _raw("SELECT evidence::text FROM screen_assertion"),
            _raw("SELECT data::text FROM screen_signal"),
        ]
    )


def test_with_a_key_no_column_holds_the_plaintext_and_every_read_shows_it(key, user, api, auth_client):
    event = _seed(user)
    stored = _everything_raw()
    for secret in (SECRET_TURN, SECRET_CHAT, SECRET_QUOTE, SECRET_OCR, "heron", "Lupita", "planter", "8841"):
        assert secret not in stored
    assert stored.count(crypto.PREFIX) >= 7
    assert key not in stored and key not in _raw("SELECT wrapped FROM accounts_datakey")

    # The ORM, the API and the pages show the text.
    assert Utterance.objects.get(owner=user).text == SECRET_TURN
    assert ChatTurn.objects.filter(owner=user, role="user").get().text == SECRET_CHAT
    assert Evidence.objects.get(owner=user).quote == SECRET_QUOTE
    assert Signal.objects.get(owner=user).data == {"added": [SECRET_OCR], "n": 1}
    detail = api.get(f"/screen/events/{event.public_id}").json()
    assert SECRET_OCR in json.dumps(detail)
    page = auth_client.get("/transcripts/", {"date": Utterance.objects.get().transcript.local_date.isoformat()})
    assert SECRET_TURN in page.content.decode()

    # The chain hashes the plaintext: it verifies, and a rebuild finds the projection identical.
    assert chain.verify(user).ok
    assert chain.rebuild(user, write=False).identical_before
    payloads = [m.get("payload") or {} for c in Commit.objects.filter(owner=user) for m in c.mutations]
    assert SECRET_QUOTE in [p.get("quote") for p in payloads]


def test_search_and_recall_still_find_encrypted_text(key, user, api, auth_client):
    _seed(user)
    found = api.get("/wearables/transcripts/search", {"q": "allotment gate"}).json()
    assert found["mode"] == "indexed"
    assert [h["text"] for h in found["hits"]] == [SECRET_TURN]
    assert "<mark>allotment</mark>" in found["hits"][0]["snippet"]
    # Stemmed: "allotments" finds "allotment".
    assert api.get("/wearables/transcripts/search", {"q": "allotments"}).json()["hits"]
    # The substring fallback scan runs in Python over the decrypted text.
    scan = api.get("/wearables/transcripts/search", {"q": "hero"}).json()
    assert scan["mode"] == "scan" and [h["text"] for h in scan["hits"]] == [SECRET_TURN]
    page = auth_client.get("/transcripts/search/", {"q": "allotment"}).content.decode()
    assert "heron seven" in page
    recall = api.get("/memory/search", {"q": "Casa Lupita birthday dinner", "scope": "transcript"}).json()
    assert any("Casa Lupita" in json.dumps(i) for i in recall["items"]), recall
    recall = api.get("/memory/search", {"q": "allotment gate code", "scope": "transcript"}).json()
    assert any("heron seven" in json.dumps(i) for i in recall["items"]), recall


def test_the_search_vector_equals_what_postgresql_would_generate(key, user):
    _seed(user)
    same = _raw("SELECT bool_and(search = to_tsvector('english', %s)) FROM wearables_utterance", [SECRET_TURN])
    assert same == "True"
    turn = ChatTurn.objects.get(owner=user, role="user")
    ChatTurn.objects.filter(pk=turn.pk).update(text="changed words only")  # an update() without the vector ...
    turn.text = "Kayak lessons on Thursday"
    turn.save()  # ... and a save() that recomputes it
    assert (
        _raw("SELECT search::text FROM chats_chatturn WHERE id = %s", [turn.pk]) == "'kayak':1 'lesson':2 'thursday':4"
    )


def test_the_day_markdown_and_tool_calls_are_encrypted(key, user):
    from tests.factories import DayTranscriptFactory

    day = DayTranscriptFactory(source__owner=user, markdown=f"**Me**: {SECRET_TURN}")
    assert SECRET_TURN not in _raw("SELECT markdown FROM wearables_daytranscript")
    assert SECRET_TURN in type(day).objects.get(pk=day.pk).markdown
    ingest(owner=user, agent_id="", conversation_id="tools", turns=[{"user": "run it", "assistant": "ok"}])
    turn = ChatTurn.objects.get(owner=user, role="assistant")
    turn.tool_calls = [{"name": "shell", "input": {"cmd": "cat heron.txt"}}]
    turn.save()
    assert "heron.txt" not in _raw("SELECT tool_calls::text FROM chats_chatturn")
    assert ChatTurn.objects.get(pk=turn.pk).tool_calls[0]["input"]["cmd"] == "cat heron.txt"


def test_legacy_plaintext_rows_read_and_encrypt_existing_encrypts_them_once(user, settings):
    _seed(user)  # written with no key: plaintext, as before
    stored = _everything_raw()
    assert SECRET_TURN in stored and SECRET_QUOTE in stored and crypto.PREFIX not in stored
    settings.ALMANAC_ENCRYPTION_KEY = [_key()]
    assert Utterance.objects.get(owner=user).text == SECRET_TURN  # legacy rows still read
    out = io.StringIO()
    call_command("encryption", "encrypt-existing", "--batch", "2", stdout=out)
    assert "wearables.Utterance.text: 1 rows encrypted" in out.getvalue()
    stored = _everything_raw()
    for secret in (SECRET_TURN, SECRET_CHAT, SECRET_QUOTE, SECRET_OCR):
        assert secret not in stored
    again = io.StringIO()
    call_command("encryption", "encrypt-existing", stdout=again)  # idempotent
    assert all(line.endswith(": 0 rows encrypted") for line in again.getvalue().splitlines())
    status = io.StringIO()
    call_command("encryption", "status", stdout=status)
    lines = {line.split()[0]: line.split() for line in status.getvalue().splitlines()[2:]}
    assert lines["wearables.Utterance.text"][1:] == ["encrypted", "1", "plaintext", "0"]
    assert "key check: ok" in status.getvalue() and settings.ALMANAC_ENCRYPTION_KEY[0] not in status.getvalue()
    assert Utterance.objects.get(owner=user).text == SECRET_TURN
    assert chain.verify(user).ok and chain.rebuild(user, write=False).identical_before


def test_rotation_rewraps_the_data_key_and_the_old_key_can_go(key, user, settings, api):
    _seed(user)
    before = _raw("SELECT text FROM wearables_utterance")
    new = _key()
    settings.ALMANAC_ENCRYPTION_KEY = [new, key]
    out = io.StringIO()
    call_command("encryption", "rotate", stdout=out)
    assert crypto.fingerprint(new) in out.getvalue() and new not in out.getvalue() and key not in out.getvalue()
    assert DataKey.objects.get().kek_fingerprint == crypto.fingerprint(new)
    settings.ALMANAC_ENCRYPTION_KEY = [new]  # the old key is removed
    assert _raw("SELECT text FROM wearables_utterance") == before  # no row was re-encrypted
    assert Utterance.objects.get(owner=user).text == SECRET_TURN
    assert Evidence.objects.get(owner=user).quote == SECRET_QUOTE
    assert chain.verify(user).ok and chain.rebuild(user, write=False).identical_before
    assert api.get("/wearables/transcripts/search", {"q": "allotment"}).json()["hits"]
    settings.ALMANAC_ENCRYPTION_KEY = [key]  # the old key alone no longer opens anything
    with pytest.raises(crypto.EncryptionUnavailable, match="does not unlock"):
        Utterance.objects.get(owner=user).text  # noqa: B018


def test_a_wrong_or_missing_key_is_one_clear_error_without_the_key(key, user, settings, api, auth_client, caplog):
    _seed(user)
    wrong = _key()
    settings.ALMANAC_ENCRYPTION_KEY = [wrong]
    with pytest.raises(crypto.EncryptionUnavailable) as exc:
        list(Utterance.objects.filter(owner=user))
    assert "does not unlock the stored data key" in str(exc.value)
    assert wrong not in str(exc.value) and key not in str(exc.value)
    r = api.get("/wearables/transcripts/search", {"q": "allotment"})
    assert r.status_code == 503 and "ALMANAC_ENCRYPTION_KEY" in r.json()["detail"]
    assert wrong not in r.content.decode() and key not in r.content.decode()
    page = auth_client.get("/transcripts/search/", {"q": "allotment"})
    assert page.status_code == 503 and "does not unlock" in page.content.decode()
    assert "does not unlock" in caplog.text and wrong not in caplog.text and key not in caplog.text
    with pytest.raises(CommandError, match="does not unlock"):
        call_command("encryption", "status", stdout=io.StringIO())

    settings.ALMANAC_ENCRYPTION_KEY = []
    with pytest.raises(crypto.EncryptionUnavailable, match="is not set"):
        Evidence.objects.get(owner=user).quote  # noqa: B018
    settings.ALMANAC_ENCRYPTION_KEY = ["not-a-key"]
    with pytest.raises(crypto.EncryptionUnavailable, match="entry 1 is not a valid key") as exc:
        Utterance.objects.get(owner=user).text  # noqa: B018
    assert "not-a-key" not in str(exc.value)


def test_without_a_key_nothing_changes(user, api):
    _seed(user)
    assert _raw("SELECT text FROM wearables_utterance") == SECRET_TURN
    assert SECRET_QUOTE in _raw("SELECT quote FROM ledger_evidence")
    assert not DataKey.objects.exists()
    assert api.get("/wearables/transcripts/search", {"q": "allotment"}).json()["hits"][0]["text"] == SECRET_TURN


def test_decrypt_all_writes_plaintext_back(key, user):
    _seed(user)
    call_command("encryption", "decrypt-all", stdout=io.StringIO())
    stored = _everything_raw()
    assert SECRET_TURN in stored and SECRET_QUOTE in stored and SECRET_OCR in stored and crypto.PREFIX not in stored
    assert chain.verify(user).ok


def test_export_and_import_round_trip_with_encryption_on(key, user, tmp_path):
    _seed(user)
    path = tmp_path / "alice.zip"
    call_command("export", "alice", str(path), stdout=io.StringIO())
    with zipfile.ZipFile(path) as archive:
        assert SECRET_QUOTE in archive.read("commits.jsonl").decode()  # the export is the owner's plaintext copy
    get_user_model().objects.filter(pk=user.pk).delete()
    out = io.StringIO()
    call_command("import", str(path), stdout=out)
    assert "ledger verify: ok" in out.getvalue()
    restored = get_user_model().objects.get(username="alice")
    assert SECRET_TURN not in _raw("SELECT text FROM wearables_utterance")
    assert SECRET_QUOTE not in _raw("SELECT mutations::text FROM ledger_commit")
    assert Utterance.objects.get(owner=restored).text == SECRET_TURN
    assert Evidence.objects.get(owner=restored).quote == SECRET_QUOTE
    assert EventEvidence.objects.get(owner=restored).excerpt == SECRET_OCR
    hits = search_utterances(restored, "allotment").hits  # vectors recomputed from the plaintext on restore
    assert [h["text"] for h in hits] == [SECRET_TURN]
    assert chain.verify(restored).ok and chain.rebuild(restored, write=False).identical_before


def test_forgetting_a_person_still_finds_them_in_encrypted_quotes_and_turns(key, user):
    from ledger.forget.services import forget_person_names

    UtteranceFactory(
        owner=user, conversation__owner=user, conversation__transcript__owner=user, text="Lena Varga called"
    )
    FactFactory(owner=user, content="The boiler was serviced", evidence=[EvidenceInFactory(quote="Lena Varga said so")])
    forget_person_names(owner=user, names=["Lena Varga"])
    assert "Lena" not in " ".join(Evidence.objects.filter(owner=user).values_list("quote", flat=True))
    assert "Lena" not in " ".join(Utterance.objects.filter(owner=user).values_list("text", flat=True))


def test_frame_images_are_encrypted_and_served_as_they_were(key, user, auth_client):
    from screen.models import ScreenFrame

    jpeg = b"\xff\xd8\xff\xe0" + b"Marisol approved invoice 8841" + bytes(range(256))
    frame = ScreenFrame.objects.create(owner=user, frame_id=7, captured_at=datetime.now(UTC), image=jpeg)
    with connection.cursor() as cur:
        cur.execute("SELECT image FROM screen_screenframe WHERE id = %s", [frame.pk])
        stored = bytes(cur.fetchone()[0])
    assert stored.startswith(crypto.PREFIX.encode()) and b"Marisol" not in stored and b"\xff\xd8" not in stored
    r = auth_client.get(f"/timeline/frames/{frame.pk}/")
    assert r.status_code == 200 and r.content == jpeg
    call_command("encryption", "decrypt-all", stdout=io.StringIO())
    assert _raw("SELECT encode(image, 'escape') FROM screen_screenframe").find("Marisol") > 0  # plaintext again
    out = io.StringIO()
    call_command("encryption", "encrypt-existing", stdout=out)
    assert "screen.ScreenFrame.image: 1 rows encrypted" in out.getvalue()
    assert ScreenFrame.objects.get(pk=frame.pk).image == jpeg
