"""Spans kept whole through interruptions and split between activities (pure: the signal deriver alone, on
programs and screens no generated session uses)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from screen.collector.client import Item
from screen.collector.signals import SignalDeriver
from screen.collector.spans import history_rows
from screen.events.reading import read_span

T0 = datetime(2026, 5, 4, 18, 0, tzinfo=UTC)
NOBODY = frozenset()


class Feeder:
    """Frames ``(second, app, window, text[, url])`` and speech ``(second, text, speaker, device)`` in time
    order; remembers the spans that ended."""

    def __init__(self):
        self.deriver, self.ended, self.frame_id, self.audio_id = SignalDeriver(), [], 0, 0

    def frames(self, *frames) -> Feeder:
        for sec, app, window, text, *url in frames:
            self.frame_id += 1
            item = Item("OCR", self.frame_id, T0 + timedelta(seconds=sec), text, app, window, (url or [""])[0])
            self._keep(self.deriver.feed(item))
        return self

    def repeat(self, start: int, stop: int, every: int, app: str, window: str, text: str, url: str = "") -> Feeder:
        return self.frames(*[(s, app, window, text, url) for s in range(start, stop, every)])

    def say(self, sec: int, text: str, speaker: str, device: str) -> Feeder:
        self.audio_id += 1
        item = Item("Audio", self.audio_id, T0 + timedelta(seconds=sec), text, speaker=speaker, device_type=device)
        self._keep(self.deriver.feed(item))
        return self

    def _keep(self, drafts) -> None:
        self.ended += [d.data["span"] for d in drafts if d.kind == "span_ended"]

    def spans(self) -> list[dict]:
        return sorted(self.ended + self.deriver.open_spans(), key=lambda s: s["start"])

    def settle(self, sec: int) -> Feeder:
        self._keep(self.deriver.settle(T0 + timedelta(seconds=sec)))
        return self


def _at(sec: int) -> str:
    return (T0 + timedelta(seconds=sec)).isoformat()


HUD = "Lap 2/4\nPos 5/10\n212 km/h\nBest 1:04.2"
PAUSED = "Paused\nResume race\nControls\nQuit"


def test_a_pause_menu_in_a_fullscreen_race_keeps_the_race_one_span():
    f = Feeder().repeat(0, 120, 10, "", "", "Garage\nCareer\nQuick race\nSettings")
    f.repeat(120, 400, 10, "", "", HUD).repeat(400, 460, 10, "", "", PAUSED).repeat(460, 700, 10, "", "", HUD)
    f.frames((700, "", "", "Race complete: 2nd\nTotal 6:01.3\nContinue"), (720, "", "", "Garage\nCareer\nQuick race"))
    race = next(s for s in f.spans() if s["anchors"])
    assert race["start"] == _at(120) and race["last"] == _at(700)  # the menu before it and the pause are not it
    assert read_span(race, owner_names=NOBODY).outcome == "loss"


def test_pages_of_one_app_on_a_mirrored_phone_are_one_activity():
    f = Feeder()
    f.repeat(0, 200, 10, "Phone Screen", "Pixel", "Quillfeather Books\nThe Glass Orchard 12.99\nAdd to basket")
    f.repeat(200, 300, 10, "Phone Screen", "Pixel", "Quillfeather Books\nBasket (1)\nSubtotal 12.99\nCheckout")
    f.repeat(300, 400, 10, "Phone Screen", "Pixel", "Quillfeather Books\nPay with card 5521\nPlace order")
    f.repeat(400, 450, 10, "Phone Screen", "Pixel", "Quillfeather Books\nOrder QX77 placed\nThank you")
    (order,) = [s for s in f.spans() if s["anchors"]]
    assert order["start"] == _at(0)


def test_a_banner_over_an_unchanged_screen_is_no_outcome_and_ends_nothing():
    form = "Membership renewal\nMember no. 55120\nRenew for one year\nContinue"
    f = Feeder().repeat(0, 300, 10, "Firefox", "Renewal — Rowing Club", form, "https://rowclub.test/renew")
    f.frames((300, "Firefox", "Renewal — Rowing Club", form + "\nMessages\nnow\nJo: we lost the final", "https://rowclub.test/renew"))
    f.repeat(310, 600, 10, "Firefox", "Renewal — Rowing Club", form, "https://rowclub.test/renew")
    f.frames((600, "Firefox", "Done — Rowing Club", "Renewal complete\nSee you on the water", "https://rowclub.test/renew/done"))
    (span,) = [s for s in f.spans() if s["app"] == "Firefox"]
    assert [a["line"] for a in span["anchors"]] == ["Renewal complete"]
    assert "Jo: we lost the final" not in span["seen"].values()


def test_a_long_look_elsewhere_resumes_a_span_that_had_nothing_to_show():
    f = Feeder().repeat(0, 600, 15, "BrewCtl", "Mash tun — BrewCtl", "Program: Pale ale\nStep 2 mash\nTemp 66 C")
    f.repeat(600, 1900, 30, "Notes", "Notes", "hops list\nline 4")  # 21 minutes away
    f.repeat(1900, 2400, 15, "BrewCtl", "Mash tun — BrewCtl", "Program: Pale ale\nStep 4 boil\nTemp 99 C")
    f.frames((2400, "BrewCtl", "Mash tun — BrewCtl", "Program: Pale ale\nBatch finished"))
    (brew,) = [s for s in f.spans() if s["app"] == "BrewCtl"]
    assert brew["start"] == _at(0) and read_span(brew, owner_names=NOBODY).outcome == "success"


def test_a_step_done_does_not_end_the_activity():
    site = {"app": "Safari", "url": "https://grantly.test/apply"}
    f = Feeder().repeat(0, 200, 10, site["app"], "Arts grant — Grantly", "Step 3 of 4\nUpload budget\nContinue", site["url"])
    f.repeat(200, 260, 10, site["app"], "Arts grant — Grantly", "Step 3 of 4\nbudget.xlsx uploaded\nContinue", site["url"])
    f.repeat(260, 400, 10, site["app"], "Arts grant — Grantly", "Step 4 of 4\nDeclaration\nSubmit", site["url"])
    f.frames((400, site["app"], "Sent — Grantly", "Application submitted\nReference GR-4410", site["url"] + "/done"))
    (grant,) = [s for s in f.spans() if s["app"] == "Safari"]
    assert grant["start"] == _at(0) and read_span(grant, owner_names=NOBODY).outcome == "confirmed"


def test_another_conversation_in_the_same_chat_program_is_another_activity():
    f = Feeder().repeat(0, 60, 10, "Threema", "Ana Duarte", "Ana Duarte\nsee you there\nType a message")
    f.frames((60, "Threema", "Ana Duarte", "Ana Duarte\nsee you there\nOn my way\nSent\nType a message"))
    f.repeat(120, 200, 10, "Threema", "Felix Nowicki", "Felix Nowicki\nthe van got delivered\nType a message")
    f.frames((200, "Threema", "Felix Nowicki", "Felix Nowicki\nthe van got delivered\nGreat\nDelivered\nType a message"))
    chats = [s for s in f.spans() if s["app"] == "Threema"]
    assert [s["windows"][0] for s in chats] == ["Ana Duarte", "Felix Nowicki"]


def test_speech_stays_with_the_call_while_another_window_is_looked_at_and_none_is_dropped():
    call = "Budget review\nParticipants (3)\nMute\nLeave"
    f = Feeder().repeat(0, 300, 15, "Confab", "Budget review — Confab", call)
    for i in range(60):  # a long call: sixty things said, the last at its very end
        f.say(5 * i, f"point number {i} about the budget", "Osvaldo" if i % 2 else "", "Output" if i % 2 else "Input")
        if i == 30:
            f.repeat(150, 200, 10, "Calendar", "Calendar", "Week 19\nDentist")
    (span,) = [s for s in f.spans() if s["app"] == "Confab"]
    said = [s["text"] for s in span["speech"]]
    assert len(said) == 60 and said[-1] == "point number 59 about the budget"


def test_the_end_of_a_day_ends_its_last_activity_without_a_later_frame():
    f = Feeder().repeat(0, 120, 10, "Ledgerly", "Invoices", "Invoice 7781\nMark as paid")
    f.frames((120, "Ledgerly", "Invoices", "Invoice 7781\nPaid"))
    assert not f.ended
    f.settle(120 + 16 * 60)
    assert [s["app"] for s in f.ended] == ["Ledgerly"] and f.ended[0]["reason"] == "left"


def test_a_list_titled_as_the_past_holds_older_results():
    lines = ["Trivia night", "Past rounds", "vs Owls won", "vs Herons lost", "Play again"]
    assert history_rows(lines) == {"vs Owls won", "vs Herons lost"}
    # Two result lines of one shape but different results are a result screen, not a list.
    assert history_rows(["Blue resigned", "Red wins", "Rematch"]) == set()


def test_on_a_mirrored_phone_a_new_screen_after_a_look_away_is_another_activity_whatever_its_window_says():
    # the mirror's window names the device (its name may change as it reconnects), never what the phone shows
    f = Feeder().repeat(0, 200, 10, "Vysor", "Galaxy Tab", "Puzzle Pond\nLevel 12\nMoves 9")
    f.frames((200, "Vysor", "Galaxy Tab", "Level complete\nNext level"))
    f.repeat(210, 300, 10, "Vysor", "Galaxy Tab", "Puzzle Pond\nRecent levels\nLevel 11 cleared\nLevel 10 cleared")
    f.repeat(300, 800, 30, "Notes", "Notes", "hops list\nline 4")  # 8 minutes elsewhere
    f.repeat(800, 1400, 20, "Vysor", "Galaxy Tab S9", "Leafreader\nChapter 30\nThe lighthouse keeper slept\n99% read")
    f.frames((1400, "Vysor", "Galaxy Tab S9", "Leafreader\nYou finished the book\nRate it"))
    book = next(s for s in f.spans() if "You finished the book" in [a["line"] for a in s["anchors"]])
    assert book["start"] == _at(800)
    assert not any("Puzzle Pond" in line for line in book["seen"].values())


def test_speech_heard_during_a_form_does_not_split_it_at_its_next_page():
    site = {"app": "Safari", "url": "https://kilnclub.test/join"}
    f = Feeder().repeat(0, 240, 10, site["app"], "Join — Kiln Club", "Step 1 of 2\nYour name\nContinue", site["url"])
    f.say(60, "did you see the match last night", "", "Output")
    f.repeat(240, 480, 10, site["app"], "Payment — Kiln Club", "Step 2 of 2\nCard number\nPay 40.00", site["url"])
    f.frames((480, site["app"], "Welcome — Kiln Club", "Membership confirmed\nWelcome aboard", site["url"]))
    (join,) = [s for s in f.spans() if s["app"] == "Safari"]
    assert join["start"] == _at(0) and read_span(join, owner_names=NOBODY).outcome == "confirmed"
