"""Composing a whole session: an owner in a time zone, one to three activities (sometimes two of the same kind
back to back, sometimes one across local midnight), distractors laid into and between them, fillers, answers
that arrive the next morning, and phased collects; the truth comes out alongside the frames.

``session(seed, index, partition)`` is a pure function of its arguments: the same call gives the same session.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from screen.imitation.generator import commerce, distractors, leisure, work
from screen.imitation.generator.distractors import Extra
from screen.imitation.generator.model import (
    ASSISTANT,
    INTERRUPTION,
    NEWS,
    Activity,
    Expected,
    GeneratedSession,
    Phase,
)
from screen.imitation.generator.people import Owner
from screen.imitation.generator.vocab import FIRST_NAMES, LAST_NAMES, TIMEZONES, Words
from screen.imitation.scripts import Segment

KINDS = {
    "shopping": commerce.shopping,
    "travel": commerce.travel,
    "payments": commerce.payment,
    "appointments": commerce.appointment,
    "software": work.software,
    "meetings": work.meeting,
    "messaging": work.messaging,
    "forms": work.form,
    "learning": work.lesson,
    "games": leisure.game,
    "reading": leisure.reading,
    "media": leisure.media,
    "fitness": leisure.workout,
    "machines": leisure.machine,
}
REPEATABLE = {"games": leisure.game}  # a second one in the same place right after
MORNING = time(7, 30)
BASE_DAY = datetime(2026, 3, 2, tzinfo=UTC)  # sessions fall on days after this one, never in the future


class Timeline:
    """Lays phases end to end exactly as ``scripts.build`` plays segments, remembering each one's frames."""

    def __init__(self, start: datetime):
        self.t = start
        self.segments: list[Segment] = []

    def add(self, phase: Phase) -> tuple[datetime, datetime]:
        count = max(1, int(phase.seconds / phase.every))
        first = self.t
        last = first + timedelta(seconds=phase.every * (count - 1))
        s = phase.surface
        self.segments.append(
            Segment(
                app=s.app,
                window=s.window,
                url=s.url,
                text=phase.text,
                seconds=phase.seconds,
                every=phase.every,
                audio=list(phase.audio),
                pause=phase.pause,
            )
        )
        self.t = first + timedelta(seconds=phase.every * count + phase.pause)
        return first, last

    def wait_until(self, at: datetime) -> None:
        """No frames until ``at`` (the last segment's pause grows)."""
        if at > self.t and self.segments:
            extra = (at - self.t).total_seconds()
            self.segments[-1].pause += extra
            self.t = at


def _owner(w: Words, index: int) -> Owner:
    first, last = w.pick("first", FIRST_NAMES), w.pick("last", LAST_NAMES)
    return Owner(first, last, w.pick("tz", TIMEZONES), f"gen{index}-{first.lower()}")


def _plan(w: Words, index: int) -> list[str]:
    """Which activities, in order: the first cycles through every kind (so each is well covered)."""
    names = list(KINDS)
    kinds = [names[index % len(names)]]
    for _ in range(w.rng.choice((0, 1, 1, 2))):
        kinds.append(w.rng.choice(names))
    if kinds[0] in REPEATABLE and w.chance(0.35):
        kinds.insert(1, kinds[0] + "+again")
    elif w.chance(0.12):
        kinds.insert(1, kinds[0])  # the same kind again, somewhere else
    return kinds


def _activity(w: Words, owner: Owner, kind: str, previous: Activity | None) -> Activity:
    if kind.endswith("+again") and previous is not None and previous.place is not None:
        act = REPEATABLE[kind.removesuffix("+again")](w, owner, again=previous.place)
        act.features.add("same_place_again")
        return act
    return KINDS[kind.removesuffix("+again")](w, owner)


def _distract(w: Words, act: Activity, extra: Extra) -> None:
    """Lay distractors into the activity, each with its own chance (a pane first: a banner then passes over
    the screen as it is, pane included)."""
    if act.kind != "meetings":
        if w.chance(0.2):
            distractors.assistant_pane(w, act, extra)
        elif w.chance(0.1):
            distractors.interrupt(w, act, extra, ASSISTANT)
        if w.chance(0.2):
            distractors.overheard(w, act, extra)
    if w.chance(0.25):
        distractors.interrupt(w, act, extra, INTERRUPTION)
    if w.chance(0.12):
        distractors.interrupt(w, act, extra, NEWS)
    if w.chance(0.25):
        distractors.notify(w, act, extra)


def _expected(act: Activity, frames: list[tuple[datetime, datetime]], later: list, tz: ZoneInfo) -> Expected:
    parts = [(p.part, f) for p, f in zip(act.phases, frames, strict=True)]
    start = next(f[0] for part, f in parts if part in ("body", "outcome"))
    end = ([f[1] for part, f in parts if part == "outcome"] or [f[1] for part, f in parts if part == "body"])[-1]
    outcome, polarity, evidence, detail = act.outcome, act.polarity, act.evidence, act.detail
    if later:
        end = later[-1][1]
        outcome, polarity, evidence = act.later_outcome, act.later_polarity, act.later_evidence
        detail = act.later_detail
    features = set(act.features) | {f"on {act.surface_kind}"}
    if start.astimezone(tz).date() != end.astimezone(tz).date():
        features.add("across midnight")
    return Expected(
        kind=act.kind,
        family=act.family,
        outcome=outcome,
        polarity=polarity,
        start=start,
        end=end,
        local_date=start.astimezone(tz).date(),
        evidence=evidence,
        subject=act.subject,
        detail=detail,
        opponent=act.opponent,
        said=act.said,
        distractors=set(act.distractors),
        features=features,
    )


def _start(w: Words, tz: ZoneInfo, index: int, first: Activity, midnight: bool) -> datetime:
    """When the first activity starts: a time of day, or so that it is under way at local midnight."""
    day = (BASE_DAY + timedelta(days=index % 200)).date()
    if not midnight:
        return datetime.combine(day, time(w.number(7, 20), w.number(0, 59)), tzinfo=tz).astimezone(UTC)
    lead = sum(p.seconds + p.pause for p in first.phases[: _first_body(first)])
    proper = sum(p.seconds + p.pause for p in first.phases) - lead
    at_midnight = datetime.combine(day + timedelta(days=1), time(0, 0), tzinfo=tz).astimezone(UTC)
    return at_midnight - timedelta(seconds=lead + proper * w.between(0.2, 0.8))


def _first_body(act: Activity) -> int:
    return next(i for i, p in enumerate(act.phases) if p.part in ("body", "outcome"))


def session(seed: int, index: int, partition: str) -> GeneratedSession:
    """The ``index``-th session of ``seed`` drawn from the ``partition``'s word pools."""
    w = Words(random.Random(f"{partition}:{seed}:{index}"), partition)
    owner = _owner(w, index)
    tz = ZoneInfo(owner.tz)
    plan = _plan(w, index)
    midnight = w.chance(0.2)
    extra = Extra()
    acts: list[Activity] = []
    for kind in plan:
        act = _activity(w, owner, kind, acts[-1] if acts else None)
        _distract(w, act, extra)
        acts.append(act)
    first_minutes = w.between(2, 8)
    start = _start(w, tz, index, acts[0], midnight) - timedelta(minutes=first_minutes)
    timeline = Timeline(start)
    timeline.add(_sized(distractors.filler(w), first_minutes * 60))
    frames: list[list] = []
    for i, act in enumerate(acts):
        if i and w.chance(0.15):
            for phase in distractors.news(w, extra):
                timeline.add(phase)
            act.distractors.add(NEWS)
            acts[i - 1].distractors.add(NEWS)
        if i and not act.features & {"same_place_again"}:
            timeline.add(distractors.filler(w, act.phases[0].surface.app))
        frames.append([timeline.add(p) for p in act.phases])
    timeline.add(distractors.filler(w))
    laters: list[list] = [[] for _ in acts]
    if any(a.later for a in acts):
        local_end = timeline.t.astimezone(tz)
        morning = datetime.combine(local_end.date() + timedelta(days=1), MORNING, tzinfo=tz)
        timeline.wait_until((morning + timedelta(minutes=w.number(0, 120))).astimezone(UTC))
        timeline.add(distractors.filler(w))
        for i, act in enumerate(acts):
            if act.later:
                laters[i] = [timeline.add(p) for p in act.later]
                timeline.add(distractors.filler(w))
    end = timeline.t
    expected = [_expected(a, f, later, tz) for a, f, later in zip(acts, frames, laters, strict=True)]
    collects = _collects(w, start, end, expected, tz)
    for e in expected:
        if any(e.start < c < e.end for c in collects):
            e.features.add("collected while under way")
    if len({e.family for e in expected}) < len(expected):
        for e in expected:
            e.features.add("same family twice")
    forbidden = extra.forbidden + [x for a in acts for x in a.forbidden]
    return GeneratedSession(
        seed=seed,
        index=index,
        partition=partition,
        tz=owner.tz,
        display_name=owner.display_name,
        username=owner.username,
        start=start,
        end=end,
        segments=timeline.segments,
        expected=sorted(expected, key=lambda e: e.start),
        collects=collects,
        forbidden=forbidden,
        others_said=extra.others_said + [s.text for a in acts for s in a.said if s.role == "other_person"],
    )


def _sized(phase: Phase, seconds: float) -> Phase:
    phase.seconds = max(phase.every, seconds)
    return phase


def _collects(w: Words, start: datetime, end: datetime, expected: list[Expected], tz: ZoneInfo) -> list[datetime]:
    """Collects as a person's schedule would run them: some while things unfold, one after the end."""
    moments = set()
    for _ in range(w.rng.choice((0, 1, 2, 3))):
        moments.add(start + (end - start) * w.rng.random())
    for e in expected:
        if e.start.astimezone(tz).date() != e.end.astimezone(tz).date() and w.chance(0.7):
            local_midnight = datetime.combine(e.end.astimezone(tz).date(), time(0, 0), tzinfo=tz)
            moments.add(local_midnight.astimezone(UTC) + timedelta(minutes=w.number(1, 10)))
    last = end + timedelta(minutes=w.between(1, 25))
    return sorted(m for m in moments if start < m < last) + [last]
