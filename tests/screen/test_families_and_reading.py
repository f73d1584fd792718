"""Families from what a span shows, and outcomes an activity of that family can have (pure). Programs, sites
and lines here appear in no generated session."""

from __future__ import annotations

from screen.events.families import classify, family_outcome, page_titles
from screen.events.reading import opponent_in, read_span


def _span(app="", url="", windows=(), seen=(), anchors=(), reason="left", **extra) -> dict:
    seen = list(seen)
    return {
        "id": "1-x",
        "ctx": f"{app.lower()}|",
        "app": app,
        "url": url,
        "window": (list(windows) or [""])[-1],
        "windows": list(windows),
        "start": "2026-05-04T10:00:00+00:00",
        "start_frame": 1,
        "last": "2026-05-04T10:20:00+00:00",
        "last_frame": 9,
        "lines": [],
        "seen": {line.lower(): line for line in seen},
        "anchors": [
            {"line": a, "norm": a.lower(), "at": "2026-05-04T10:19:00+00:00", "frame": 8 + i}
            for i, a in enumerate(anchors)
        ],
        "commands": [],
        "speech": [],
        "prelude": [],
        "changes": 1,
        "reason": reason,
        **extra,
    }


def test_a_page_title_keeps_only_the_pages_own_part():
    assert page_titles(["Ferry times | Saltmarsh Lines — Mozilla Firefox"], "Firefox", "https://saltmarshlines.test/x") == [
        "Ferry times"
    ]
    assert page_titles(["Week 3: Knitting cables - Loomwise - Google Chrome"], "Google Chrome", "https://loomwise.test/") == [
        "Week 3: Knitting cables"
    ]
    assert page_titles(["Tablet"], "scrcpy", "") == []  # a mirror's window names the device


def test_a_title_joined_to_the_sites_name_by_a_colon_is_typed_by_its_own_words():
    # "<page>: <site>" in a browser: the site's name is not what the page is about
    title = ["Dough proofer: Crumbhaus Hub - Google Chrome"]
    assert page_titles(title, "Google Chrome", "https://crumbhaushub.test/run") == ["Dough proofer"]
    family = classify(app="Google Chrome", url="https://crumbhaushub.test/run", windows=title, lines=["Stage 2"])
    assert family == "task.proofer"
    # the same in a program of its own, and a colon inside the page's own words stays
    assert page_titles(["Sous vide bath: Tempra Hub"], "Tempra Hub", "") == ["Sous vide bath"]
    assert page_titles(["Lesson 4: Tidal pools"], "Tempra Hub", "") == ["Lesson 4: Tidal pools"]


def test_a_single_cue_word_types_nothing():
    # "job" alone (a software.ci cue) on an application form is a stray word, not a build
    family = classify(app="Safari", url="https://hireloop.test/apply", windows=["Apply: Line cook job"],
                      lines=["Step 2 of 3", "Personal details", "Upload your CV", "Submit application"])
    assert family == "forms.application"


def test_a_headline_in_a_title_is_what_one_reads():
    family = classify(
        app="Firefox",
        url="https://tidewaterherald.test/article",
        windows=["Harbour order delivered after delays at the port — Tidewater Herald"],
        lines=["Top stories", "3 min read", "Share", "Comments (12)"],
    )
    assert family == "reading.news"


def test_a_shell_prompt_makes_an_unknown_program_a_terminal():
    family = classify(app="Quokka Term", url="", windows=["fish — ~/hedge"], lines=["$ pnpm install left-pad", "ERR_PNPM_FETCH_404"])
    assert family.startswith("software.")


def test_an_unknown_device_page_in_a_browser_is_named_by_its_page_not_the_browser():
    family = classify(app="Firefox", url="http://192.168.1.40/", windows=["Bread oven — Crustly — Mozilla Firefox"],
                      lines=["Program: Rye 4", "Stage 2", "Temp 210 C"])
    assert family == "task.oven"


def test_outcomes_belong_to_the_families_that_can_have_them():
    assert family_outcome("win", "learning.course") == ""  # a quiz result is not a match
    assert family_outcome("success", "finance.bill_payment") == "paid"
    assert family_outcome("confirmed", "communication.chat") == ""  # a friend's "booked it" is theirs
    assert family_outcome("accepted", "forms.application") == "accepted"
    assert family_outcome("progress", "purchase.order") == ""  # "Added to cart" is a step


def test_a_news_page_has_no_outcome_and_a_quiz_is_no_match():
    news = read_span(_span("Vivaldi", "https://ferrypost.test/", ["Top stories · Ferry Post - Vivaldi"],
                           ["Top stories", "Sport", "Opinion", "2 min read"], ["Quayside Rovers win the final"]),
                     owner_names=frozenset())
    assert news.family == "reading.news" and news.outcome == ""
    quiz = read_span(_span("Edge", "https://chordbook.test/quiz", ["Quiz: Minor scales — Chordbook"],
                           ["Quiz: Minor scales", "Question 10 of 10", "Next lesson"], ["You win a badge!"]),
                     owner_names=frozenset())
    assert quiz.family == "learning.course" and quiz.outcome == ""


def test_a_chat_message_reporting_news_is_not_the_chats_outcome():
    chat = read_span(_span("Wire", "", ["Nadia Sokolov — Wire"], ["Nadia Sokolov", "Active now", "Type a message"],
                           ["Our parcel 8812 delivered finally", "Sent"]), owner_names=frozenset())
    assert chat.family == "communication.chat" and chat.outcome == "confirmed" and chat.final["line"] == "Sent"
    assert [a["line"] for a, _ in chat.foreign] == ["Our parcel 8812 delivered finally"]


def test_the_opponent_is_named_as_the_screen_names_them():
    assert opponent_in(["Amber (you) 4:10", "Teal: Oksana 3:55", "Oksana is thinking"], frozenset({"amber"})) == "Oksana"
    assert opponent_in(["Round 4", "Opponent: quietmoth", "Your turn"], frozenset()) == "quietmoth"
    assert opponent_in(["You: 40 pts", "Rosalind: 35 pts"], frozenset()) == "Rosalind"


def test_a_contest_result_counts_only_where_the_owner_takes_part():
    span = _span("Glimmer", "", ["Glimmer"], ["Tonight's fixtures", "Harbour City 2-2 Millbrook"], ["Match drawn"])
    assert read_span(span, owner_names=frozenset()).family != "game.match"
    played = _span("Glimmer", "", ["Glimmer"], ["Opponent: Yusuf", "Your move"], ["Match drawn"])
    assert read_span(played, owner_names=frozenset()).outcome == "draw"
