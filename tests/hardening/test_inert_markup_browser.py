"""Stored text holding HTML and script (a transcript turn, a memory and its quote, a chat turn) shows as text on
every page that renders it: nothing executes, no element is injected, CSP reports nothing."""

from __future__ import annotations

import pytest

from tests.factories import ConversationFactory, EvidenceInFactory, FactFactory, UtteranceFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

PAYLOAD = '<script>window.__pwned=1</script><img src="/x" onerror="window.__pwned=2"><b id="injected">bold</b>'


def _pages(user) -> list[str]:
    conversation = ConversationFactory(transcript__source__owner=user)
    UtteranceFactory(conversation=conversation, text=f"I said {PAYLOAD} out loud")
    fact = FactFactory(owner=user, content=f"Likes {PAYLOAD}", evidence=[EvidenceInFactory(quote=f"quote {PAYLOAD}")])
    FactFactory(owner=user, content=f"Maybe {PAYLOAD}", pending=True)
    day = conversation.transcript.local_date.isoformat()
    return [
        f"/transcripts/?date={day}&source=limitless",
        "/transcripts/?q=said",
        "/memory/",
        f"/memory/facts/{fact.public_id}/",
        "/review/",
        "/",
    ]


def test_html_and_script_in_stored_text_stay_inert_on_every_page(logged_in_page, user):
    page = logged_in_page
    paths = _pages(user)
    shown = 0
    for path in paths:
        page.goto(path)
        page.wait_for_load_state("networkidle")
        assert page.evaluate("window.__pwned === undefined"), path
        assert page.locator("#injected").count() == 0, path
        shown += page.get_by_text("window.__pwned=1", exact=False).count() > 0
    # The payload was on the pages as visible text (so the test looked at the right places).
    assert shown >= 3
