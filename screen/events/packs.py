"""Optional extractor packs. A pack claims some anchors and emits the same generic event contract
(``EventDraft``); everything it does not claim goes down the generic path.

``GameResults``: a short result banner (victory/defeat/draw) in a program that is neither a developer tool nor
a browser ends one match. The match began with the first material change after the previous boundary in that
program (the lobby returning, the program appearing, a resume, or the previous match's end).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from screen.collector.signals import context_key
from screen.events.anchors import Anchor, is_browser, is_software
from screen.events.store import AssertionDraft, EventDraft
from screen.models import Assertion, ScreenEvent, Signal
from screen.text import Cue, result_outcome, score_in, words

MATCH_TYPE = "game.match_completed"
MODES = ("ranked", "competitive", "casual", "unrated", "arcade", "custom")
BOUNDARY_KINDS = (
    Signal.Kind.STATE_RETURNED,
    Signal.Kind.CONTEXT_APPEARED,
    Signal.Kind.CONTEXT_CHANGED,
    Signal.Kind.RESUME,
)
RESULT_FLICKER = timedelta(minutes=2)


class GameResults:
    name = "game_results"

    def claims(self, anchor: Anchor) -> bool:
        app = anchor.signal.app_name
        return anchor.cue == Cue.RESULT and not is_software(app) and not is_browser(app)

    def match_start(self, owner, anchor: Anchor) -> datetime:
        sig = anchor.signal
        scoped = Signal.objects.filter(owner=owner, app_name=sig.app_name, occurred_at__lt=sig.occurred_at)
        boundary = (
            scoped.filter(kind__in=BOUNDARY_KINDS)
            .order_by("-occurred_at")
            .values_list("occurred_at", flat=True)
            .first()
        )
        previous = (
            ScreenEvent.objects.filter(
                owner=owner, event_type=MATCH_TYPE, app_name=sig.app_name, ended_at__lt=sig.occurred_at
            )
            .order_by("-ended_at")
            .values_list("ended_at", flat=True)
            .first()
        )
        marks = [m for m in (boundary, previous) if m]
        if not marks:
            return sig.before_at or sig.occurred_at
        mark = max(marks)
        first_change = (
            scoped.filter(kind=Signal.Kind.TEXT_CHANGED, occurred_at__gt=mark)
            .order_by("occurred_at")
            .values_list("occurred_at", flat=True)
            .first()
        )
        return first_change or mark

    def is_flicker(self, owner, anchor: Anchor) -> bool:
        """The same result banner shown again right after a recorded result is not a new match."""
        return ScreenEvent.objects.filter(
            owner=owner,
            event_type=MATCH_TYPE,
            app_name=anchor.signal.app_name,
            ended_at__gte=anchor.at - RESULT_FLICKER,
            ended_at__lte=anchor.at,
        ).exists()

    def draft(self, owner, anchor: Anchor, *, lobby_lines: list[str]) -> EventDraft | None:
        if self.is_flicker(owner, anchor):
            return None
        sig = anchor.signal
        start = self.match_start(owner, anchor)
        outcome = result_outcome(anchor.line)
        lobby_words = set(words(" ".join(lobby_lines)))
        mode = next((m for m in MODES if m in lobby_words), "")
        score = next((s for s in (score_in(line) for line in anchor.lines) if s), None)
        app = sig.app_name or "game"
        minutes = max(0, round((anchor.at - start).total_seconds() / 60))
        ref = {"kind": "ocr", "frame_id": sig.after_frame, "at": sig.occurred_at.isoformat(), "excerpt": anchor.line}
        assertions = [AssertionDraft(f"Result shown: {anchor.line}", Assertion.ContentRole.SYSTEM_OUTPUT, 0.9, [ref])]
        if score:
            assertions.append(AssertionDraft(f"Final score {score}", Assertion.ContentRole.SYSTEM_OUTPUT, 0.8, [ref]))
        label = f"{mode} match" if mode else "match"
        return EventDraft(
            key=f"anchor:{sig.key}",
            event_type=MATCH_TYPE,
            started_at=start,
            ended_at=anchor.at,
            title=f"{app} {label}: {outcome}",
            outcome=outcome,
            summary=f"Played a {label} of {app} for about {minutes} min; the result screen said {anchor.line!r}"
            + (f" ({score})." if score else "."),
            entities=[app],
            attributes={
                "app": app,
                "mode": mode,
                "score": score or "",
                "minutes": minutes,
                "anchor": anchor.norm,
                "pack": self.name,
            },
            user_actions=[f"played a {label} of {app}"],
            confidence=0.85,
            status=ScreenEvent.Status.CONFIRMED,
            durability=ScreenEvent.Durability.DAY,
            context_key=context_key(sig.app_name, sig.window_name, sig.url),
            app_name=app,
            proposer=f"pack:{self.name}",
            assertions=assertions,
        )


PACKS = [GameResults()]
