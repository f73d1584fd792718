"""Playing many generated sessions (one fresh user each) and reporting pass rates: overall, per activity
family, per distractor kind and per feature, how often the event count is exact, and the commonest failures."""

from __future__ import annotations

import re
from collections import Counter, defaultdict

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


def summary(verdicts: list[Verdict]) -> dict:
    """The figures the report prints, as numbers (for tests and docs)."""
    by_kind: dict[str, list[Verdict]] = defaultdict(list)
    by_distractor: dict[str, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        for kind in v.session.kinds:
            by_kind[kind].append(v)
        for d in v.session.distractors:
            by_distractor[d].append(v)
    rate = lambda vs: sum(v.ok for v in vs) / len(vs) if vs else 1.0  # noqa: E731
    return {
        "sessions": len(verdicts),
        "pass": rate(verdicts),
        "count_exact": sum(v.count_exact for v in verdicts) / len(verdicts) if verdicts else 1.0,
        "kinds": {k: rate(vs) for k, vs in by_kind.items()},
        "distractors": {d: rate(vs) for d, vs in by_distractor.items()},
    }


def _failure_kind(text: str) -> str:
    text = re.sub(r"^#\d+ [\w.]+: ", "", text)
    return re.split(r"[ :]", text, maxsplit=1)[0] if not text.startswith("not the owner") else "not the owner's text"


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
    print("\n| activity family | sessions with it passing | its events right |")
    print("|---|---|---|")
    kinds = sorted({k for v in verdicts for k in v.session.kinds})
    for kind in kinds:
        with_it = [v for v in verdicts if kind in v.session.kinds]
        its = [ev for v in verdicts for ev in v.events if ev.expected.kind == kind]
        print(f"| {kind} | {_rate(with_it)} | {_event_rate(its)} |")
    print("\n| distractor | sessions with it passing |")
    print("|---|---|")
    for d in DISTRACTORS:
        print(f"| {d} | {_rate([v for v in verdicts if d in v.session.distractors])} |")
    features = sorted({f for v in verdicts for e in v.session.expected for f in e.features})
    if features:
        print("\n| feature | sessions with it passing |")
        print("|---|---|")
        for f in features:
            print(f"| {f} | {_rate([v for v in verdicts if any(f in e.features for e in v.session.expected)])} |")
    kinds_of_failure = Counter(_failure_kind(f) for v in verdicts for f in v.failures)
    if kinds_of_failure:
        print("\n| failure | times |")
        print("|---|---|")
        for kind, count in kinds_of_failure.most_common(12):
            print(f"| {kind} | {count} |")
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
