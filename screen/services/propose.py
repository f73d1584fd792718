"""The proposal pass: spans (ended ones as ``span_ended`` signals, open ones from the deriver's state) ->
created, revised or untouched events.

One event per activity, not per anchor. A span with an outcome (or of a standalone family such as a call)
becomes an event typed by its activity family (``reading.py``), from the span's start to its end; anchors inside
it are its evidence (the first failure as the problem, later steps as context, the final one as the outcome).
A later span that continues the same activity revises the same event instead of making a new one:

- a span with the same family (or namespace, or context) sharing an identifier (order or booking number) or,
  while the earlier outcome is unsettled (a failure, a placed order, a shipment), two distinctive words; a
  failure followed by a success becomes ``resolved``; contests (win/loss/draw) never merge: each match is its
  own event;
- the same outcome line again in the same context within ``ROUTINE`` is routine progress (the same event);
- ``close_stale`` closes problems that got no outcome within ``STALE_AFTER`` (an explicit pass).

Each signal is handled in its own transaction with its ``processed`` flag; events are keyed by their first span,
so a crash and a re-run neither lose nor duplicate anything. An LLM, when configured, may only rename and
summarise a deterministic draft (``llm.py``), never invent one; it is asked after the signal's transaction has
committed (``_name_created``), so a slow model holds no row lock that a page or another pass waits on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from accounts.services import get_settings
from screen.collector.client import parse_ts
from screen.collector.signals import context_key
from screen.events import llm
from screen.events.families import family_outcome, is_mirror, is_notification, is_standalone
from screen.events.outcomes import (
    ACCEPTED,
    CONFIRMED,
    CONTEST,
    DELIVERED,
    FAILURE,
    MIXED,
    NEGATIVE,
    ORDER,
    POLARITY,
    POSITIVE,
    RESOLVED,
    SUBSTITUTED,
    read_outcome,
    tokens,
)
from screen.events.reading import SpanReading, ids_in, numbers, read_span, title_for
from screen.models import Assertion, EventEvidence, ScreenEvent, Signal
from screen.services import evidence
from screen.services.store import AssertionDraft, EventDraft, append_assertions, attach_evidence, create_event, revise
from screen.text import stems

BATCH = 500
ROUTINE = timedelta(minutes=10)
SAME_APP_HORIZON = timedelta(hours=2)
LINK_HORIZON = timedelta(days=3)
STALE_AFTER = timedelta(hours=6)
UNANSWERED_SCAN = 200  # ended spans looked through for the activity an answer names (3 days of them, roughly)
PRIVATE = ("purchase", "finance")
MESSAGES = "communication."  # mail and chat: how a later answer to an activity reaches the owner


@dataclass
class PassReport:
    signals: int = 0
    created: list[int] = field(default_factory=list)
    revised: list[int] = field(default_factory=list)
    dates: set = field(default_factory=set)


class ProposalPass:
    def __init__(self, *, owner, source, client, open_spans=()):
        self.owner, self.source, self.client = owner, source, client
        self.open_spans = list(open_spans)
        self.report = PassReport()
        self.to_name: list[tuple[ScreenEvent, EventDraft, list[str]]] = []
        settings = get_settings(owner)
        names = {owner.get_username().lower(), *(settings.display_name or "").lower().split()}
        self.owner_names = frozenset(n for n in names if n)

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
                    if sig.kind == Signal.Kind.SPAN_ENDED and sig.data.get("span"):
                        self.handle_span(sig.data["span"], ended=True)
                self._name_created()
                self.report.signals += 1
        for span in self.open_spans:
            with transaction.atomic():
                self.handle_span(span, ended=False)
            self._name_created()
        return self.report

    def _name_created(self) -> None:
        """The model names the events just committed, outside any transaction."""
        while self.to_name:
            event, draft, lines = self.to_name.pop(0)
            llm.name_created(event, draft, lines, owner=self.owner)

    # --- one span ---------------------------------------------------------------------------------------
    def handle_span(self, span: dict, *, ended: bool) -> None:
        if span.get("assistant"):
            return  # an assistant's text is never what happened
        reading = read_span(span, owner_names=self.owner_names)
        if is_notification(span["app"]):
            # The notification centre reports on other activities: it may answer one, never be one.
            self._answers(span, reading.foreign + ([(reading.final, None)] if reading.final else []), reading)
            return
        if reading.family.startswith(MESSAGES):
            if self._reports_on(span, reading):
                # A message naming an earlier activity's identifier reports on it: a line that reads like a
                # receipt ("Delivered today at 18:57") is that activity's news, not the message's own.
                own = [(a, None) for a in [reading.final, *reading.steps]]
                self._answers(span, reading.foreign + own, reading)
                return
            self._answers(span, reading.foreign, reading)  # a message that answers an earlier activity
        event = self._event_of(span)
        if not reading.outcome and not is_standalone(reading.family):
            if event is not None and event.key == _key(span) and not event.revisions.filter(author="user").exists():
                self._withdraw(event, span)
            return
        if event is None:
            event = self._linked(span, reading)
            if event is not None and reading.outcome == FAILURE and event.outcome != FAILURE:
                self._more_evidence(event, span, reading)  # the problem seen elsewhere before it was fixed
                return
            event = event or self._begun_earlier(span, reading, reading.outcome)
            if event is not None:
                self._continue(event, span, reading, ended=ended)
                return
            self._create(span, reading, ended=ended)
        else:
            self._continue(event, span, reading, ended=ended, own=event.key == _key(span))

    def _event_of(self, span: dict) -> ScreenEvent | None:
        qs = ScreenEvent.objects.owned_by(self.owner)
        return qs.filter(key=_key(span)).first() or qs.filter(attributes__spans__contains=[span["id"]]).first()

    def _linked(self, span: dict, reading: SpanReading) -> ScreenEvent | None:
        start = parse_ts(span["start"])
        candidates = (
            ScreenEvent.objects.owned_by(self.owner)
            .visible()
            .filter(started_at__lt=start, started_at__gte=start - LINK_HORIZON)
            .order_by("-started_at")[:40]
        )
        namespace = reading.family.split(".", 1)[0]
        for event in candidates:
            attrs = event.attributes or {}
            ended = event.ended_at or event.started_at
            same_line = reading.final_norm and attrs.get("outcome_norm") == reading.final_norm  # not two calls'
            if attrs.get("ctx") == span["ctx"] and same_line and _shown_again(span, reading):
                if start - ended <= ROUTINE and not _other_ids(attrs, reading) and not _other_page(attrs, span):
                    return event  # the same outcome again: routine progress of the same activity
            if event.outcome in CONTEST or reading.outcome in CONTEST:
                continue
            family = attrs.get("family", event.event_type)
            if not (
                family == reading.family or family.split(".", 1)[0] == namespace or attrs.get("ctx") == span["ctx"]
            ):
                continue
            if attrs.get("commands") and span["commands"] and not set(attrs["commands"]) & set(span["commands"]):
                continue  # other commands typed at the prompt: another piece of work
            shared_ids = reading.ids & set(attrs.get("ids") or [])
            if shared_ids and start - ended <= LINK_HORIZON:
                return event
            # A failure awaits its resolution: a later span of the same activity sharing its words is the fix
            # (or more evidence for it). A placed order or a shipment only continues under its own identifier.
            if FAILURE in (event.outcome, reading.outcome) and _same_problem(attrs, span, reading):
                if (event.outcome == FAILURE or start <= ended) and not _other_item(attrs, span, reading):
                    return event
            same_command = attrs.get("commands") and attrs.get("commands") == span["commands"]
            if event.outcome == FAILURE and attrs.get("ctx") == span["ctx"] and same_command:
                if start - event.started_at <= SAME_APP_HORIZON:
                    return event
        return None

    # --- writes -----------------------------------------------------------------------------------------
    def _fields(
        self, span: dict, reading: SpanReading, *, ended: bool, base: ScreenEvent | None = None, own: bool = True
    ) -> dict:
        start = base.started_at if base else parse_ts(span["start"])
        end = parse_ts(span["last"])
        attrs = _attributes(span, reading, base, minutes=max(0, round((end - start).total_seconds() / 60)))
        outcome = reading.outcome
        if (
            base is not None
            and base.outcome in (FAILURE, RESOLVED)
            and outcome not in (FAILURE, "")
            and reading.polarity != NEGATIVE
        ):
            outcome = RESOLVED  # a later success of the same activity resolves the earlier failure (for good)
        unfolding = not ended and is_standalone(reading.family)  # a call still going may yet decide something
        status = (
            ScreenEvent.Status.PROVISIONAL if outcome in (FAILURE, "") or unfolding else ScreenEvent.Status.CONFIRMED
        )
        if base is not None and outcome != base.outcome and base.outcome:
            status = ScreenEvent.Status.REVISED
        title = title_for(reading, span)
        family = reading.family
        if base is not None and not own:
            family = base.event_type  # the activity keeps the family it was first seen as
            attrs["family"] = family  # (a status page on a mirrored phone types nothing on its own)
            if outcome == base.outcome:
                title = base.title
        if outcome == RESOLVED and base is not None and base.outcome == FAILURE:
            title = f"Resolved: {base.title}"[:200]
        elif outcome == RESOLVED and base is not None and base.title.startswith("Resolved:"):
            title = base.title
        return {
            "event_type": family,
            "outcome": outcome,
            "title": title,
            "status": status,
            "ended_at": max(end, base.ended_at or end) if base else end,
            "summary": _summary(reading, span, outcome, start, end),
            "attributes": attrs,
            "user_actions": _actions(reading, span),
            "confidence": 0.8 if outcome else 0.6,
            "durability": ScreenEvent.Durability.DURABLE if outcome == RESOLVED else ScreenEvent.Durability.DAY,
        }

    def _create(self, span: dict, reading: SpanReading, *, ended: bool) -> None:
        if reading.problem is not None:
            # Record the problem as it was first seen, then its resolution: the revision history tells it.
            first = SpanReading(
                family=reading.family,
                outcome=FAILURE,
                final=reading.problem,
                tokens=reading.tokens,
                ids=reading.ids,
                sides=reading.sides,
                speech=reading.speech,
            )
            cut = dict(span, last=reading.problem["at"], last_frame=reading.problem["frame"])
            self._create(cut, first, ended=False)
            event = self._event_of(span)
            if event is not None:
                self._continue(event, span, reading, ended=ended, own=True)
            return
        fields = self._fields(span, reading, ended=ended)
        draft = EventDraft(
            key=_key(span),
            started_at=parse_ts(span["start"]),
            entities=[span["app"]] if span["app"] else [],
            context_key=context_key(span["app"], next((w for w in span["windows"] if w), ""), span["url"]),
            app_name=span["app"],
            sensitivity=ScreenEvent.Sensitivity.HIGH
            if reading.family.split(".", 1)[0] in PRIVATE
            else ScreenEvent.Sensitivity.NORMAL,
            assertions=self._assertions(span, reading),
            **fields,
        )
        lines = [reading.final["line"]] if reading.final else []
        event, created = create_event(owner=self.owner, draft=draft)
        if not created:
            return
        if llm.asks_the_model():
            self.to_name.append((event, draft, lines + list(span["seen"].values())[:19]))
        self._attach(event, span, reading)
        self.report.created.append(event.pk)
        self.report.dates.add(event.local_date)

    def _continue(
        self, event: ScreenEvent, span: dict, reading: SpanReading, *, ended: bool, own: bool = False
    ) -> None:
        if not reading.outcome and event.outcome and not own:
            return
        if event.status == ScreenEvent.Status.REJECTED:
            return
        outcome_at = (event.attributes or {}).get("outcome_at") or ""
        earlier = reading.final is not None and outcome_at and reading.final["at"] < outcome_at
        if earlier or (not own and reading.outcome == event.outcome):
            # An older outcome (or the same one seen again elsewhere) is evidence, never the current outcome.
            self._more_evidence(event, span, reading)
            return
        fields = self._fields(span, reading, ended=ended, base=event, own=own)
        if event.proposer.startswith("llm:") or event.revisions.filter(author="user").exists():
            fields.pop("title")  # a name the user (or the namer) gave stays
            fields.pop("event_type")
        semantic = {k: v for k, v in fields.items() if k not in ("ended_at", "attributes", "summary", "confidence")}
        if all(getattr(event, k) == v for k, v in semantic.items()):
            # Only the span grew: extend it in place (not a new revision of what happened).
            ScreenEvent.objects.filter(pk=event.pk).update(
                ended_at=fields["ended_at"], attributes=fields["attributes"], summary=fields["summary"]
            )
            event.refresh_from_db()
            self._add_assertions(event, span, reading)
            self._attach(event, span, reading)
            return
        updated, changed = revise(
            event=event,
            changes=fields,
            reason=f"{reading.outcome or 'span'}: {reading.final['line'] if reading.final else span['app']}"[:200],
        )
        self._add_assertions(updated, span, reading)
        if changed:
            self._attach(updated, span, reading)
            self.report.revised.append(updated.pk)
            self.report.dates.add(updated.local_date)

    def _more_evidence(self, event: ScreenEvent, span: dict, reading: SpanReading) -> None:
        attrs = dict(event.attributes)
        if span["id"] not in (attrs.get("spans") or []):
            attrs["spans"] = (list(attrs.get("spans") or []) + [span["id"]])[-20:]
            attrs["tokens"] = sorted(reading.tokens | set(attrs.get("tokens") or []))[:60]
            ScreenEvent.objects.filter(pk=event.pk).update(attributes=attrs)
        if reading.final is not None:
            role = EventEvidence.Role.PROBLEM if reading.outcome == FAILURE else EventEvidence.Role.CONTEXT
            self._evidence(event, span, reading.final, role, image=False)

    def _withdraw(self, event: ScreenEvent, span: dict) -> None:
        """The provisional event of a span that no longer shows an outcome (what looked like one was a banner
        passing over it): withdrawn, kept with its history, back if the span shows an outcome again."""
        revise(
            event=event,
            changes={"status": ScreenEvent.Status.WITHDRAWN, "outcome": "", "ended_at": parse_ts(span["last"])},
            reason="withdrawn: the span shows no outcome",
        )

    def _answers(self, span: dict, outcomes: list, reading: SpanReading) -> None:
        """Outcomes a message or a notification reports about an earlier activity ("your application was
        successful", "order 4411 delivered"): they revise the event they name (its identifier, or its site's or
        program's name), never make one of their own. One outcome per frame: its most specific."""
        read = [(a, oc or read_outcome(a["line"])) for a, oc in outcomes]
        by_frame: dict[int, list] = {}
        for anchor, oc in read:
            if oc is not None and not oc.contest:
                by_frame.setdefault(anchor["frame"], []).append((anchor, oc))
        rank = {w: i for i, w in enumerate(ORDER)}
        for found in by_frame.values():
            anchor, oc = min(found, key=lambda f: rank.get(f[1].word, len(rank)))
            event = self._answered(span, anchor, reading) or self._unanswered(span, anchor, reading, oc)
            word = family_outcome(oc.word, event.event_type) if event is not None else ""
            if word == CONFIRMED == event.outcome and oc.polarity == POSITIVE:
                # A good answer to what was submitted ("your application was successful") accepts it.
                word = family_outcome(ACCEPTED, event.event_type) or word
            if word:
                substituted = word == DELIVERED and any(o.word == SUBSTITUTED for _, o in found)
                self._answer(event, span, anchor, word, SUBSTITUTED if substituted else "")

    def _reports_on(self, span: dict, reading: SpanReading) -> bool:
        """The message's own outcome line is shown beside an identifier of an earlier activity it may answer."""
        if reading.final is None or not reading.ids:
            return False
        event = self._answered(span, reading.final, reading)
        if event is None and (oc := read_outcome(reading.final["line"])) is not None:
            event = self._unanswered(span, reading.final, reading, oc)
        return event is not None and _names_its_ids(event.attributes or {}, span, reading)

    def _answered(self, span: dict, anchor: dict, reading: SpanReading) -> ScreenEvent | None:
        start = parse_ts(anchor["at"])
        text = re.sub(r"[^a-z0-9]", "", " ".join(span["seen"].values()).lower())
        candidates = (
            ScreenEvent.objects.owned_by(self.owner)
            .visible()
            .filter(started_at__lt=start, started_at__gte=start - LINK_HORIZON)
            .exclude(outcome__in=CONTEST)
            .order_by("-started_at")[:40]
        )
        for event in candidates:
            attrs = event.attributes or {}
            if event.event_type.startswith(MESSAGES) or attrs.get("ctx") == span["ctx"]:
                continue
            if _names_its_ids(attrs, span, reading) or _named_in(attrs, text):
                return event
        return None

    def _unanswered(self, span: dict, anchor: dict, reading: SpanReading, oc) -> ScreenEvent | None:
        """The activity an answer names that showed no outcome of its own (an order whose confirmation page said
        nothing the lexicon reads, a check-in page that only said its pass was ready)."""
        return self._begun_earlier(span, reading, oc.word, at=parse_ts(anchor["at"]), elsewhere=True)

    def _begun_earlier(
        self, span: dict, reading: SpanReading, word: str, *, at: datetime | None = None, elsewhere: bool = False
    ) -> ScreenEvent | None:
        """An earlier span that showed no outcome and shares an identifier with this one (the order placed, the
        check-in done) began the activity this span settles: it becomes the activity's event, from its own start.
        A message answering it (``elsewhere``) is read elsewhere; a status page may be the same site's. A match or a
        call is its own activity: a lobby that showed the same code began nothing of it."""
        if not reading.ids or not word or word in CONTEST or is_standalone(reading.family):
            return None
        start = at or parse_ts(span["start"])
        ended = (
            Signal.objects.owned_by(self.owner)
            .filter(kind=Signal.Kind.SPAN_ENDED, processed=True)
            .filter(occurred_at__lt=start, occurred_at__gte=start - LINK_HORIZON)
            .order_by("-occurred_at")[:UNANSWERED_SCAN]
        )
        for sig in ended:
            earlier = sig.data.get("span") or {}
            if (
                not earlier
                or earlier.get("assistant")
                or earlier["id"] == span["id"]
                or is_notification(earlier["app"])
            ):
                continue
            if elsewhere and earlier["ctx"] == span["ctx"]:
                continue
            if not reading.ids & ids_in(earlier["windows"] + [earlier["url"]] + list(earlier["seen"].values())):
                continue
            own = read_span(earlier, owner_names=self.owner_names)
            if own.outcome or own.family.startswith(MESSAGES) or not family_outcome(word, own.family):
                continue
            if not elsewhere and earlier["ctx"] != span["ctx"] and own.family != reading.family:
                continue
            event = self._event_of(earlier)
            if event is None:
                self._create(earlier, own, ended=True)
                event = self._event_of(earlier)
            return event
        return None

    def _answer(self, event: ScreenEvent, span: dict, anchor: dict, word: str, detail: str) -> None:
        at = anchor.get("seen_until") or anchor["at"]
        if word == event.outcome or (event.attributes or {}).get("outcome_at", "") >= anchor["at"]:
            # The same outcome, or no newer than the one the event has (this very answer, read again): the answer
            # still on screen later than last read (a message read for minutes) extends the activity to then.
            self._evidence(event, span, anchor, EventEvidence.Role.CONTEXT, image=False)
            if word == event.outcome and event.ended_at and parse_ts(at) > event.ended_at:
                ScreenEvent.objects.filter(pk=event.pk).update(ended_at=parse_ts(at))
            return
        attrs = dict(event.attributes or {})
        attrs.update(
            outcome_line=anchor["line"],
            outcome_norm=anchor["norm"],
            outcome_at=anchor["at"],
            detail=detail,
            polarity=MIXED if detail else POLARITY.get(word, ""),
        )
        end = max(parse_ts(at), event.ended_at or parse_ts(at))
        changes = {"outcome": word, "status": ScreenEvent.Status.REVISED, "ended_at": end, "attributes": attrs}
        if not event.revisions.filter(author="user").exists() and not event.proposer.startswith("llm:"):
            changes["title"] = (anchor["line"] + (f" ({detail})" if detail else ""))[:200]
        updated, changed = revise(event=event, changes=changes, reason=f"{word}: {anchor['line']}"[:200])
        if changed:
            self._evidence(updated, span, anchor, EventEvidence.Role.OUTCOME, image=True)
            self.report.revised.append(updated.pk)
            self.report.dates.add(updated.local_date)

    # --- assertions and evidence ------------------------------------------------------------------------
    def _add_assertions(self, event: ScreenEvent, span: dict, reading: SpanReading) -> None:
        """Assertions this span adds (a new outcome line, more speech), each once, with its own role."""
        have = set(event.assertions.values_list("text", flat=True))
        fresh = []
        for a in self._assertions(span, reading):
            if a.text[:2000] not in have:
                have.add(a.text[:2000])
                fresh.append(a)
        if not fresh:
            return
        append_assertions(event, fresh)

    def _assertions(self, span: dict, reading: SpanReading) -> list[AssertionDraft]:
        out = []
        if reading.final:
            a = reading.final
            ref = {"kind": "ocr", "frame_id": a["frame"], "at": a["at"], "excerpt": a["line"]}
            who = f" ({reading.subject})" if reading.subject else ""
            out.append(
                AssertionDraft(f"Outcome shown: {a['line']}{who}", Assertion.ContentRole.SYSTEM_OUTPUT, 0.85, [ref])
            )
        for command in span["commands"][:2]:
            out.append(AssertionDraft(f"Ran `{command}`", Assertion.ContentRole.USER_AUTHORED, 0.7, []))
        for s in reading.speech:
            ref = {"kind": "audio", "at": s.at, "speaker": s.speaker, "excerpt": s.text}
            out.append(AssertionDraft(f"{s.speaker} said: {s.text}", s.role, 0.6, [ref]))
        for line in span.get("assistant_lines", [])[:2]:
            ref = {"kind": "ocr", "excerpt": line}
            out.append(
                AssertionDraft(f"Assistant pane showed: {line}", Assertion.ContentRole.ASSISTANT_OUTPUT, 0.2, [ref])
            )
        unique = {}
        for a in out:
            unique.setdefault(a.text[:2000], a)
        return list(unique.values())

    def _attach(self, event: ScreenEvent, span: dict, reading: SpanReading) -> None:
        if reading.problem is not None:
            self._evidence(event, span, reading.problem, EventEvidence.Role.PROBLEM, image=False)
        elif reading.outcome == FAILURE and reading.final is not None:
            self._evidence(event, span, reading.final, EventEvidence.Role.PROBLEM, image=False)
        for step in reading.steps:
            self._evidence(event, span, step, EventEvidence.Role.CONTEXT, image=False)
        if reading.final is not None:
            self._evidence(event, span, reading.final, EventEvidence.Role.OUTCOME, image=True)
        elif is_standalone(reading.family):
            self._evidence(event, span, _moment(span, reading), EventEvidence.Role.OUTCOME, image=True)

    def _evidence(self, event: ScreenEvent, span: dict, anchor: dict, role: str, *, image: bool) -> None:
        at = parse_ts(anchor["at"])
        existing = EventEvidence.objects.filter(event=event, role=role, occurred_at=at).first()
        if existing is not None and (existing.image_id or not image):
            return
        excerpt, frame = anchor["line"], None
        if image:
            around = evidence.frames_around(owner=self.owner, client=self.client, at=at, event=event)
            ref = around["before"]
            if ref is not None:
                excerpt = ref.text
                if ref.at == at:
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
            at=at,
            excerpt=excerpt,
            frame_id=anchor["frame"],
            frame=frame,
            app_name=span["app"],
            window_name=span["window"],
        )


def _same_problem(attrs: dict, span: dict, reading: SpanReading) -> bool:
    """A span goes on with an earlier problem when it shows one of the problem's own lines ("Could not build
    wheels for tokenizers" on a help page), is the same window of the same program, or shares two words (by
    stem) of the problem's titles and lines (its project, its machine)."""
    problems = set(attrs.get("problem_norms") or [])
    if problems & set(span["seen"]):
        return True
    same_window = attrs.get("window") and attrs["window"] in span["windows"] and not is_mirror(span["app"])
    if attrs.get("ctx") == span["ctx"] and same_window:
        return True  # the same program's same window, where the problem was shown (a mirror's names a device)
    return len(stems(reading.tokens) & stems(attrs.get("salient") or [])) >= 2


_FIELD = re.compile(r"^\s*([A-Za-z][\w ]{0,24}?)\s*:\s+(\S.*)$")  # "Program: Night cycle", "Patient: R. Ode"


def item_fields(lines) -> dict[str, list[str]]:
    """The labelled fields that name what a span is about: a label with one value throughout the span
    ("Program: Batch 12", "Recipe: Rye loaf"), kept as the value's words (numbers left out, so the next run's
    number does not make it another item). A label whose value changes within the span ("Status: running",
    then "Status: halted") or that reports an outcome says how it went, not which item it is."""
    values: dict[str, set[str]] = {}
    for line in lines:
        match = _FIELD.match(line)
        if match:
            values.setdefault(match[1].strip().lower(), set()).add(match[2].strip())
    out = {}
    for label, found in values.items():
        value = next(iter(found))
        words = sorted({w for w in tokens(value) if w.isalpha()})
        if len(found) == 1 and words and read_outcome(value) is None and read_outcome(f"{label}: {value}") is None:
            out[label] = words
    return out


def _other_item(attrs: dict, span: dict, reading: SpanReading) -> bool:
    """Two failures whose windows name different item numbers (run 4734, build 4232) are two problems; so are
    a problem and a later span of any outcome whose same labelled field names other words ("Program: Batch
    12", then "Program: Night cycle"): another run of the machine, not the fix."""
    earlier, mine = attrs.get("fields") or {}, item_fields(span["seen"].values())
    if any(label in earlier and not set(words) & set(earlier[label]) for label, words in mine.items()):
        return True
    if reading.outcome != FAILURE:
        return False  # a success names the next run: it may still be the fix
    mine, theirs = numbers(" ".join(span["windows"])), numbers(attrs.get("window", ""))
    return bool(mine and theirs and not mine & theirs)


def _other_ids(attrs: dict, reading: SpanReading) -> bool:
    """Both name identifiers (a booking reference, a flight, an order number) and none is shared: the same
    outcome line again is another item's (a second check-in on the same phone), not routine progress."""
    theirs = set(attrs.get("ids") or [])
    return bool(reading.ids and theirs and not reading.ids & theirs)


def _shown_again(span: dict, reading: SpanReading) -> bool:
    """The span opens on its outcome: a result shown again (a receipt reopened, a page reloaded). A span that
    went through an activity of its own before its outcome (a second book read to its end on the same phone)
    is another activity, whatever its last line repeats."""
    return reading.final is not None and reading.final["frame"] == span["start_frame"]


def _other_page(attrs: dict, span: dict) -> bool:
    """The span never shows the window its event opened on, and opened on another one: the same receipt ("Message
    sent") under another subject or conversation is another item's. A mirror's window names only the device."""
    theirs, mine = attrs.get("window") or "", next((w for w in span["windows"] if w), "")
    return bool(theirs and mine) and theirs not in span["windows"] and not is_mirror(span["app"])


def _moment(span: dict, reading: SpanReading) -> dict:
    """The span's own frame that shows a call's outcome: the one on screen when the decision was said, else
    its last frame (never a frame from after it, nor from another program)."""
    said = reading.decision or {}
    frame, at = said.get("frame"), said.get("frame_at")
    if frame is None or at is None:
        frame, at = span["last_frame"], span["last"]
    title = next((w for w in span["windows"] if w), span["app"])
    return {"line": title, "at": at, "frame": frame}


def _names_its_ids(attrs: dict, span: dict, reading: SpanReading) -> bool:
    """The span names one of the event's identifiers: one it reads as an identifier too, or the very code shown
    as it was ("Your application (QXUAEB)" after a page that labelled it "Reference QXUAEB"), whatever its letters."""
    theirs = set(attrs.get("ids") or [])
    if reading.ids & theirs:
        return True
    shown = {w for line in span["seen"].values() for w in _CODE_TOKEN.findall(line)}
    return bool(shown & theirs)


_CODE_TOKEN = re.compile(r"(?<![\w-])[A-Z0-9][A-Z0-9-]{3,}(?![\w-])")  # written in capitals and digits, as shown


def _named_in(attrs: dict, text: str) -> bool:
    """The event's site (its registered name) or program is named in ``text`` (lower case, letters only)."""
    site = (attrs.get("ctx") or "").partition("|")[2].split(".")[0]
    app = re.sub(r"[^a-z0-9]", "", (attrs.get("app") or "").lower())
    return (len(site) >= 5 and site in text) or (len(app) >= 5 and not site and app in text)


def _problem_norms(reading: SpanReading) -> list[str]:
    return list(reading.failure_norms)


def _key(span: dict) -> str:
    return f"span:{span['id']}"[:120]


def _attributes(span: dict, reading: SpanReading, base: ScreenEvent | None, *, minutes: int) -> dict:
    """An event's attributes from a span's reading, kept over the event it revises (``base``)."""
    attrs = dict(base.attributes) if base else {}
    spans = list(attrs.get("spans") or [])
    if span["id"] not in spans:
        spans.append(span["id"])
    app = span["app"] or "screen"
    attrs.update(
        {
            "family": reading.family,
            "polarity": reading.polarity,
            "outcome_subject": reading.subject,
            "outcome_line": reading.final["line"] if reading.final else "",
            "outcome_norm": reading.final_norm,
            "outcome_at": reading.final["at"] if reading.final else attrs.get("outcome_at", ""),
            "detail": reading.detail,
            "spans": spans[-20:],
            "ctx": span["ctx"],
            "app": app,
            "window": next((w for w in span["windows"] if w), ""),
            "tokens": sorted(reading.tokens | set(attrs.get("tokens") or []))[:60],
            "ids": sorted(reading.ids | set(attrs.get("ids") or []))[:20],
            "commands": span["commands"] or attrs.get("commands") or [],
            "mode": reading.mode or attrs.get("mode", ""),
            "minutes": minutes,
            "sides": sorted(reading.sides),
            "opponent": reading.opponent or attrs.get("opponent", ""),
            "salient": sorted(reading.salient | set(attrs.get("salient") or []))[:40],
            "problem_norms": (_problem_norms(reading) or attrs.get("problem_norms") or [])[:4],
            "kind": "problem" if reading.outcome == FAILURE else attrs.get("kind", "activity"),
            "fields": item_fields(span["seen"].values()) or attrs.get("fields") or {},
        }
    )
    if reading.outcome in CONTEST:
        from screen.text import score_in

        attrs["score"] = next((s for s in map(score_in, span["seen"].values()) if s), "") if reading.final else ""
    return attrs


def _summary(reading: SpanReading, span: dict, outcome: str, start: datetime, end: datetime) -> str:
    minutes = max(0, round((end - start).total_seconds() / 60))
    where = span["app"] or "the screen"
    text = f"{reading.family} in {where} for about {minutes} min"
    if reading.final:
        text += f"; the screen said {reading.final['line']!r}"
    if outcome:
        text += f" ({outcome}" + (f" for {reading.subject}" if reading.subject else "") + ")"
    return text + "."


def _actions(reading: SpanReading, span: dict) -> list[str]:
    """What the user did: commands typed at a prompt, and taking part in the activity the system showed."""
    actions = [f"ran `{c}`" for c in span["commands"]]
    app = span["app"] or "a fullscreen program"
    if reading.outcome in CONTEST:
        actions.append(f"played a {reading.mode + ' ' if reading.mode else ''}match in {app}")
    elif reading.family.startswith("meeting."):
        actions.append(f"took part in a call in {app}")
    return actions


def propose(*, owner, source, client, open_spans=()) -> PassReport:
    """Run the proposal pass over every unprocessed signal of ``owner``, then over the spans still open."""
    return ProposalPass(owner=owner, source=source, client=client, open_spans=open_spans).run()


def close_stale(*, owner, now: datetime | None = None, older_than: timedelta = STALE_AFTER) -> list[int]:
    """Close open problems that saw no outcome for ``older_than`` (explicit reconciliation pass)."""
    now = now or timezone.now()
    closed = []
    stale = ScreenEvent.objects.owned_by(owner).open().filter(outcome=FAILURE, started_at__lt=now - older_than)
    for event in stale:
        if (event.ended_at or event.started_at) >= now - older_than:
            continue
        _, changed = revise(
            event=event,
            changes={"status": ScreenEvent.Status.CLOSED},
            reason=f"closed: no outcome within {int(older_than.total_seconds() // 3600)} h",
            author="reconcile",
        )
        if changed:
            closed.append(event.pk)
    return closed
