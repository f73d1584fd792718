"""The proposal pass: new signals + open events -> created, revised or untouched events.

Deterministic by default: anchors (results, errors, completions, confirmations; ``anchors.py``) become events
with an open-ended namespaced type ``<domain>.<what>``; packs (``packs.py``) claim what they know better. An
LLM, when configured, may only rename/summarise a deterministic draft (``llm.py``), never invent one.

Reconciliation against open events:
- an error whose distinctive words (or program, within two hours) match an open problem is more evidence for it;
- a later completion/confirmation matching an open problem *revises that problem to resolved* (one event, not
  two) - even from another program when the words match;
- the same outcome line again in the same context within ``ROUTINE`` is routine progress: nothing;
- ``close_stale`` closes problems that got no outcome within ``STALE_AFTER`` (an explicit pass).

Each signal is handled in its own transaction together with its ``processed`` flag; events are keyed by their
anchor signal, so a crash and a re-run neither lose nor duplicate anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from screen import evidence
from screen.collector.signals import context_key
from screen.events import llm
from screen.events.anchors import Anchor, anchor_of
from screen.events.packs import PACKS
from screen.events.store import AssertionDraft, EventDraft, attach_evidence, create_event, revise
from screen.models import EventEvidence, ScreenEvent, Signal
from screen.text import Cue

BATCH = 500
ROUTINE = timedelta(minutes=10)
SAME_APP_HORIZON = timedelta(hours=2)
TOKEN_HORIZON = timedelta(hours=8)
STALE_AFTER = timedelta(hours=6)
NAMES = {Cue.COMPLETION: "task_completed", Cue.CONFIRMATION: "action_confirmed", Cue.RESULT: "result_recorded"}


@dataclass
class PassReport:
    signals: int = 0
    created: list[int] = field(default_factory=list)
    revised: list[int] = field(default_factory=list)
    dates: set = field(default_factory=set)


class ProposalPass:
    def __init__(self, *, owner, source, client):
        self.owner, self.source, self.client = owner, source, client
        self.report = PassReport()

    def run(self) -> PassReport:
        while True:
            batch = list(Signal.objects.owned_by(self.owner).unprocessed().order_by("occurred_at", "id")[:BATCH])
            if not batch:
                break
            for sig in batch:
                with transaction.atomic():
                    # Claim the signal: a concurrent pass that got it first makes this one skip it.
                    if not Signal.objects.filter(pk=sig.pk, processed=False).update(processed=True):
                        continue
                    self.handle(sig)
                self.report.signals += 1
        return self.report

    # --- per signal -------------------------------------------------------------------------------------
    def handle(self, sig: Signal) -> None:
        anchor = anchor_of(sig)
        if anchor is None:
            return
        for pack in PACKS:
            if pack.claims(anchor):
                lobby = self._lines_before(anchor, pack)
                draft = pack.draft(self.owner, anchor, lobby_lines=lobby)
                if draft is not None:
                    self._create_outcome(draft, anchor)
                return
        if anchor.cue == Cue.ERROR:
            self._problem(anchor)
        elif anchor.cue in (Cue.COMPLETION, Cue.CONFIRMATION):
            problem = self._open_problem(anchor)
            if problem is not None:
                self._resolve(problem, anchor)
            elif (step := self._problem_in_progress(anchor)) is not None:
                # A step on the way to a fix (another command in the same program): context, not a new event.
                attach_evidence(
                    event=step,
                    role=EventEvidence.Role.CONTEXT,
                    at=anchor.at,
                    excerpt="\n".join(anchor.lines),
                    frame_id=anchor.signal.after_frame,
                    app_name=anchor.signal.app_name,
                    window_name=anchor.signal.window_name,
                )
            elif not self._routine(anchor):
                self._create_outcome(self._generic_draft(anchor), anchor)
        elif anchor.cue == Cue.RESULT and not self._routine(anchor):
            self._create_outcome(self._generic_draft(anchor), anchor)

    def _lines_before(self, anchor: Anchor, pack) -> list[str]:
        start = pack.match_start(self.owner, anchor)
        refs = evidence.ocr_between(
            owner=self.owner,
            client=self.client,
            start=start - timedelta(minutes=3),
            end=start,
            max_items=3,
            max_chars=800,
        )
        return [line for ref in refs for line in ref.text.splitlines()]

    def _ctx(self, sig: Signal) -> str:
        return context_key(sig.app_name, sig.window_name, sig.url)

    def _routine(self, anchor: Anchor) -> bool:
        return ScreenEvent.objects.filter(
            owner=self.owner,
            app_name=anchor.signal.app_name,
            attributes__anchor=anchor.norm,
            started_at__gte=anchor.at - ROUTINE,
        ).exists()

    def _assertion(self, anchor: Anchor, confidence: float) -> AssertionDraft:
        sig = anchor.signal
        ref = {"kind": "ocr", "frame_id": sig.after_frame, "at": sig.occurred_at.isoformat(), "excerpt": anchor.line}
        return AssertionDraft(anchor.line, anchor.role, confidence, [ref])

    def _generic_draft(self, anchor: Anchor) -> EventDraft:
        sig = anchor.signal
        commands = anchor.commands
        app = sig.app_name or anchor.domain
        return EventDraft(
            key=f"anchor:{sig.key}",
            event_type=f"{anchor.domain}.{NAMES[anchor.cue]}",
            started_at=anchor.at,
            ended_at=anchor.at,
            title=anchor.line,
            outcome=anchor.cue,
            summary=f"{app} showed {anchor.line!r}" + (f" after `{commands[0]}`." if commands else "."),
            entities=[app],
            attributes={
                "anchor": anchor.norm,
                "cue": anchor.cue,
                "app": app,
                "window": sig.window_name,
                "tokens": sorted(anchor.tokens)[:30],
            },
            user_actions=[f"ran `{c}`" for c in commands],
            confidence=0.6,
            status=ScreenEvent.Status.CONFIRMED,
            context_key=self._ctx(sig),
            app_name=sig.app_name,
            # Money on screen: a purchase is private by default.
            sensitivity=ScreenEvent.Sensitivity.HIGH if anchor.domain == "purchase" else ScreenEvent.Sensitivity.NORMAL,
            assertions=[self._assertion(anchor, 0.7)],
        )

    def _create_outcome(self, draft: EventDraft, anchor: Anchor) -> None:
        draft = llm.refine(draft, anchor.lines, owner=self.owner)
        event, created = create_event(owner=self.owner, draft=draft)
        if not created:
            return
        self._evidence(event, anchor, EventEvidence.Role.OUTCOME)
        self.report.created.append(event.pk)
        self.report.dates.add(event.local_date)

    def _evidence(self, event: ScreenEvent, anchor: Anchor, role: str) -> None:
        """Bounded: the frames around the anchor (OCR excerpt) and, within the frame budget, one image."""
        around = evidence.frames_around(owner=self.owner, client=self.client, at=anchor.at, event=event)
        ref = around["before"]
        excerpt = ref.text if ref else "\n".join(anchor.lines)
        frame = None
        if ref is not None and ref.at == anchor.at:
            frame = evidence.fetch_frame(
                owner=self.owner,
                source=self.source,
                client=self.client,
                ref=ref,
                reason=f"{role} of {event.event_type}",
                event=event,
            )
        attach_evidence(
            event=event,
            role=role,
            at=anchor.at,
            excerpt=excerpt,
            frame_id=anchor.signal.after_frame,
            frame=frame,
            app_name=anchor.signal.app_name,
            window_name=anchor.signal.window_name,
        )

    # --- problems ---------------------------------------------------------------------------------------
    def _open_problem(self, anchor: Anchor) -> ScreenEvent | None:
        """The open problem this anchor continues or ends: shared distinctive words (any program), or the same
        program within two hours running the same prompt command (or no prompt at all, a GUI program).
        A problem already resolved is only revisited by shared words."""
        candidates = (
            ScreenEvent.objects.owned_by(self.owner)
            .open()
            .filter(attributes__kind="problem", started_at__gte=anchor.at - TOKEN_HORIZON, started_at__lte=anchor.at)
            .order_by("-started_at")
        )
        tokens = anchor.tokens
        for event in candidates:
            if tokens & set(event.attributes.get("tokens") or []):
                return event
            if event.outcome == "resolved" or event.app_name != anchor.signal.app_name:
                continue
            same_command = list(event.attributes.get("commands") or []) == anchor.commands
            if same_command and anchor.at - event.started_at <= SAME_APP_HORIZON:
                return event
        return None

    def _problem_in_progress(self, anchor: Anchor) -> ScreenEvent | None:
        return (
            ScreenEvent.objects.owned_by(self.owner)
            .open()
            .filter(
                attributes__kind="problem",
                app_name=anchor.signal.app_name,
                started_at__lte=anchor.at,
                started_at__gte=anchor.at - SAME_APP_HORIZON,
            )
            .exclude(outcome="resolved")
            .order_by("-started_at")
            .first()
        )

    def _problem(self, anchor: Anchor) -> None:
        existing = self._open_problem(anchor)
        if existing is not None and existing.outcome != "resolved":
            # More evidence for the same problem (another program may show it too): no new event.
            attach_evidence(
                event=existing,
                role=EventEvidence.Role.PROBLEM,
                at=anchor.at,
                excerpt="\n".join(anchor.lines),
                frame_id=anchor.signal.after_frame,
                app_name=anchor.signal.app_name,
                window_name=anchor.signal.window_name,
            )
            tokens = sorted(set(existing.attributes.get("tokens") or []) | anchor.tokens)[:40]
            if tokens != existing.attributes.get("tokens"):
                ScreenEvent.objects.filter(pk=existing.pk).update(attributes={**existing.attributes, "tokens": tokens})
            return
        sig = anchor.signal
        commands = anchor.commands
        app = sig.app_name or anchor.domain
        draft = EventDraft(
            key=f"anchor:{sig.key}",
            event_type=f"{anchor.domain}.problem",
            started_at=anchor.at,
            title=anchor.line,
            outcome="unresolved",
            summary=f"{app} showed {anchor.line!r}" + (f" after `{commands[0]}`." if commands else "."),
            entities=[app],
            attributes={
                "kind": "problem",
                "anchor": anchor.norm,
                "app": app,
                "tokens": sorted(anchor.tokens)[:30],
                "commands": commands,
            },
            user_actions=[f"ran `{c}`" for c in commands],
            confidence=0.6,
            status=ScreenEvent.Status.PROVISIONAL,
            context_key=self._ctx(sig),
            app_name=sig.app_name,
            assertions=[self._assertion(anchor, 0.7)],
        )
        event, created = create_event(owner=self.owner, draft=llm.refine(draft, anchor.lines, owner=self.owner))
        if created:
            attach_evidence(
                event=event,
                role=EventEvidence.Role.PROBLEM,
                at=anchor.at,
                excerpt="\n".join(anchor.lines),
                frame_id=sig.after_frame,
                app_name=sig.app_name,
                window_name=sig.window_name,
            )
            self.report.created.append(event.pk)
            self.report.dates.add(event.local_date)

    def _resolve(self, problem: ScreenEvent, anchor: Anchor) -> None:
        domain = problem.event_type.split(".", 1)[0]
        minutes = round((anchor.at - problem.started_at).total_seconds() / 60)
        event, changed = revise(
            event=problem,
            changes={
                "event_type": f"{domain}.problem_resolved",
                "status": ScreenEvent.Status.REVISED,
                "outcome": "resolved",
                "ended_at": anchor.at,
                "title": f"Resolved: {problem.title}"[:200],
                "summary": f"{problem.summary} Resolved about {minutes} min later: {anchor.line!r}.",
                "confidence": max(problem.confidence, 0.75),
                "durability": ScreenEvent.Durability.DURABLE,
                "attributes": {**problem.attributes, "resolution": anchor.norm},
            },
            reason=f"resolved by a later outcome: {anchor.line}"[:200],
            add_assertions=[self._assertion(anchor, 0.75)],
        )
        if changed:
            self._evidence(event, anchor, EventEvidence.Role.OUTCOME)
            self.report.revised.append(event.pk)
            self.report.dates.add(event.local_date)


def propose(*, owner, source, client) -> PassReport:
    """Run the proposal pass over every unprocessed signal of ``owner``."""
    return ProposalPass(owner=owner, source=source, client=client).run()


def close_stale(*, owner, now: datetime | None = None, older_than: timedelta = STALE_AFTER) -> list[int]:
    """Close open events that saw no outcome for ``older_than`` (explicit reconciliation pass)."""
    now = now or timezone.now()
    closed = []
    for event in ScreenEvent.objects.owned_by(owner).open().filter(started_at__lt=now - older_than):
        _, changed = revise(
            event=event,
            changes={"status": ScreenEvent.Status.CLOSED},
            reason=f"closed: no outcome within {int(older_than.total_seconds() // 3600)} h",
            author="reconcile",
        )
        if changed:
            closed.append(event.pk)
    return closed
