"""Sources and Transcripts pages (server side): access, methods, htmx partials, validation, isolation."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from django.urls import reverse

from tests.wearables.conftest import connect
from tests.wearables.days import conversation, day
from wearables import services
from wearables.models import Conversation, Source

pytestmark = pytest.mark.django_db

LINES = [
    ("Priya", False, "Did you sign the lease for the apartment <b>yet</b>?"),
    ("user", True, "Signed it this morning, the movers come Saturday."),
]


@pytest.fixture
def synced(user, serve):
    start = datetime(2026, 6, 10, 15, tzinfo=UTC)
    bee = [("0" if w else "1", w, t) for _, w, t in LINES]
    servers = serve(
        [
            day(
                "2026-06-10",
                "UTC",
                {"limitless": [conversation("ll-1", start, LINES)], "bee": [conversation("b-1", start, bee)]},
            )
        ]
    )
    connect(user, servers, "limitless", "bee")
    services.sync_enabled_sources(owner=user, dates=[date(2026, 6, 10)])
    return servers


@pytest.mark.parametrize("name", ["wearables:transcripts", "wearables:sources"])
def test_pages_need_login(client, name):
    r = client.get(reverse(name))
    assert r.status_code == 302 and "/login" in r["Location"]


def test_transcripts_page_shows_turns_tabs_and_overlap_hints(auth_client, synced):
    r = auth_client.get(reverse("wearables:transcripts"), {"date": "2026-06-10", "source": "limitless"})
    html = r.content.decode()
    assert r.status_code == 200 and "<h1>Transcripts</h1>" in html
    assert "Alice Example (you)" in html and "Bee (" in html and "Limitless (" in html
    assert "Also recorded by" in html
    assert "&lt;b&gt;yet&lt;/b&gt;" in html  # transcript text is escaped


def test_htmx_request_gets_the_day_partial(auth_client, synced):
    r = auth_client.get(reverse("wearables:transcripts"), {"date": "2026-06-10"}, HTTP_HX_REQUEST="true")
    html = r.content.decode()
    assert r.status_code == 200 and html.lstrip().startswith('<div id="wearables-day"') and "<h1>" not in html


def test_transcripts_page_query_count_is_bounded(auth_client, synced, django_assert_max_num_queries):
    with django_assert_max_num_queries(15):
        auth_client.get(reverse("wearables:transcripts"), {"date": "2026-06-10", "source": "bee"})


def test_live_search_partial_highlights_hits_and_says_which_search_ran(auth_client, synced):
    r = auth_client.get(reverse("wearables:transcript-search"), {"q": "movers"}, HTTP_HX_REQUEST="true")
    html = r.content.decode()
    assert "<mark>movers</mark>" in html and ">indexed<" in html
    r = auth_client.get(reverse("wearables:transcript-search"), {"q": "qqqzzz"})
    assert ">scan<" in r.content.decode() and "No matches" in r.content.decode()


def test_this_is_me_relabels_one_conversation(auth_client, user, synced):
    conv = Conversation.objects.get(owner=user, transcript__source__kind="bee")
    url = reverse("wearables:conversation-speaker", args=[conv.public_id])
    r = auth_client.post(url, {"label": "1", "is_self": "1"}, HTTP_HX_REQUEST="true")
    assert r.status_code == 200
    conv.refresh_from_db()
    assert (conv.wearer_method, conv.wearer_label) == ("user", "1")
    assert conv.utterances.get(speaker_label="1").speaker_name == "Alice Example (you)"


def test_rename_needs_a_name(auth_client, user, synced):
    conv = Conversation.objects.get(owner=user, transcript__source__kind="bee")
    r = auth_client.post(
        reverse("wearables:conversation-speaker", args=[conv.public_id]), {"label": "1"}, HTTP_HX_REQUEST="true"
    )
    assert r.status_code == 422 and "Type a name" in r.content.decode()


def test_other_users_cannot_see_or_change_my_transcripts(client, other_user, user, synced):
    client.force_login(other_user)
    html = client.get(reverse("wearables:transcripts"), {"date": "2026-06-10"}).content.decode()
    assert "movers" not in html and "No transcript" in html
    conv = Conversation.objects.filter(owner=user).first()
    r = client.post(reverse("wearables:conversation-speaker", args=[conv.public_id]), {"label": "1", "is_self": "1"})
    assert r.status_code == 404
    assert client.get(reverse("wearables:transcript-search"), {"q": "movers"}).content.decode().count("<mark>") == 0


def test_speaker_change_requires_post(auth_client, user, synced):
    conv = Conversation.objects.filter(owner=user).first()
    assert auth_client.get(reverse("wearables:conversation-speaker", args=[conv.public_id])).status_code == 405


def test_sources_page_lists_three_cards_and_saves_settings(auth_client, user):
    html = auth_client.get(reverse("wearables:sources")).content.decode()
    assert all(f'id="wearables-source-{k}"' in html for k in ("limitless", "bee", "omi"))
    r = auth_client.post(
        reverse("wearables:source-update", args=["omi"]),
        {"enabled": "on", "base_url": "http://127.0.0.1:9", "cred_api_key": "sk_secret_abc", "source_trust": "0.6"},
        HTTP_HX_REQUEST="true",
    )
    assert r.status_code == 200 and "sk_secret_abc" not in r.content.decode() and "Saved" in r.content.decode()
    source = Source.objects.get(owner=user, kind="omi")
    assert source.enabled and source.credentials["api_key"] == "sk_secret_abc"
    # The trust settings live in the gate policy of "wearable:omi" (distill.GatePolicy).
    from distill.policies import get_policy

    assert get_policy(user, "wearable:omi").source_trust == 0.6


def test_invalid_source_settings_come_back_as_422(auth_client, user):
    r = auth_client.post(
        reverse("wearables:source-update", args=["bee"]),
        {"base_url": "nope", "source_trust": "2"},
        HTTP_HX_REQUEST="true",
    )
    assert r.status_code == 422 and 'role="alert"' in r.content.decode()


def test_sync_now_on_a_disabled_source_explains_why(auth_client, user):
    services.ensure_sources(user)
    r = auth_client.post(reverse("wearables:source-sync", args=["bee"]), HTTP_HX_REQUEST="true")
    assert r.status_code == 422 and "disabled" in r.content.decode()


def test_times_on_the_transcripts_page_are_in_the_users_timezone(auth_client, user, serve):
    from accounts.services import update_settings

    update_settings(user=user, timezone_name="America/Chicago")
    servers = serve(
        [
            day(
                "2026-06-10",
                "America/Chicago",
                {"limitless": [conversation("ll-9", datetime(2026, 6, 10, 15, tzinfo=UTC), LINES)]},
            )
        ]
    )
    connect(user, servers, "limitless")
    services.sync(owner=user, source="limitless", dates=[date(2026, 6, 10)])
    html = auth_client.get(reverse("wearables:transcripts"), {"date": "2026-06-10"}).content.decode()
    assert "<h2>10:00" in html  # 15:00 UTC is 10:00 in Chicago (CDT)


def test_evidence_links_may_name_the_source_by_id(auth_client, user, synced):
    bee = Source.objects.get(owner=user, kind="bee")
    html = auth_client.get(
        reverse("wearables:transcripts"), {"date": "2026-06-10", "source": str(bee.pk)}
    ).content.decode()
    assert 'aria-current="page">Bee' in html and 'id="u-0"' in html
