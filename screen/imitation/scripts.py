"""Scripted screen sessions: segments of frames (OCR text, app, window, URL), audio and accessibility text.

A ``Segment`` shows one screen state for ``seconds``, one frame every ``every`` seconds (fractional rates are
fine: 0.7 s gives timestamps with microseconds). ``{n}``, ``{m}``, ``{k}`` in the text become counters that
change every frame (clocks, health, ammo): routine progress that must not become a signal by itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, tzinfo


@dataclass
class Segment:
    app: str
    window: str
    text: str
    seconds: float
    every: float = 5.0
    url: str = ""
    # (offset seconds, transcription[, speaker name[, device type "Input" | "Output"]])
    audio: list[tuple] = field(default_factory=list)
    ui: str = ""  # accessibility text, emitted once at the start
    skip_ids: int = 0  # frame ids lost after this segment (a source gap)
    pause: float = 0.0  # seconds with no frames after this segment (idle)


@dataclass(frozen=True)
class Frame:
    id: int
    at: datetime
    app: str
    window: str
    url: str
    text: str


@dataclass(frozen=True)
class Audio:
    id: int
    at: datetime
    text: str
    speaker: str = "Wren"
    device_type: str = "Input"


@dataclass(frozen=True)
class UiText:
    id: int
    at: datetime
    app: str
    window: str
    text: str


@dataclass
class Session:
    frames: list[Frame] = field(default_factory=list)
    audio: list[Audio] = field(default_factory=list)
    ui: list[UiText] = field(default_factory=list)

    @property
    def end(self) -> datetime:
        return self.frames[-1].at if self.frames else datetime.min


def _fill(text: str, i: int) -> str:
    return (
        text.replace("{n}", str(17 + (i * 37) % 83))
        .replace("{m}", str((i * 13) % 60))
        .replace("{k}", str(100 + (i * 7) % 900))
    )


def build(start: datetime, segments: Iterable[Segment], *, first_id: int = 1, audio_id: int = 1) -> Session:
    session, frame_id, t, ui_id = Session(), first_id, start, first_id
    for seg in segments:
        count = max(1, int(seg.seconds / seg.every))
        seg_start = t
        for i in range(count):
            session.frames.append(Frame(frame_id, t, seg.app, seg.window, seg.url, _fill(seg.text, frame_id)))
            frame_id += 1
            t = seg_start + timedelta(seconds=seg.every * (i + 1))
        for offset, words, *who in seg.audio:
            session.audio.append(Audio(audio_id, seg_start + timedelta(seconds=offset), words, *who))
            audio_id += 1
        if seg.ui:
            session.ui.append(UiText(ui_id, seg_start, seg.app, seg.window, seg.ui))
            ui_id += 1
        frame_id += seg.skip_ids
        t += timedelta(seconds=seg.pause)
    return session


def merge(*sessions: Session) -> Session:
    out = Session()
    for s in sessions:
        out.frames.extend(s.frames)
        out.audio.extend(s.audio)
        out.ui.extend(s.ui)
    out.frames.sort(key=lambda f: (f.at, f.id))
    out.audio.sort(key=lambda a: (a.at, a.id))
    out.ui.sort(key=lambda u: (u.at, u.id))
    return out


# --- the scripted sessions the tests and the demo use ------------------------------------------------------
LOBBY = "Riftfall\nPLAY\nRanked queue\nMode: Competitive\nFriends online {n}\nSeason 4 rank: Gold II"
GAMEPLAY = "HP {n}\nAmmo {m}/90\n{k} credits\nRound {m}\n0:{m}"
EDITOR = "screen/signals.py\ndef feed(self, item):\n    lines = lines_of(item.text)\nreturn out\nLn {n}, Col {m}"


def game_segments() -> list[Segment]:
    """Lobby -> long contextless gameplay -> defeat -> lobby -> gameplay -> victory -> unrelated dev work."""
    game = {"app": "Riftfall", "window": "Riftfall"}
    return [
        Segment(**game, text=LOBBY, seconds=120, audio=[(30, "okay one more ranked game then I stop")]),
        Segment(**game, text=GAMEPLAY, seconds=25 * 60),
        Segment(**game, text="DEFEAT\nFinal score 9-13\nMatch MVP: Kestrel\nContinue", seconds=20),
        Segment(**game, text=LOBBY, seconds=60),
        Segment(**game, text=GAMEPLAY, seconds=22 * 60),
        Segment(**game, text="VICTORY\nFinal score 13-7\nMatch MVP: you\nContinue", seconds=20),
        Segment(**game, text=LOBBY, seconds=30),
        Segment(app="Code", window="signals.py — almanac", text=EDITOR, seconds=10 * 60, every=7.0),
        Segment(
            app="Terminal",
            window="zsh — almanac",
            text="$ pytest tests/screen -q\n....\n14 passed in 3.2s",
            seconds=60,
            every=7.0,
        ),
        Segment(
            app="Code",
            window="models.py — almanac",
            text=EDITOR.replace("signals", "models"),
            seconds=8 * 60,
            every=7.0,
        ),
    ]


def install_segments() -> list[Segment]:
    """An install breaks; reading about it elsewhere; later the fix is verified (one problem, resolved)."""
    term = {"app": "Terminal", "window": "zsh — ~/lab"}
    return [
        Segment(**term, text="$ pip install transformers\nCollecting tokenizers\nBuilding wheel", seconds=60),
        Segment(
            **term,
            text="$ pip install transformers\nerror: failed building wheel for tokenizers\n"
            "ERROR: Could not build wheels for tokenizers",
            seconds=90,
        ),
        Segment(
            app="Firefox",
            window="tokenizers wheel error - Stack Overflow",
            url="https://stackoverflow.com/questions/7123/tokenizers-wheel",
            text="Could not build wheels for tokenizers\nI get ERROR: Could not build wheels for tokenizers\n"
            "Install the Rust compiler first\n42 answers",
            seconds=240,
        ),
        Segment(**term, text="$ curl https://sh.rustup.rs | sh\nrustc {k} installed to ~/.cargo", seconds=120),
        Segment(
            **term,
            text="$ pip install transformers\nSuccessfully installed tokenizers-0.15.2 transformers-4.38.1",
            seconds=60,
        ),
        Segment(**term, text="$ python -c 'import transformers'\n$", seconds=60),
    ]


def kiln_segments() -> list[Segment]:
    """An unfamiliar domain no rule names: a pottery kiln controller. Fault, re-wire, firing finishes."""
    kiln = {"app": "KilnLink", "window": "KilnLink — Studio kiln"}
    return [
        Segment(
            **kiln, text="Program: Cone 6 glaze\nSegment 1 ramp\nTemp {k} F\nElapsed 0:{m}", seconds=600, every=10.0
        ),
        Segment(
            **kiln,
            text="Program: Cone 6 glaze\nFault E-1: thermocouple open\nFiring halted at {k} F",
            seconds=120,
            every=10.0,
        ),
        Segment(
            app="Notes",
            window="Kiln log",
            text="swapped the thermocouple lead\nrestart cone 6 program",
            seconds=300,
            every=10.0,
        ),
        Segment(
            **kiln, text="Program: Cone 6 glaze\nSegment 3 hold\nTemp {k} F\nElapsed {n}:{m}", seconds=900, every=10.0
        ),
        Segment(**kiln, text="Program: Cone 6 glaze\nFiring complete\nPeak 2232 F\nCooling", seconds=120, every=10.0),
    ]


def shopping_segments() -> list[Segment]:
    shop = {"app": "Safari", "window": "Trail runners - Compare", "url": "https://shop.example.com/compare"}
    return [
        Segment(
            **shop,
            text="Compare trail runners\nPeregrine 14 $139.95\nSpeedgoat 5 $154.99\nReviews 4.{n}",
            seconds=600,
            every=10.0,
        ),
        Segment(
            app="Safari",
            window="Checkout",
            url="https://shop.example.com/checkout",
            text="Order placed\nThank you, your order is confirmed\nOrder total $139.95",
            seconds=60,
            every=10.0,
        ),
    ]


def writing_segments() -> list[Segment]:
    return [
        Segment(
            app="Pages",
            window="Q3 garden plan",
            text="Garden plan\nBeds 1-4 tomatoes\nWord count {k}",
            seconds=1200,
            every=15.0,
        ),
        Segment(
            app="Mail", window="Re: seed order", text="Re: seed order\nYour message was sent", seconds=60, every=15.0
        ),
    ]


def eight_hour_day(start: datetime, *, every: float = 2.0, first_id: int = 1) -> Session:
    """A long scripted working day for the benchmark: repeating blocks of varied work with outcomes."""
    blocks = []
    for b in range(8):
        blocks += [
            Segment(
                app="Code", window=f"module_{b}.py — project", text=EDITOR + f"\nblock {b}", seconds=1200, every=every
            ),
            Segment(
                app="Terminal",
                window="zsh — project",
                text=f"$ make test\nFAILED test_block_{b} - AssertionError",
                seconds=120,
                every=every,
            ),
            Segment(
                app="Code",
                window=f"module_{b}.py — project",
                text=EDITOR + f"\nfix block {b}",
                seconds=600,
                every=every,
            ),
            Segment(
                app="Terminal",
                window="zsh — project",
                text=f"$ make test\n{40 + b} passed in 2.{b}s",
                seconds=120,
                every=every,
            ),
            Segment(app="Riftfall", window="Riftfall", text=GAMEPLAY, seconds=1200, every=every),
            Segment(
                app="Riftfall",
                window="Riftfall",
                text="VICTORY\nFinal score 13-{m}" if b % 2 else "DEFEAT\nFinal score 8-13",
                seconds=20,
                every=every,
            ),
            Segment(app="Riftfall", window="Riftfall", text=LOBBY, seconds=300, every=every),
        ]
    return build(start, blocks, first_id=first_id)


# --- the demo: a few days of varied work (owner-local start times) -----------------------------------------
DEMO_PLAN = [  # (days before today, local start, segments)
    (3, time(9, 0), install_segments),
    (3, time(11, 30), writing_segments),
    (3, time(20, 0), game_segments),
    (2, time(10, 0), kiln_segments),
    (2, time(14, 0), shopping_segments),
    (1, time(19, 0), game_segments),
    (0, time(8, 0), writing_segments),
]


def demo_session(today: date, tz: tzinfo) -> Session:
    sessions, next_id = [], 1
    for days_before, at, segments in DEMO_PLAN:
        start = datetime.combine(today - timedelta(days=days_before), at, tzinfo=tz)
        session = build(start, segments(), first_id=next_id)
        next_id = session.frames[-1].id + 1
        sessions.append(session)
    return merge(*sessions)
