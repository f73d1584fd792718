"""The encrypted fields round-trip any text and JSON through the database, and store none of it in the clear."""

from __future__ import annotations

import uuid

import pytest
from cryptography.fernet import Fernet
from django.core import checks
from django.db import connection
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from accounts import crypto
from accounts.checks import encryption_key_check
from screen.models import Signal
from tests.factories import UtteranceFactory
from wearables.models import Utterance

pytestmark = pytest.mark.django_db

KEY = Fernet.generate_key().decode()
TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=300)
LINES = st.lists(TEXT, max_size=5)


@pytest.fixture
def keyed(settings):
    settings.ALMANAC_ENCRYPTION_KEY = [KEY]


def _stored(sql, pk):
    with connection.cursor() as cur:
        cur.execute(sql, [pk])
        return cur.fetchone()[0]


@hsettings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT)
def test_any_text_round_trips_and_is_stored_encrypted(keyed, user, text):
    u = UtteranceFactory(owner=user, conversation__owner=user, conversation__transcript__owner=user, text=text)
    stored = _stored("SELECT text FROM wearables_utterance WHERE id = %s", u.pk)
    assert Utterance.objects.get(pk=u.pk).text == text
    assert stored == "" if text == "" else stored.startswith(crypto.PREFIX)


@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(added=LINES, other=TEXT)
def test_json_values_under_encrypted_keys_round_trip_and_the_rest_stays_queryable(keyed, user, added, other):
    from datetime import UTC, datetime

    s = Signal.objects.create(
        owner=user, kind="text_changed", key=uuid.uuid4().hex, occurred_at=datetime.now(UTC),
        data={"added": added, "label": other},
    )  # fmt: skip
    assert Signal.objects.get(pk=s.pk).data == {"added": added, "label": other}
    stored = _stored("SELECT data->>'added' FROM screen_signal WHERE id = %s", s.pk)
    assert stored.startswith(crypto.PREFIX)
    assert Signal.objects.filter(pk=s.pk, data__label=other).exists()  # keys not listed stay plain JSON


def test_the_startup_check_names_a_key_that_cannot_read_the_data(settings, user):
    settings.ALMANAC_ENCRYPTION_KEY = [KEY]
    UtteranceFactory(owner=user, conversation__owner=user, conversation__transcript__owner=user, text="hello")
    assert encryption_key_check(databases=["default"]) == []
    wrong = Fernet.generate_key().decode()
    settings.ALMANAC_ENCRYPTION_KEY = [wrong]
    errors = encryption_key_check(databases=["default"])
    assert [e.id for e in errors] == ["accounts.E001"] and errors[0].level == checks.ERROR
    assert "does not unlock" in errors[0].msg and wrong not in errors[0].msg and KEY not in errors[0].msg
    settings.ALMANAC_ENCRYPTION_KEY = []
    assert "is not set" in encryption_key_check(databases=["default"])[0].msg


def test_a_tampered_ciphertext_is_an_error_not_garbage(settings, user):
    settings.ALMANAC_ENCRYPTION_KEY = [KEY]
    u = UtteranceFactory(owner=user, conversation__owner=user, conversation__transcript__owner=user, text="hello")
    with connection.cursor() as cur:
        cur.execute("UPDATE wearables_utterance SET text = left(text, -4) || 'AAAA' WHERE id = %s", [u.pk])
    with pytest.raises(crypto.EncryptionUnavailable, match="altered or corrupt"):
        Utterance.objects.get(pk=u.pk).text  # noqa: B018


def test_a_data_key_made_in_a_rolled_back_transaction_is_not_used_afterwards(settings, user):
    from django.db import transaction

    from accounts.models import DataKey

    settings.ALMANAC_ENCRYPTION_KEY = [KEY]
    with pytest.raises(RuntimeError), transaction.atomic():
        UtteranceFactory(owner=user, conversation__owner=user, conversation__transcript__owner=user, text="gone")
        assert DataKey.objects.count() == 1
        raise RuntimeError("roll back the first write and the data key made for it")
    assert not DataKey.objects.exists()
    u = UtteranceFactory(owner=user, conversation__owner=user, conversation__transcript__owner=user, text="kept")
    assert DataKey.objects.count() == 1
    crypto._reset()  # what another process sees: only the stored, wrapped data key
    assert Utterance.objects.get(pk=u.pk).text == "kept"
