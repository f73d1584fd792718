"""Playing many generated sessions (one fresh user each) and reporting pass rates: overall, per activity
family, per surface (browser, native program, fullscreen, phone mirror), per distractor kind (with and without
it), with and without a local-midnight crossing and per feature, how often the event count is exact, and the
commonest failures by kind and family."""

from __future__ import annotations

import re
from collections import Counter

from screen.imitation.generator.check import Verdict
from screen.imitation.generator.model import DISTRACTORS, GeneratedSession
from screen.imitation.generator.play import api_client, play_and_judge


def run_sessions(sessions: list[GeneratedSession], *, keep_users: bool = False) -> list[Verdict]:
    """Each session with its own new user (deleted afterwards unless ``keep_users``)."""
    from django.contrib.auth import get_user_model

    User = get_user_model()
    verdicts = []
    for session in sessions:
        User.objects.filter(username=session.username).delete()
        user = User.objects.create(username=session.username)
        try:
            verdicts.append(play_and_judge(session, api_client(user)))
        finally:
            if not keep_users:
                user.delete()
    return verdicts


def _rate(verdicts: list[Verdict]) -> str:
    if not verdicts:
        return "–"
    ok = sum(v.ok for v in verdicts)
    return f"{100 * ok / len(verdicts):.1f} % ({ok}/{len(verdicts)})"


def _event_rate(pairs: list) -> str:
    if not pairs:
        return "–"
    ok = sum(ev.ok for ev in pairs)
    return f"{100 * ok / len(pairs):.1f} % ({ok}/{len(pairs)})"


SURFACES = ("browser", "native", "fullscreen", "phone")
MIDNIGHT = "across midnight"


def _failure_kind(text: str) -> str:
    """A failure line as its kind and the family it concerns: ``outcome (purchase.order)``, ``extra event
    (game.match)``, ``count``."""
    if text.startswith("extra event: "):
        rest = text.removeprefix("extra event: ")
        if rest.startswith("not the owner") or rest.startswith("another person"):
            return rest.split(":", 1)[0]
        return f"extra event ({rest.split(' ', 1)[0]})"
    own = re.match(r"^#\d+ ([\w.]+): (.*)$", text)
    if not own:
        return text.split(":", 1)[0]
    family, what = own.groups()
    for head in ("outcome evidence", "outcome subject", "local date", "not kept", "no outcome evidence"):
        if what.startswith(head):
            return f"{head} ({family})"
    if re.match(r"^'.*' as \[", what):
        return f"said with the wrong role ({family})"
    return f"{re.split(r'[ :]', what, maxsplit=1)[0]} ({family})"


def _table(title: str, rows: list[tuple[str, list[Verdict], list]]) -> None:
    print(f"\n| {title} | sessions with it passing | its events right |")
    print("|---|---|---|")
    for label, sessions, events in rows:
        print(f"| {label} | {_rate(sessions)} | {_event_rate(events)} |")


def _by_feature(verdicts: list[Verdict], events: list, test) -> tuple[list[Verdict], list]:
    return (
        [v for v in verdicts if any(test(e) for e in v.session.expected)],
        [ev for ev in events if test(ev.expected)],
    )


def print_report(verdicts: list[Verdict], *, seed: int, partition: str, seconds: float, failures: bool) -> None:
    n = len(verdicts)
    print(
        f"## Generated sessions: {n} of seed {seed}, {partition} word pools, {seconds:.0f} s "
        f"({seconds / max(n, 1):.1f} s a session)\n"
    )
    print("| measure | figure |")
    print("|---|---|")
    print(f"| sessions passing | {_rate(verdicts)} |")
    exact = sum(v.count_exact for v in verdicts)
    print(f"| event count exact | {100 * exact / max(n, 1):.1f} % ({exact}/{n}) |")
    events = [ev for v in verdicts for ev in v.events]
    print(f"| expected events right | {_event_rate(events)} |")
    kinds = sorted({k for v in verdicts for k in v.session.kinds})
    _table("activity family", [(k, *_by_feature(verdicts, events, lambda e, k=k: e.kind == k)) for k in kinds])
    _table(
        "surface",
        [(s, *_by_feature(verdicts, events, lambda e, s=s: f"on {s}" in e.features)) for s in SURFACES],
    )
    print("\n| distractor | sessions with it passing | sessions without it passing |")
    print("|---|---|---|")
    for d in DISTRACTORS:
        with_it = [v for v in verdicts if d in v.session.distractors]
        without = [v for v in verdicts if d not in v.session.distractors]
        print(f"| {d} | {_rate(with_it)} | {_rate(without)} |")
    crossing = lambda e: MIDNIGHT in e.features  # noqa: E731
    _table(
        "local midnight",
        [
            ("an activity crosses it", *_by_feature(verdicts, events, crossing)),
            (
                "none crosses it",
                [v for v in verdicts if not any(crossing(e) for e in v.session.expected)],
                [ev for ev in events if not crossing(ev.expected)],
            ),
        ],
    )
    features = sorted(
        {f for v in verdicts for e in v.session.expected for f in e.features if not f.startswith("on ")} - {MIDNIGHT}
    )
    if features:
        _table("feature", [(f, *_by_feature(verdicts, events, lambda e, f=f: f in e.features)) for f in features])
    kinds_of_failure = Counter(_failure_kind(f) for v in verdicts for f in v.failures)
    sessions_of_failure = Counter(k for v in verdicts for k in {_failure_kind(f) for f in v.failures})
    if kinds_of_failure:
        print("\n| failure | times | sessions |")
        print("|---|---|---|")
        for kind, count in kinds_of_failure.most_common(15):
            print(f"| {kind} | {count} | {sessions_of_failure[kind]} |")
    if failures:
        print()
        for v in verdicts:
            if not v.ok:
                print(
                    f"- {v.session.name} ({', '.join(sorted(v.session.kinds))}; "
                    f"{', '.join(sorted(v.session.distractors)) or 'no distractor'}):"
                )
                for f in v.failures:
                    print(f"    - {f}")
