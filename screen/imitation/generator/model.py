"""The shapes a generated session is made of: where things are shown (``Surface``), what is shown for a while
(``Phase``), one activity with what a person would write down about it (``Activity``, ``Expected``), and the
whole session (``GeneratedSession``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

# Distractor kinds (the bench reports a pass rate for each).
NEWS = "news"  # a news page or feed whose headlines report outcomes of other people
HISTORY = "history"  # sidebars, history lists and recaps of older results inside the activity's own screens
NOTIFICATION = "notification"  # a banner about something else laid over the screen, or the notification centre
ASSISTANT = "assistant"  # an AI assistant pane or window proposing outcomes and decisions
SPEECH = "speech"  # other people's speech on the output device
INTERRUPTION = "interruption"  # switching away (another program, a pause menu) and coming back
DISTRACTORS = (NEWS, HISTORY, NOTIFICATION, ASSISTANT, SPEECH, INTERRUPTION)

# Surfaces.
BROWSER, NATIVE, FULLSCREEN, PHONE = "browser", "native", "fullscreen", "phone"


@dataclass(frozen=True)
class Surface:
    """Where a screen is shown: ScreenPipe's app name, window title and browser URL (all empty fullscreen)."""

    app: str
    window: str = ""
    url: str = ""
    kind: str = NATIVE


@dataclass
class Phase:
    """One screen state shown for ``seconds``, a frame every ``every`` seconds; ``audio`` items are
    ``(offset seconds, text, speaker, device type)``. ``part`` says what the phase is to the activity."""

    surface: Surface
    text: str
    seconds: float
    every: float = 10.0
    audio: list[tuple] = field(default_factory=list)
    part: str = "body"  # lead (menu, lobby: before the activity) | body | outcome | after | away
    pause: float = 0.0  # seconds with no frames after this phase


@dataclass
class Said:
    """One thing said that the event must carry as an assertion with its speaker's role."""

    text: str
    speaker: str  # as the assertion's evidence names the speaker ("" = not checked)
    role: str  # user_authored | other_person


@dataclass
class Activity:
    """One activity as a generator composes it, and the truth about it."""

    kind: str  # the generator's family label: shopping, travel, games, ...
    family: str  # the event family a person expects (``purchase.order``)
    outcome: str
    polarity: str
    evidence: str  # the outcome evidence shows this text
    phases: list[Phase]
    subject: str = ""  # contests: who the outcome applies to ("you" | "other")
    detail: str = ""
    opponent: str = ""  # contests: who the owner played, as the screen names them
    said: list[Said] = field(default_factory=list)
    forbidden: list[str] = field(default_factory=list)  # never in a title, outcome, action or own assertion
    later: list[Phase] = field(default_factory=list)  # an answer that arrives later (next morning)
    later_outcome: str = ""
    later_polarity: str = ""
    later_evidence: str = ""
    later_detail: str = ""
    surface_kind: str = NATIVE
    place: object = None  # where it happened (a second activity of the same kind may happen there too)
    distractors: set[str] = field(default_factory=set)
    features: set[str] = field(default_factory=set)


@dataclass
class Expected:
    """One event a person would write down for the session, in the terms the API answers in."""

    kind: str
    family: str
    outcome: str
    polarity: str
    start: datetime  # aware, UTC
    end: datetime
    local_date: date
    evidence: str
    subject: str = ""
    detail: str = ""
    opponent: str = ""
    said: list[Said] = field(default_factory=list)
    distractors: set[str] = field(default_factory=set)
    features: set[str] = field(default_factory=set)


@dataclass
class GeneratedSession:
    seed: int
    index: int
    partition: str
    tz: str
    display_name: str
    username: str
    start: datetime  # the first frame, aware UTC
    end: datetime  # the last frame
    segments: list  # screen.imitation.scripts.Segment
    expected: list[Expected]
    collects: list[datetime]  # phased collects (aware UTC), the last one after the end
    forbidden: list[str] = field(default_factory=list)
    others_said: list[str] = field(default_factory=list)  # never the owner's (user-authored) words

    @property
    def name(self) -> str:
        return f"{self.partition}-{self.seed}-{self.index}"

    @property
    def kinds(self) -> set[str]:
        return {e.kind for e in self.expected}

    @property
    def distractors(self) -> set[str]:
        return set().union(*(e.distractors for e in self.expected)) if self.expected else set()
