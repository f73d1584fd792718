"""Reading a played session back through the API and judging it against its truth, in the terms a person
checks: how many events, and for each its family, outcome and polarity, who a contest's outcome applies to, start
and end within two minutes, the owner-local date, outcome evidence that shows the outcome (with its frame, from
the activity's own time), everything said kept with its speaker's role, and no text that is not the owner's or
the system's (an assistant's, a headline's, a banner's) in a title, an outcome, an action or a system or owner
assertion."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from screen.imitation.generator.model import Expected, GeneratedSession

TOLERANCE = timedelta(minutes=2)
OWN_ROLES = ("user_authored", "system_output")


@dataclass
class EventVerdict:
    expected: Expected
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures


@dataclass
class Verdict:
    session: GeneratedSession
    events: list[EventVerdict]
    extra: list[str] = field(default_factory=list)  # observed events nobody expected
    observed: int = 0

    @property
    def count_exact(self) -> bool:
        return self.observed == len(self.session.expected)

    @property
    def failures(self) -> list[str]:
        out = [f"extra event: {x}" for x in self.extra]
        for i, ev in enumerate(self.events):
            out += [f"#{i} {ev.expected.family}: {f}" for f in ev.failures]
        if not self.count_exact:
            out.insert(0, f"count: {self.observed} events for {len(self.session.expected)} expected")
        return out

    @property
    def ok(self) -> bool:
        return not self.failures


def observe(session: GeneratedSession, api) -> list[dict]:
    """Every visible event of the session's local days, in full (``GET events?date=``, ``GET events/{id}``)."""
    tz = ZoneInfo(session.tz)
    day = session.start.astimezone(tz).date() - timedelta(days=1)
    last = session.end.astimezone(tz).date() + timedelta(days=1)
    ids: dict[str, None] = {}
    while day <= last:
        resp = api.get(f"/screen/events?date={day.isoformat()}")
        if resp.status_code != 200:
            raise AssertionError(f"GET events answered {resp.status_code}: {resp.content[:200]!r}")
        ids.update((e["id"], None) for e in resp.json())
        day += timedelta(days=1)
    details = []
    for ident in ids:
        resp = api.get(f"/screen/events/{ident}")
        if resp.status_code != 200:
            raise AssertionError(f"GET event answered {resp.status_code}")
        details.append(resp.json())
    return sorted(details, key=lambda e: e["started_at"])


def _ts(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _match(expected: list[Expected], events: list[dict]) -> list[dict | None]:
    """Pair each expected event with the observed one closest in start time (same family preferred)."""
    free = list(range(len(events)))
    out: list[dict | None] = []
    for exp in expected:

        def cost(i: int, exp: Expected = exp) -> tuple:
            e = events[i]
            return (e["family"] != exp.family, abs((_ts(e["started_at"]) - exp.start).total_seconds()))

        best = min(free, key=cost, default=None)
        if best is not None and (events[best]["family"] == exp.family or cost(best)[1] <= 1800):
            free.remove(best)
            out.append(events[best])
        else:
            out.append(None)
    return out


def judge(session: GeneratedSession, events: list[dict]) -> Verdict:
    matched = _match(session.expected, events)
    used = {id(e) for e in matched if e is not None}
    verdict = Verdict(session, [], observed=len(events))
    verdict.extra = [f"{e['family']} {e['outcome']} {e['title']!r}" for e in events if id(e) not in used]
    for exp, event in zip(session.expected, matched, strict=True):
        ev = EventVerdict(exp)
        if event is None:
            ev.failures.append("missing")
        else:
            ev.failures = _event_failures(session, exp, event)
        verdict.events.append(ev)
    shown = [x for e in events for x in _shown(e)]
    for text in session.forbidden:
        hit = next((s for s in shown if text.lower() in s.lower()), None)
        if hit:
            verdict.extra.append(f"not the owner's text shown as theirs: {text!r} in {hit[:80]!r}")
    # Words the owner also says themselves somewhere in the session (the same phrase in another call) are theirs
    # there: only the others' words the owner never says are checked across every event.
    owners = {s.text.lower() for e in session.expected for s in e.said if s.role == "user_authored"}
    for text in session.others_said:
        if text.lower() in owners:
            continue
        owned = [a for e in events for a in e["assertions"] if a["content_role"] == "user_authored"]
        if any(text.lower() in a["text"].lower() for a in owned):
            verdict.extra.append(f"another person's words as the owner's: {text!r}")
    return verdict


def _shown(event: dict) -> list[str]:
    own = [a["text"] for a in event["assertions"] if a["content_role"] in OWN_ROLES]
    return [event["title"], event["outcome"], *event["user_actions"], *own]


def _event_failures(session: GeneratedSession, exp: Expected, event: dict) -> list[str]:
    out = []
    for name, want in (("family", exp.family), ("outcome", exp.outcome), ("polarity", exp.polarity)):
        if event[name] != want:
            out.append(f"{name} {event[name]!r}, expected {want!r}")
    if exp.subject and event["outcome_subject"] != exp.subject:
        out.append(f"outcome subject {event['outcome_subject']!r}, expected {exp.subject!r}")
    named = " ".join([event["title"], event["summary"], (event["attributes"] or {}).get("opponent", "")])
    if exp.opponent and exp.opponent.lower() not in named.lower():
        out.append(f"opponent {exp.opponent!r} named nowhere")
    if exp.detail and (event["attributes"] or {}).get("detail") != exp.detail:
        out.append(f"detail {(event['attributes'] or {}).get('detail')!r}, expected {exp.detail!r}")
    start, end = _ts(event["started_at"]), _ts(event["ended_at"] or event["started_at"])
    if abs(start - exp.start) > TOLERANCE:
        out.append(f"start off by {(start - exp.start).total_seconds() / 60:+.1f} min")
    if abs(end - exp.end) > TOLERANCE:
        out.append(f"end off by {(end - exp.end).total_seconds() / 60:+.1f} min")
    if event["local_date"] != exp.local_date.isoformat():
        out.append(f"local date {event['local_date']}, expected {exp.local_date}")
    out += _evidence_failures(exp, event)
    out += _said_failures(exp, event)
    return out


def _evidence_failures(exp: Expected, event: dict) -> list[str]:
    outcome = [e for e in event["evidence"] if e["role"] == "outcome"]
    if not outcome:
        return ["no outcome evidence"]
    last = max(outcome, key=lambda e: e["occurred_at"])
    out = []
    if exp.evidence.lower() not in last["excerpt"].lower():
        out.append(f"outcome evidence {last['excerpt'][:80]!r} does not show {exp.evidence!r}")
    if not last["image_url"]:
        out.append("outcome evidence has no frame")
    at = _ts(last["occurred_at"])
    if not exp.start - TOLERANCE <= at <= exp.end + TOLERANCE:
        out.append("outcome evidence is from outside the activity")
    return out


def _said_failures(exp: Expected, event: dict) -> list[str]:
    out = []
    for said in exp.said:
        found = [a for a in event["assertions"] if said.text.lower() in a["text"].lower()]
        if not found:
            out.append(f"not kept: {said.text!r}")
            continue
        right = [a for a in found if a["content_role"] == said.role]
        if said.speaker:
            right = [a for a in right if any(r.get("speaker") == said.speaker for r in a["evidence"])]
        if not right:
            roles = sorted({a["content_role"] for a in found})
            out.append(f"{said.text[:40]!r} as {roles}, expected {said.role} ({said.speaker or 'unnamed'})")
    return out
