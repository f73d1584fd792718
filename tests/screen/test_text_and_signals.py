"""Pure tests: text normalisation and cues, the signal deriver (windowed = one run), preferences parsing."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from screen import preferences
from screen.collector.client import Item
from screen.collector.signals import SignalDeriver
from screen.text import Cue, cue_of, diff_lines, normalize_line, redact_screen, result_outcome, score_in

T0 = datetime(2026, 6, 8, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("line", "cue"),
    [
        ("VICTORY", Cue.RESULT),
        ("Defeat", Cue.RESULT),
        ("ERROR: Could not build wheels for tokenizers", Cue.ERROR),
        ("Payment declined by your bank", Cue.ERROR),
        ("5 passed, 0 failed in 2.1s", Cue.COMPLETION),
        ("No errors found", None),
        ("Your reservation is confirmed", Cue.CONFIRMATION),
        ("Upload complete", Cue.COMPLETION),
        ("We lost the draft of chapter two while the laptop rebooted", None),  # a story, not a result banner
        ("Ammo 30/90", None),
    ],
)
def test_cue_of_reads_general_outcome_words(line, cue):
    assert cue_of(line) == cue


def test_normalize_masks_counters_so_ticking_numbers_are_not_changes():
    assert normalize_line("HP 87 · Ammo 12/90") == normalize_line("HP 100 · Ammo 30/90")
    assert diff_lines({"hp #": "HP 1"}, {"hp #": "HP 2"}).material is False


def test_result_outcome_and_score():
    assert result_outcome("VICTORY") == "victory" and result_outcome("You lose") == "defeat"
    assert score_in("Final score 13-7") == "13-7" and score_in("no score") is None


def _items(texts, every=5.0, app="App", first=1):
    return [Item("OCR", first + i, T0 + timedelta(seconds=every * i), text, app, app) for i, text in enumerate(texts)]


def _derive(items, state=None):
    d = SignalDeriver(state)
    return [(s.kind, s.key) for item in items for s in d.feed(item)], d.state


def test_routine_progress_gives_no_signals():
    items = _items([f"HP {n}\nAmmo {n % 30}/90\nRound {n % 13}" for n in range(200)])
    signals, _ = _derive(items)
    assert [k for k, _ in signals] == ["context_appeared"]


def test_a_stable_state_returning_is_a_signal():
    texts = ["Lobby\nPlay now"] * 5 + ["HP 1\nAmmo 2"] * 5 + ["Lobby\nPlay now"] * 2
    kinds = [k for k, _ in _derive(_items(texts))[0]]
    assert kinds.count("state_returned") == 1 and kinds.count("text_changed") == 2


@settings(max_examples=25, deadline=None)
@given(split=st.integers(min_value=1, max_value=59), seed=st.integers(min_value=0, max_value=1000))
def test_windowed_derivation_equals_one_run(split, seed):
    """Saving the state (as JSON, like the collector) between any two items changes nothing."""
    texts = [f"Screen {(i * seed) % 7}\nline {(i + seed) % 5} words here\ncounter {i}" for i in range(60)]
    items = _items(texts, app="Editor")
    whole, _ = _derive(items)
    first, state = _derive(items[:split])
    state = json.loads(json.dumps(state))
    rest, _ = _derive(items[split:], copy.deepcopy(state))
    assert first + rest == whole


def test_frame_ids_going_backwards_is_a_restart():
    items = _items(["a b c", "a b c d"], first=100) + _items(["x y z"], first=1)
    items[-1] = Item("OCR", 1, T0 + timedelta(minutes=1), "x y z", "App", "App")
    kinds = [k for k, _ in _derive(items)[0]]
    assert "source_restart" in kinds


@pytest.mark.parametrize(
    ("text", "action", "subject"),
    [
        ("track all ranked matches", "track", ["ranked", "match"]),
        ("Do not retain shopping research", "exclude", ["shopping"]),
        ("don't keep my banking", "exclude", ["banking"]),
        ("Always remember chess games", "track", ["chess", "game"]),
        # irregular and -ies plurals, and words that only look plural (the hand-written rule gave "storie", "new")
        ("never keep stories about the news", "exclude", ["story", "news"]),
        ("track tax analyses and their statuses", "track", ["tax", "analysis", "their", "status"]),
    ],
)
def test_preferences_parse(text, action, subject):
    pref = preferences.parse(text)
    assert (pref.action, pref.subject) == (action, subject)


@pytest.mark.parametrize("text", ["", "bananas", "track", "x" * 201])
def test_preferences_reject_unclear_phrases(text):
    with pytest.raises(preferences.PreferenceError):
        preferences.parse(text)


class _E:
    def __init__(self, event_type, title, attributes=None):
        self.event_type, self.title, self.entities = event_type, title, []
        self.attributes, self.user_actions = attributes or {}, []


def test_a_plural_preference_matches_an_event_that_names_the_thing_once():
    prefs = [preferences.parse("do not retain diary entries").as_dict()]
    assert preferences.matching(prefs, _E("notes.page_opened", "Diary entry, 3 May")).action == "exclude"
    assert preferences.matching(prefs, _E("notes.page_opened", "Shopping list")) is None


def test_preferences_match_events_by_their_words():
    prefs = [
        preferences.parse("track all ranked matches").as_dict(),
        preferences.parse("do not retain shopping").as_dict(),
    ]
    assert preferences.matching(prefs, _E("game.match_completed", "Riftfall", {"mode": "ranked"})).action == "track"
    assert preferences.matching(prefs, _E("game.match_completed", "Riftfall", {"mode": "casual"})) is None
    assert preferences.matching(prefs, _E("purchase.action_confirmed", "Order placed")).action == "exclude"


@pytest.mark.django_db
def test_stored_preferences_are_re_read_with_the_lexicons_singulars(user):
    """Migration 0004: a subject the old rule stored ("storie") is re-read from its phrase, so it matches again."""
    import importlib

    from django.apps import apps

    from screen import services

    source = services.get_source(user)
    source.preferences = [
        {"action": "exclude", "subject": ["storie"], "text": "never keep stories"},
        {"action": "exclude", "subject": ["story"], "text": "never keep story"},
    ]
    source.save()
    importlib.import_module("screen.migrations.0004_preference_subjects_as_lemmas").reparse(apps, None)
    source.refresh_from_db()
    assert source.preferences == [{"action": "exclude", "subject": ["story"], "text": "never keep stories"}]
    assert preferences.matching(source.preferences, _E("notes.page_opened", "A story")).action == "exclude"


def test_a_menu_word_on_one_line_redacts_no_number_on_another():
    # "Account" is a site's menu link; the run number and the flight two lines on are the page's own
    text = "Harbourline\nAccount\nChecked in: HB 418\nmain\nBuild 5531 failed"
    assert redact_screen(text) == text


@pytest.mark.parametrize(
    "text, kept, gone",
    [
        ("Account number\n1047 2268\nTransfer", "Account number", "1047 2268"),  # a value under its label
        ("Door code: 4719\nOpen", "Door code:", "4719"),
        ("Pay with\nCard 4111 1111 1111 1111", "Pay with", "4111 1111 1111 1111"),
        ("Sort code\n06-18-42", "Sort code", "06-18-42"),
        ("Your verification code is\n\n482913\nDone", "Done", "482913"),  # a blank line between them
    ],
)
def test_a_secret_on_its_line_or_under_its_label_is_still_redacted(text, kept, gone):
    out = redact_screen(text)
    assert kept in out and gone not in out and "[redacted]" in out
