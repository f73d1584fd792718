from __future__ import annotations

import pytest

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

NAV = ["Dashboard", "Transcripts", "Timeline", "Review", "Memory", "Sources", "Settings"]


def test_logged_in_user_can_visit_every_nav_page(logged_in_page):
    page = logged_in_page
    for label in NAV:
        with page.expect_response(lambda r: r.request.resource_type == "document") as info:
            page.click(f"nav >> text={label}")
        assert info.value.status == 200, label
        page.wait_for_load_state("networkidle")
        assert page.locator("h1").first.is_visible(), label


def test_nav_is_usable_on_a_phone_width_screen(logged_in_page):
    page = logged_in_page
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto("/")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 380
    assert page.locator("nav >> text=Settings").is_visible()


def test_settings_page_creates_a_token_without_reload(logged_in_page):
    page = logged_in_page
    page.goto("/settings/")
    page.fill("#settings-tokens input[name=name]", "browser agent")
    page.click("#settings-tokens button[type=submit]")
    token = page.locator("#new-token")
    token.wait_for()
    assert token.inner_text().startswith("alm_")


def test_a_request_still_being_answered_when_a_page_closes_ends_before_the_test_database_is_flushed(user):
    """A live-server thread still inside a transaction when a browser test ends deadlocked with the flush that
    ends the test (CI, stop 29). The page fixture's teardown waits for such a thread; here one holds a row lock."""
    import threading
    import time

    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from tests.conftest import _wait_for_live_requests_to_finish

    started = threading.Event()

    def answer_slowly():
        try:
            with transaction.atomic():
                get_user_model().objects.select_for_update().get(pk=user.pk)
                started.set()
                time.sleep(0.6)
        finally:
            connection.close()

    thread = threading.Thread(target=answer_slowly, name="Thread-99 (process_request_thread)")
    thread.start()
    started.wait(5)
    _wait_for_live_requests_to_finish()
    assert not thread.is_alive()
    thread.join()
