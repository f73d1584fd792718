"""The Timeline page, its HTMX partials, corrections, frame images, the source panel; recall's events scope."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.urls import reverse

from screen.models import ScreenEvent, ScreenFrame
from screen.services import get_source
from screen.services.store import EventDraft, attach_evidence, create_event

pytestmark = pytest.mark.django_db
AT = datetime(2026, 6, 8, 18, 40, tzinfo=UTC)


def _event(user, key="a", **kw):
    draft = EventDraft(
        key=key,
        event_type=kw.pop("event_type", "game.match_completed"),
        started_at=AT,
        ended_at=AT,
        title=kw.pop("title", "Riftfall ranked match: victory"),
        outcome="victory",
        status=ScreenEvent.Status.CONFIRMED,
        **kw,
    )
    event, _ = create_event(owner=user, draft=draft)
    frame, _ = ScreenFrame.objects.get_or_create(
        owner=user, frame_id=7, defaults={"captured_at": AT, "image": b"\x89PNG fake", "content_type": "image/png"}
    )
    attach_evidence(event=event, role="outcome", at=AT, excerpt="VICTORY\nFinal score 13-7", frame_id=7, frame=frame)
    return event


def test_timeline_requires_login(client):
    resp = client.get(reverse("screen:timeline"))
    assert resp.status_code == 302 and "/login" in resp["Location"]


def test_timeline_shows_a_day_of_event_cards(auth_client, user):
    event = _event(user)
    resp = auth_client.get(reverse("screen:timeline"), {"date": "2026-06-08"})
    html = resp.content.decode()
    assert resp.status_code == 200
    assert "Riftfall ranked match: victory" in html and "game.match_completed" in html
    assert "Final score 13-7" in html and reverse("screen:frame", args=[event.evidence.get().image_id]) in html
    assert "game.match_completed: 1–0" in html
    assert 'id="screen-source"' in html


def test_timeline_opens_on_the_latest_day_with_events_when_today_has_none(auth_client, user):
    _event(user)  # on 2026-06-08, long before today
    html = auth_client.get(reverse("screen:timeline")).content.decode()
    assert "Riftfall ranked match: victory" in html and "June 8, 2026" in html


def test_timeline_opens_on_today_when_nothing_was_recorded_yet(auth_client, user):
    from screen.queries import local_today

    html = auth_client.get(reverse("screen:timeline")).content.decode()
    assert "No screen events on this day" in html and f"{local_today(user):%B} {local_today(user).day}" in html


def test_timeline_htmx_filter_returns_only_the_events_partial(auth_client, user):
    _event(user)
    resp = auth_client.get(
        reverse("screen:timeline"),
        {"date": "2026-06-08", "type": "software"},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="screen-events",
    )
    html = resp.content.decode()
    assert "<html" not in html and 'id="screen-events"' in html and "No screen events" in html


def test_timeline_query_count_does_not_grow_with_events(auth_client, user, django_assert_max_num_queries):
    for i in range(6):
        _event(user, key=f"k{i}") if i == 0 else create_event(
            owner=user,
            draft=EventDraft(key=f"k{i}", event_type="software.task_completed", started_at=AT, title=f"step {i}"),
        )
    with django_assert_max_num_queries(30):
        assert auth_client.get(reverse("screen:timeline"), {"date": "2026-06-08"}).status_code == 200


def test_correct_from_the_page_returns_the_card(auth_client, user):
    event = _event(user)
    url = reverse("screen:event-correct", args=[event.public_id])
    resp = auth_client.post(url, {"action": "reject"}, HTTP_HX_REQUEST="true")
    assert resp.status_code == 200 and "Rejected" in resp.content.decode()
    event.refresh_from_db()
    assert event.status == "rejected" and event.revision == 2
    resp = auth_client.post(url, {"action": "rename", "title": ""}, HTTP_HX_REQUEST="true")
    assert resp.status_code == 422 and "Give the new title" in resp.content.decode()
    assert auth_client.get(url).status_code == 405


def test_other_users_cannot_correct_or_see_frames(client, user, other_user):
    event = _event(other_user)
    client.force_login(user)
    assert client.post(reverse("screen:event-correct", args=[event.public_id]), {"action": "reject"}).status_code == 404
    assert client.get(reverse("screen:frame", args=[event.evidence.get().image_id])).status_code == 404


def test_frame_image_is_served_to_its_owner(auth_client, user):
    event = _event(user)
    resp = auth_client.get(reverse("screen:frame", args=[event.evidence.get().image_id]))
    assert resp.status_code == 200 and resp["Content-Type"] == "image/png" and resp.content.startswith(b"\x89PNG")


def test_source_settings_and_preferences_from_the_panel(auth_client, user):
    resp = auth_client.post(
        reverse("screen:source"),
        {"enabled": "on", "base_url": "http://127.0.0.1:3999", "backfill_days": 3, "frame_budget": 10},
    )
    assert resp.status_code == 200 and "Source saved" in resp.content.decode()
    source = get_source(user)
    assert source.enabled and source.base_url == "http://127.0.0.1:3999" and source.frame_budget == 10
    resp = auth_client.post(reverse("screen:preference-add"), {"text": "track all ranked matches"})
    assert resp.status_code == 200 and "track all ranked matches" in resp.content.decode()
    resp = auth_client.post(reverse("screen:preference-add"), {"text": "bananas"})
    assert resp.status_code == 422
    resp = auth_client.post(reverse("screen:preference-remove", args=[0]))
    assert resp.status_code == 200 and get_source(user).preferences == []
    resp = auth_client.post(reverse("screen:source"), {"backfill_days": 99, "frame_budget": 1})
    assert resp.status_code == 422


def test_recall_events_scope_returns_screen_events(api, user):
    event = _event(user, title="Riftfall ranked match: victory", summary="Played a ranked match of Riftfall")
    _event(user, key="rejected", title="Riftfall casual match: defeat")
    ScreenEvent.objects.filter(key="rejected").update(status="rejected")
    body = api.get("/memory/search", {"q": "Riftfall match", "scope": "events"}).json()
    ids = [i["id"] for i in body["items"]]
    assert ids == [str(event.public_id)]
    assert body["items"][0]["kind"] == "event"


def test_timeline_shows_the_curated_day_note(auth_client, user):
    from screen.services.curate import curate_event

    event = _event(user)
    assert curate_event(event_id=event.pk).decision == "day_note"
    html = auth_client.get(reverse("screen:timeline"), {"date": "2026-06-08"}).content.decode()
    assert "Day note (1 lines curated)" in html and "18:40 Riftfall ranked match: victory" in html


def test_viewing_the_timeline_writes_nothing(auth_client, user, api):
    from screen.models import ScreenSource

    assert auth_client.get(reverse("screen:timeline")).status_code == 200
    assert api.get("/screen/source").json()["backfill_days"] == 2
    assert not ScreenSource.objects.filter(owner=user).exists()


def test_sources_page_loads_the_screen_panel_with_its_gap_counts(auth_client, user):
    source = get_source(user)
    source.gaps, source.restarts = 2, 1
    source.save(update_fields=["gaps", "restarts"])
    page = auth_client.get(reverse("wearables:sources")).content.decode()
    assert reverse("screen:source-panel") in page
    panel = auth_client.get(reverse("screen:source-panel"), HTTP_HX_REQUEST="true")
    assert panel.status_code == 200 and "2 gaps" in panel.content.decode() and "1 restarts" in panel.content.decode()


def test_screen_panel_requires_login(client):
    assert client.get(reverse("screen:source-panel")).status_code == 302
