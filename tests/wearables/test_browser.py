"""Sources and Transcripts pages in headless Chromium (real clicks, real htmx, real imitation servers)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from django_q.conf import Conf

from tests.wearables.conftest import connect
from tests.wearables.days import conversation, day
from wearables import services

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

START = datetime(2026, 6, 10, 15, tzinfo=UTC)
LINES = [
    ("Priya", False, "Did you sign the lease for the apartment in Logan Square yet?"),
    ("user", True, "Signed it this morning, the movers come on Saturday at nine."),
    ("Priya", False, "Then I will bring the lemon cake to the housewarming party."),
]
BEE = [("1" if w else "0", w, t) for _, w, t in LINES]


def days():
    return [
        day(
            "2026-06-10",
            "UTC",
            {"limitless": [conversation("ll-1", START, LINES)], "bee": [conversation("b-1", START, BEE)]},
        )
    ]


def test_sources_page_saves_checks_and_syncs(logged_in_page, user, serve, monkeypatch):
    monkeypatch.setattr(Conf, "SYNC", True)  # "Sync now" runs the task inline instead of in a worker
    servers = serve(days())
    page = logged_in_page
    page.goto("/sources/")
    card = page.locator("#wearables-source-limitless")
    card.locator("input[name=enabled]").check()
    card.locator("input[name=base_url]").fill(servers.base_urls["limitless"])
    card.locator("input[name=cred_api_key]").fill(servers.credentials["limitless"]["api_key"])
    card.locator("button[type=submit]", has_text="Save").click()
    page.locator("#wearables-source-limitless >> text=Saved.").wait_for()
    assert servers.credentials["limitless"]["api_key"] not in page.content()
    assert (
        page.locator("#wearables-source-limitless input[name=cred_api_key]")
        .get_attribute("placeholder")
        .startswith("stored")
    )

    page.locator("#wearables-source-limitless button", has_text="Check").click()
    page.locator("#wearables-source-limitless .badge", has_text="check ok").wait_for()

    page.locator("#wearables-source-limitless button", has_text="Sync now").click()
    page.locator("#wearables-runs-limitless .badge", has_text="ok").wait_for(timeout=15000)


def test_transcripts_page_tabs_search_and_this_is_me(logged_in_page, user, serve):
    servers = serve(days())
    connect(user, servers, "limitless", "bee")
    services.sync_enabled_sources(owner=user, dates=[date(2026, 6, 10)])
    page = logged_in_page
    page.goto("/transcripts/?date=2026-06-10&source=limitless")
    assert page.locator(".turn.wearer .who").first.inner_text() == "Alice Example (you)"
    assert page.locator(".overlap").first.inner_text().startswith("Also recorded by Bee")

    page.locator("nav.tabs a", has_text="Bee").click()
    page.wait_for_url("**source=bee**")
    page.locator(".turn").first.wait_for()

    page.fill("#wearables-q", "movers")
    hit = page.locator("#wearables-search-results mark").first
    hit.wait_for()
    assert hit.inner_text().lower() == "movers"
    assert page.locator("#wearables-search-results .badge").inner_text() == "indexed"

    # Mark the other Bee speaker as me: the turns are relabeled in place.
    page.locator("details.speakers summary").first.click()
    page.locator(".speaker-form", has=page.locator("input[value='0']")).locator("button", has_text="This is me").click()
    page.locator(".hint", has_text="Set by you").wait_for()
    page.locator(".turn.wearer", has_text="Did you sign the lease").first.wait_for()
    assert page.locator(".turn.wearer", has_text="movers come").count() == 0
    assert "/transcripts/conversations/" not in page.url  # a speaker fix does not change the address
