"""Other people's posts under their bylines are theirs: never an outcome of the owner's activity, never words
that say what the owner is doing (pure: the post parser and the signal deriver, on feeds, threads and review
lists of several shapes that no generated session shows)."""

from __future__ import annotations

from screen.collector.posts import is_byline, others_posts
from screen.events.reading import read_span
from tests.screen.test_span_tracking import NOBODY, Feeder


def test_bylines_of_many_shapes_are_recognised():
    for line in (
        "Oona Halloran · 2h",
        "@marsh_tern · 40m",
        "u/lowtide • 5h",
        "Kofi A. · 1d · Edited",
        "Tevita Fonua | 3w",
        "Old Pier Cafe · just now",
        "Tomás · 2 days ago",
        "Hollis Grange • 5 hr. ago",
    ):
        assert is_byline(line), line


def test_durations_distances_the_owners_own_line_and_titles_are_no_bylines():
    for line in (
        "Rowing · 32 min",
        "Run · 5.2 km",
        "You · 2h",
        "Pipeline 8812 · main",
        "Score 7/10 · Passed",
        "Checkout · Step 2 of 3",
        "Order 44-1183 · 2 items",
        "1m ago",
    ):
        assert not is_byline(line), line


def test_a_post_is_its_text_up_to_its_controls_or_the_next_byline():
    lines = [
        "Following",
        "Dara Quill · 3h",
        "Finally passed my sailing exam!",
        "So happy",
        "Like",
        "@harbourcat · 1d",
        "Our order was confirmed, van arrives Monday",
        "Reply",
        "Who to follow",
    ]
    assert others_posts(lines) == {
        "Dara Quill · 3h",
        "Finally passed my sailing exam!",
        "So happy",
        "@harbourcat · 1d",
        "Our order was confirmed, van arrives Monday",
    }


def test_a_banner_shaped_author_over_an_age_is_left_to_the_banner_rules():
    assert others_posts(["Calendar", "1m ago", "Dentist appointment confirmed"]) == set()


def test_a_forum_thread_read_in_a_browser_makes_no_outcome_of_its_posts():
    thread = (
        "Threads\nNewest\n"
        "u/lowtide · 5h\nPassed my theory test this morning, practical next\nReply\n"
        "u/brinefly · 2h\nPayment approved for the club fees, all sorted\nReply\n"
        "Comment\nShare"
    )
    f = Feeder().repeat(0, 240, 10, "Firefox", "r/learners — Mozilla Firefox", thread, "https://board.example/r/l")
    f.settle(2400)
    # A span with nothing to show ends without a signal: no outcome, no event.
    assert [(s["app"], [a["line"] for a in s["anchors"]]) for s in f.spans()] == []


def test_reviews_under_a_product_leave_the_shop_its_own_outcome():
    page = (
        "Folding kayak paddle\nAdd to basket\nReviews\n"
        "Marit · 2w\nArrived fast, order delivered in two days\nHelpful\n"
        "Oskar Lind · 1mo\nPayment declined twice before it worked\nHelpful"
    )
    done = "Order 55-2091 placed\nThank you for your order"
    f = (
        Feeder()
        .repeat(0, 200, 10, "Safari", "Folding kayak paddle — Paddleshed", page, "https://paddleshed.example/p/9")
        .repeat(200, 260, 10, "Safari", "Order placed — Paddleshed", done, "https://paddleshed.example/orders/552091")
    )
    f.settle(2400)
    (span,) = f.spans()
    anchors = [a["line"] for a in span["anchors"]]
    assert "Order 55-2091 placed" in anchors
    assert not [a for a in anchors if "delivered" in a or "declined" in a]
    reading = read_span(span, owner_names=NOBODY)
    assert (reading.family, reading.outcome) == ("purchase.order", "confirmed")
