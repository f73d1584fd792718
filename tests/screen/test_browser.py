"""The Timeline in headless Chromium: a day's cards, the thumbnail, filters and corrections through HTMX."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from playwright.sync_api import expect

from screen.imitation.server import png
from screen.models import ScreenEvent, ScreenFrame
from screen.services.store import EventDraft, attach_evidence, create_event

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
AT = datetime(2026, 6, 8, 18, 40, tzinfo=UTC)


def _seed(user):
    match, _ = create_event(
        owner=user,
        draft=EventDraft(
            key="m",
            event_type="game.match_completed",
            started_at=AT,
            ended_at=AT,
            title="Riftfall ranked match: victory",
            outcome="victory",
            status=ScreenEvent.Status.CONFIRMED,
        ),
    )
    frame = ScreenFrame.objects.create(owner=user, frame_id=7, captured_at=AT, image=png(7), content_type="image/png")
    attach_evidence(event=match, role="outcome", at=AT, excerpt="VICTORY\nFinal score 13-7", frame_id=7, frame=frame)
    create_event(
        owner=user,
        draft=EventDraft(
            key="p",
            event_type="software.problem",
            started_at=AT,
            title="ERROR: Could not build wheels for tokenizers",
            outcome="unresolved",
        ),
    )
    return match


def test_timeline_cards_filters_and_corrections(logged_in_page, user):
    match = _seed(user)
    page = logged_in_page
    page.goto("/timeline/?date=2026-06-08")
    cards = page.locator("article.screen-event")
    assert cards.count() == 2
    card = page.locator(f"#screen-event-{match.public_id}")
    assert "victory" in card.locator(".screen-outcome").inner_text()
    assert "Final score 13-7" in card.locator(".screen-excerpt").inner_text()
    expect(card.locator("img")).to_have_count(1)  # served by /timeline/frames/<id>/ (a 4xx fails the page)
    assert "game.match_completed: 1–0" in page.locator(".screen-rollup").inner_text()

    page.select_option("select[name=type]", "software.problem")
    page.click(".screen-filters button[type=submit]")
    expect(page.locator("article.screen-event")).to_have_count(1)
    assert "tokenizers" in page.locator("article.screen-event").inner_text()

    page.goto("/timeline/?date=2026-06-08")
    card = page.locator(f"#screen-event-{match.public_id}")
    card.locator("button[value=important]").click()
    page.locator(f"#screen-event-{match.public_id} .badge.ok", has_text="important").wait_for()
    page.locator(f"#screen-event-{match.public_id} button[value=reject]").click()
    page.locator(f"#screen-event-{match.public_id} .screen-status", has_text="Rejected").wait_for()
    page.locator(f"#screen-event-{match.public_id} .screen-revisions summary").click()
    assert "user: reject" in page.locator(f"#screen-event-{match.public_id} .screen-revisions").inner_text()
    match.refresh_from_db()
    assert match.status == "rejected" and match.important is True and match.revision == 3


def test_source_panel_saves_a_preference(logged_in_page, user):
    page = logged_in_page
    page.goto("/timeline/")
    page.fill("input[name=text]", "do not retain shopping research")
    page.click("form[action$='/preferences/'] button[type=submit]")
    page.locator("#screen-source .screen-preferences", has_text="do not retain shopping research").wait_for()
    assert page.locator("#screen-source .screen-gaps").inner_text().startswith("0 gaps")
