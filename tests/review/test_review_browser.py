"""Acceptance: a synced day's memories triaged from the keyboard in headless Chromium, checked in the ledger."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

import pytest
from playwright.sync_api import expect

from ledger.models import Commit, Fact
from review import queries
from tests.wearables.conftest import connect
from tests.wearables.days import conversation, day
from wearables import services as wearables_services
from wearables import tasks as wearables_tasks
from wearables.models import DayTranscript

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

DAY = date(2026, 6, 10)
LINES = [
    ("user", True, "Oh and I'm allergic to peanuts, so be careful."),
    ("Oskar", False, "Noted."),
    ("user", True, "I live in Tromso now, near the harbour."),
    ("Oskar", False, "Nice."),
    ("user", True, "I work as a nurse at the county hospital now."),
]


def _sync_day(user, servers) -> None:
    """Sync the day from the imitation server and run its memory pass (what the worker does after a sync)."""
    wearables_services.sync(owner=user, source="limitless", dates=[DAY], force_memories=True)
    transcript = DayTranscript.objects.get(owner=user, source__kind="limitless", local_date=DAY)
    wearables_tasks.run_memory_pass(transcript.pk)


def _current_claim(page) -> str:
    return page.locator("#review-panel .review-card.current .claim").first.inner_text().strip()


def test_three_items_triaged_by_keyboard_are_ledger_commits_and_a_rejection_lasts(logged_in_page, user, serve):
    servers = serve(
        [
            day(
                "2026-06-10",
                "UTC",
                {"limitless": [conversation("ll-1", datetime(2026, 6, 10, 15, 0, tzinfo=UTC), LINES)]},
            )
        ]
    )
    connect(user, servers, "limitless")
    wearables_services.update_source(owner=user, kind="limitless", memory_mode="review")
    _sync_day(user, servers)
    queued = list(Fact.objects.filter(owner=user, status="pending_review"))
    assert len(queued) == 3, [f.content for f in queued]

    page = logged_in_page
    page.goto("/review/")
    page.locator("#review-panel .review-card.current").wait_for()
    assert page.locator("#review-count").inner_text().startswith("3")

    accepted = _current_claim(page)
    page.keyboard.press("a")
    page.get_by_role("status").filter(has_text="Accepted").wait_for()

    rejected = _current_claim(page)
    assert rejected != accepted
    page.keyboard.press("r")
    page.get_by_role("status").filter(has_text="Rejected").wait_for()

    edited = _current_claim(page)
    page.keyboard.press("e")
    field = page.locator("#review-panel .review-card.current input[name=edit]")
    field.fill(edited.rstrip(".") + " (night shifts)")
    field.press("Enter")
    page.get_by_role("status").filter(has_text="Edited and accepted").wait_for()
    expect(page.locator("#review-count")).to_have_text(re.compile(r"^0 "))

    by_content = {f.content: f for f in Fact.objects.filter(owner=user)}
    assert by_content[accepted].status == "accepted"
    assert by_content[rejected].status == "rejected"
    assert by_content[edited.rstrip(".") + " (night shifts)"].status == "accepted"
    reviewer = [
        t for c in Commit.objects.filter(owner=user, author="reviewer").order_by("seq") for t in c.mutation_types
    ]
    assert reviewer == ["set_status", "set_status", "refine_fact", "set_status"]
    assert Commit.objects.filter(owner=user, author="reviewer").count() == 3  # one commit per action

    # The same day synced again: the rejected claim does not come back.
    _sync_day(user, servers)
    same = Fact.objects.filter(owner=user, content=rejected)
    assert list(same.values_list("status", flat=True)) == ["rejected"]
    assert not queries.queue_plan(user).rows
    page.goto("/review/")
    assert rejected not in page.locator("#review-panel").inner_text()


def test_help_opens_with_question_mark_and_undo_restores_a_card(logged_in_page, user, pending):
    fact = pending(user, "Alice keeps a sourdough starter")
    page = logged_in_page
    page.goto("/review/")
    page.locator("#review-panel .review-card.current").wait_for()
    page.keyboard.press("?")
    assert page.locator("#review-help").is_visible()
    page.keyboard.press("Escape")
    page.keyboard.press("r")
    page.get_by_role("status").filter(has_text="Rejected").wait_for()
    page.keyboard.press("u")
    page.get_by_role("status").filter(has_text="Undone").wait_for()
    page.locator(f"#review-item-{fact.public_id}").wait_for()
    assert Fact.objects.get(pk=fact.pk).status == "pending_review"


def test_bulk_accept_confirms_the_count(logged_in_page, user, pending):
    for n in range(3):
        pending(user, f"Alice went to gallery {n}")
    page = logged_in_page
    page.goto("/review/")
    messages = []
    page.on("dialog", lambda d: (messages.append(d.message), d.accept()))
    page.get_by_role("button", name="Accept all 3").click()
    page.get_by_role("status").filter(has_text="Accept: 3 memories").wait_for()
    assert messages == ["Accept all 3 memories in this band?"]
    assert Fact.objects.filter(owner=user, status="accepted").count() == 3
