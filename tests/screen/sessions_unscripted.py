"""Five scripted ScreenPipe sessions in domains the screen code names nowhere (test data, not rules).

Each returns ``(start_local, segments, truth)``: segments as the imitation plays them from ``start_local`` (an
aware datetime in the owner's zone), and the truth a person would write down: the events, each with its family,
outcome, polarity, start and end (local), the local date, a line its outcome evidence must show, and strings
that must never appear in a title, an outcome or a user action (an assistant's inventions).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from screen.imitation.scripts import Segment


@dataclass
class Truth:
    family: str
    outcome: str
    polarity: str
    start: datetime
    end: datetime
    evidence: str  # the outcome evidence excerpt shows this
    attrs: dict = field(default_factory=dict)


@dataclass
class Scripted:
    tz: str
    display_name: str
    segments: list[Segment]
    start: datetime
    truths: list[Truth]
    collects: list[datetime]  # phased collects (local), the last one after the end
    forbidden: tuple[str, ...] = ()


def _at(start: datetime, segments: list[Segment], index: int, *, end: bool = False) -> datetime:
    """Local start (or end) of segment ``index`` as the imitation plays it."""
    t = start
    for i, seg in enumerate(segments):
        count = max(1, int(seg.seconds / seg.every))
        if i == index:
            return t + timedelta(seconds=seg.every * (count - 1)) if end else t
        t += timedelta(seconds=seg.every * count) + timedelta(seconds=seg.pause)
    raise IndexError(index)


# 1. An online order placed one evening, out for delivery and delivered with a substitution the next day ----
def grocery_order() -> Scripted:
    tz = ZoneInfo("America/Chicago")
    start = datetime(2026, 6, 8, 19, 40, tzinfo=tz)
    shop = {"app": "Firefox"}
    site = "https://www.larkspurgrocer.example"
    segs = [
        Segment(
            **shop,
            window="Your basket — Larkspur Grocer",
            url=f"{site}/basket",
            every=10,
            seconds=8 * 60,
            text="Your basket\nRolled oats 1kg $4.29\nOat milk 1L $2.99\nSourdough loaf $5.50\n"
            "Subtotal $12.78\nCheckout",
        ),
        Segment(
            **shop,
            window="Checkout — Larkspur Grocer",
            url=f"{site}/checkout",
            every=10,
            seconds=4 * 60,
            text="Delivery slot\nTomorrow 12:00-14:00\nPay with card ending 4417\nPlace order",
        ),
        Segment(
            **shop,
            window="Order LG-58213 — Larkspur Grocer",
            url=f"{site}/orders/LG-58213",
            every=10,
            seconds=2 * 60,
            text="Order LG-58213 placed\nThank you, we will deliver tomorrow 12:00-14:00\nOrder total $12.78",
        ),
        Segment(
            app="Notes",
            window="Week plan",
            text="Week plan\nsoup on Tuesday\nline {n}",
            every=15,
            seconds=10 * 60,
            pause=15 * 3600,
        ),  # overnight: nothing on screen
        Segment(
            **shop,
            window="Order LG-58213 — Larkspur Grocer",
            url=f"{site}/orders/LG-58213",
            every=10,
            seconds=3 * 60,
            pause=80 * 60,
            text="Order LG-58213\nOut for delivery\nDriver: Tomasz\nArriving 12:40-13:10",
        ),
        Segment(
            **shop,
            window="Order LG-58213 — Larkspur Grocer",
            url=f"{site}/orders/LG-58213",
            every=10,
            seconds=3 * 60,
            text="Order LG-58213 delivered\n1 item substituted: Oat milk 1L for Soy milk 1L\n"
            "Delivered at 13:02\nRate your delivery",
        ),
        Segment(
            app="Notes", window="Week plan", text="Week plan\nsoup on Tuesday\nbread {n}", every=15, seconds=5 * 60
        ),
    ]
    truth = Truth(
        family="purchase.order",
        outcome="delivered",
        polarity="mixed",
        start=start,
        end=_at(start, segs, 5, end=True),
        evidence="delivered",
        attrs={"detail": "substituted"},
    )
    collects = [
        datetime(2026, 6, 8, 21, 0, tzinfo=tz),
        datetime(2026, 6, 9, 12, 0, tzinfo=tz),
        _at(start, segs, 6, end=True) + timedelta(minutes=1),
    ]
    return Scripted("America/Chicago", "Wren Halvorsen", segs, start, [truth], collects)


# 2. A pipeline fails in the morning, an older green run in the sidebar, the fix passes hours later -----------
def pipeline_fix() -> Scripted:
    tz = ZoneInfo("Europe/Berlin")
    start = datetime(2026, 6, 10, 10, 0, tzinfo=tz)
    ci = {"app": "Chromium", "url": "https://builds.brambleworks.example/heron/pipelines/771"}
    failed = (
        "heron / main\nPipeline 771 failed\nlint passed\nunit-tests failed: test_parse_dates\n"
        "Recent pipelines\n770 main passed 2h ago\n769 main passed yesterday"
    )
    segs = [
        Segment(**ci, window="Pipeline 771 · heron · Brambleworks", text=failed, every=10, seconds=6 * 60),
        Segment(
            app="Code",
            window="dates.py — heron",
            every=10,
            seconds=50 * 60,
            text="heron/dates.py\ndef parse_dates(text):\n    return [parse(t) for t in split(text)]\nLn {n}",
        ),
        Segment(**ci, window="Pipeline 771 · heron · Brambleworks", text=failed, every=10, seconds=2 * 60),
        Segment(
            app="Code",
            window="dates.py — heron",
            every=10,
            seconds=90 * 60,
            text="heron/dates.py\ndef parse_dates(text, tz=None):\n    return [parse(t, tz) for t in split(text)]"
            "\nLn {n}",
        ),
        Segment(
            app="Chromium",
            url="https://builds.brambleworks.example/heron/pipelines/772",
            window="Pipeline 772 · heron · Brambleworks",
            every=10,
            seconds=6 * 60,
            text="heron / main\nPipeline 772 running\nlint running\nunit-tests queued\nRecent pipelines\n"
            "771 main failed 2h ago\n770 main passed 4h ago",
        ),
        Segment(
            app="Chromium",
            url="https://builds.brambleworks.example/heron/pipelines/772",
            window="Pipeline 772 · heron · Brambleworks",
            every=10,
            seconds=3 * 60,
            text="heron / main\nPipeline 772 passed\nlint passed\nunit-tests passed\nRecent pipelines\n"
            "771 main failed 2h ago\n770 main passed 4h ago",
        ),
        Segment(app="Code", window="README.md — heron", every=10, seconds=20 * 60, text="# heron\nusage {n}"),
    ]
    truth = Truth(
        family="software.ci",
        outcome="resolved",
        polarity="positive",
        start=start,
        end=_at(start, segs, 5, end=True),
        evidence="Pipeline 772 passed",
    )
    collects = [
        _at(start, segs, 1) + timedelta(minutes=5),
        _at(start, segs, 2, end=True) + timedelta(minutes=2),
        _at(start, segs, 6, end=True) + timedelta(minutes=1),
    ]
    return Scripted("Europe/Berlin", "Wren Halvorsen", segs, start, [truth], collects)


# 3. Two board games played fullscreen: a resignation won as White, a draw as Black ---------------------------
def board_games() -> Scripted:
    tz = ZoneInfo("America/Sao_Paulo")
    start = datetime(2026, 6, 12, 21, 0, tzinfo=tz)
    game = {"app": "Castellan", "window": "Castellan", "every": 5}
    lobby = "Castellan\nPlay online\nRapid 10+0\nFind opponent\nPlayers online {k}"

    def board(me: str, them: str, name: str, turn: str) -> str:
        return f"{me} (you) 0:{{m}}\n{them}: {name} 0:{{m}}\nMove {{n}}\n{turn}\nOffer draw\nResign\na b c d e f g h"

    def play(me, them, name, minutes):
        out = []
        for i in range(minutes):
            turn = "Your move" if i % 2 == 0 else f"{name} is thinking"
            out.append(Segment(**game, text=board(me, them, name, turn), seconds=60))
        return out

    segs = [Segment(**game, text=lobby, seconds=60)]
    g1 = len(segs)
    segs += play("White", "Black", "Orsolya", 20)
    r1 = len(segs)
    segs.append(Segment(**game, seconds=40, text="Black resigned\nWhite wins\nRating 1512 (+8)\nRematch\nNew game"))
    segs.append(Segment(**game, text=lobby, seconds=60))
    g2 = len(segs)
    segs += play("Black", "White", "Kazimir", 18)
    r2 = len(segs)
    segs.append(Segment(**game, seconds=40, text="Draw by repetition\nGame drawn\nRating 1512 (+0)\nNew game"))
    segs.append(Segment(**game, text=lobby, seconds=60))
    segs.append(Segment(app="Thunderbird", window="Inbox", text="Inbox\nNewsletter {n}", seconds=10 * 60, every=15))
    truths = [
        Truth(
            "game.match",
            "win",
            "positive",
            _at(start, segs, g1),
            _at(start, segs, r1, end=True),
            "Black resigned",
            {"outcome_subject": "other"},
        ),
        Truth(
            "game.match", "draw", "neutral", _at(start, segs, g2), _at(start, segs, r2, end=True), "Draw by repetition"
        ),
    ]
    collects = [
        _at(start, segs, g1 + 8),
        _at(start, segs, g2 + 5),
        _at(start, segs, len(segs) - 1, end=True) + timedelta(minutes=1),
    ]
    return Scripted("America/Sao_Paulo", "Wren Halvorsen", segs, start, truths, collects)


# 4. A flight check-in across local midnight far east, then a water bill paid ---------------------------------
def checkin_and_bill() -> Scripted:
    tz = ZoneInfo("Pacific/Auckland")
    start = datetime(2026, 6, 14, 23, 48, tzinfo=tz)
    air = {"app": "Firefox", "url": "https://www.aureliaair.example/checkin/QX7L2M"}
    pay = {"app": "Firefox", "url": "https://pay.northwickwater.example/bills/june"}
    segs = [
        Segment(
            **air,
            window="Online check-in — Aurelia Air",
            every=10,
            seconds=10 * 60,
            text="Online check-in\nFlight AU 311 to Lisbon\nPassenger: Wren Halvorsen\nSelect your seat",
        ),
        Segment(
            **air,
            window="Online check-in — Aurelia Air",
            every=10,
            seconds=8 * 60,
            text="Seat 14C selected\nBaggage: 1 x 23kg\nConfirm check-in",
        ),
        Segment(
            **air,
            window="Boarding pass — Aurelia Air",
            every=10,
            seconds=6 * 60,
            text="You're checked in\nBoarding pass ready\nFlight AU 311 gate opens 06:40\nBooking ref QX7L2M",
        ),
        Segment(
            **pay,
            window="Pay your bill — Northwick Water",
            every=10,
            seconds=5 * 60,
            text="Water bill June\nAmount due $84.20\nDue date 15 June\nPay now",
        ),
        Segment(
            **pay,
            window="Payment — Northwick Water",
            every=10,
            seconds=2 * 60,
            text="Payment successful\nYou paid $84.20\nReference NW-449021",
        ),
        Segment(app="Notes", window="Trip", text="Trip\npack charger\nline {n}", every=15, seconds=20 * 60),
    ]
    truths = [
        Truth("travel.check_in", "confirmed", "positive", start, _at(start, segs, 2, end=True), "checked in"),
        Truth(
            "finance.bill_payment", "paid", "positive", _at(start, segs, 3), _at(start, segs, 4, end=True), "You paid"
        ),
    ]
    collects = [datetime(2026, 6, 15, 0, 5, tzinfo=tz), _at(start, segs, 5, end=True) + timedelta(minutes=1)]
    return Scripted("Pacific/Auckland", "Wren Halvorsen", segs, start, truths, collects)


# 5. A video call with an AI assistant open: others' speech is theirs, the assistant's decision is nobody's ---
ASSISTANT_INVENTIONS = ("Harbor Hall", "4,800", "4800", "signs the contract")


def call_with_assistant() -> Scripted:
    tz = ZoneInfo("Europe/London")
    start = datetime(2026, 6, 16, 15, 0, tzinfo=tz)
    call = {"app": "Parley", "window": "Spring offsite planning — Parley", "every": 10}
    ui = "Spring offsite planning\nParticipants (3)\nMute\nStop video\nShare screen\nLeave call\nRecording {m}"
    segs = [
        Segment(
            **call,
            text=ui,
            seconds=12 * 60,
            audio=[
                (30, "I think the lakeside venue works if we stay under five thousand", "Ines", "Output"),
                (90, "Let's get two quotes before we decide anything", "Wren", "Input"),
                (200, "I can sign on Friday if finance agrees", "Teodor", "Output"),
            ],
        ),
        Segment(
            app="Quill Assistant",
            window="Quill Assistant",
            every=10,
            seconds=2 * 60,
            text="Suggested decision: book Harbor Hall for $4,800\nBudget approved: $4,800\n"
            "Teodor signs the contract\nBooking confirmed",
        ),
        Segment(
            **call,
            seconds=10 * 60,
            text=ui + "\nAI Companion\nSummary so far: venue booked for $4,800\nAction: Teodor signs the contract",
            audio=[
                (60, "So we wait for the second quote then", "Ines", "Output"),
                (120, "Yes, I'll send both quotes round on Monday", "Wren", "Input"),
            ],
        ),
        Segment(**call, seconds=60, text="You left the meeting\nRejoin\nReturn to home"),
        Segment(app="Notes", window="Offsite", text="Offsite\nquotes by Monday\nline {n}", every=15, seconds=20 * 60),
    ]
    # Nothing was decided on the call ("two quotes before we decide anything"): the event says so.
    truth = Truth(
        "meeting.call", "no_decision", "neutral", start, _at(start, segs, 3, end=True), "You left the meeting"
    )
    collects = [_at(start, segs, 2) + timedelta(minutes=3), _at(start, segs, 4, end=True) + timedelta(minutes=1)]
    return Scripted("Europe/London", "Wren Halvorsen", segs, start, [truth], collects, forbidden=ASSISTANT_INVENTIONS)


ALL = {
    "grocery_order": grocery_order,
    "pipeline_fix": pipeline_fix,
    "board_games": board_games,
    "checkin_and_bill": checkin_and_bill,
    "call_with_assistant": call_with_assistant,
}
