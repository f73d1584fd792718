"""The speaker registry and per-conversation corrections, applied to stored days."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from tests.wearables.conftest import connect
from tests.wearables.days import conversation, day
from wearables import services
from wearables.models import Conversation, Utterance
from wearables.services.speakers import is_stable_label

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("kind", "label", "stable"),
    [("limitless", "Marcus", True), ("limitless", "Unknown", False), ("limitless", "Speaker 2", False),
     ("omi", "SPEAKER_01", False), ("omi", "person-8f2", True), ("bee", "0", False), ("bee", "Marcus", False)],
)  # fmt: skip
def test_only_stable_identities_can_be_mapped_everywhere(kind, label, stable):
    assert is_stable_label(kind, label) is stable


def test_a_registry_mapping_applies_to_every_day_where_the_name_appears(user, serve):
    convs = {
        d: [
            conversation(
                f"ll-{d}",
                datetime(2026, 6, d, 15, tzinfo=UTC),
                [("Marcus", False, "Hello there friend."), ("user", True, "Hi Marcus, good to see you.")],
            )
        ]
        for d in (8, 9)
    }
    servers = serve([day(f"2026-06-0{d}", "UTC", {"limitless": c}) for d, c in convs.items()])
    connect(user, servers, "limitless")
    services.sync(owner=user, source="limitless", dates=[date(2026, 6, 8), date(2026, 6, 9)])
    services.set_speaker(owner=user, kind="limitless", label="Marcus", name="Marcus Bell")
    names = set(Utterance.objects.filter(owner=user, is_wearer=False).values_list("speaker_name", flat=True))
    assert names == {"Marcus Bell"}
    assert Utterance.objects.filter(owner=user, person__name="Marcus Bell").count() == 2
    # A later sync keeps the mapping.
    services.sync(owner=user, source="limitless", dates=[date(2026, 6, 8)])
    assert set(Utterance.objects.filter(owner=user, is_wearer=False).values_list("speaker_name", flat=True)) == {
        "Marcus Bell"
    }


def test_a_per_conversation_this_is_me_wins_and_survives_resync(user, serve):
    lines = [("0", False, "Morning! Coffee?"), ("1", True, "Yes please, a large one with oat milk today.")]
    servers = serve(
        [day("2026-06-10", "UTC", {"bee": [conversation("bee-1", datetime(2026, 6, 10, 15, tzinfo=UTC), lines)]})]
    )
    connect(user, servers, "bee")
    services.sync(owner=user, source="bee", dates=[date(2026, 6, 10)])
    conv = Conversation.objects.get(owner=user)
    services.set_speaker_for_conversation(owner=user, conversation_public_id=conv.public_id, label="0", is_self=True)
    services.sync(owner=user, source="bee", dates=[date(2026, 6, 10)])
    conv = Conversation.objects.get(owner=user)
    assert (conv.wearer_method, conv.wearer_label, conv.wearer_confidence) == ("user", "0", 1.0)
    assert conv.utterances.get(speaker_label="0").speaker_name == "Alice Example (you)"


def test_unknown_conversation_or_label_is_refused(user):
    with pytest.raises(services.WearablesError, match="No bee conversation"):
        services.set_speaker(owner=user, kind="bee", label="0", name="Sam", conversation="nope")
