"""Review actions. Each one is a ledger commit authored by the reviewer (through ``ledger.services``), logged in
``ReviewAction`` with what the fact looked like before, so ``undo`` can write the commit that reverts it.

Pages, the API and the admin all call ``act`` / ``bulk`` / ``undo``; none of them writes a fact any other way.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date

from django.db import models, transaction
from django.utils import timezone

from accounts.exceptions import DomainError
from distill import learning
from ledger import services as ledger_services
from ledger.models import Entity, Evidence, Fact, Status
from review import queries
from review.cards import held_fact_for, is_conflict
from review.models import ReviewAction

REVIEWER = "reviewer"


class Action(models.TextChoices):
    ACCEPT = "accept"
    REJECT = "reject"
    EDIT = "edit"
    NOT_ABOUT_ME = "not_about_me", "Not about me"
    MERGE = "merge"
    SNOOZE = "snooze"
    RESCUE = "rescue"


class NotReviewable(DomainError):
    """This memory is no longer in a state that allows the action (someone decided it already)."""

    status_code = 409


class NothingToUndo(DomainError):
    """There is no review action left to undo."""

    status_code = 409


class InvalidAction(DomainError):
    status_code = 422


# Which fact statuses each action applies to (anything else is a stale item).
PENDING = (Status.PENDING, Status.PENDING_REVIEW)
ALLOWED_FROM = {
    Action.ACCEPT: (*PENDING, Status.DROPPED),
    Action.REJECT: (*PENDING, Status.ACCEPTED, Status.DROPPED),
    Action.EDIT: PENDING,
    Action.NOT_ABOUT_ME: (*PENDING, Status.ACCEPTED),
    Action.MERGE: PENDING,
    Action.SNOOZE: PENDING,
    Action.RESCUE: (Status.DROPPED,),
}
BULK_ACTIONS = {
    queries.Band.QUEUE: (Action.ACCEPT, Action.REJECT),
    queries.Band.CONFLICTS: (Action.ACCEPT, Action.REJECT),
    queries.Band.AUTO_ACCEPTED: (Action.REJECT,),
    queries.Band.DROPPED: (Action.RESCUE, Action.REJECT),
}


@dataclass
class Outcome:
    action: ReviewAction
    fact: Fact


def _before(fact: Fact) -> dict:
    return {
        "status": fact.status,
        "status_reason": fact.status_reason,
        "content": fact.content,
        "subject_kind": fact.subject_kind,
        "subject_entity": str(fact.subject_entity.public_id) if fact.subject_entity_id else None,
    }


def _check_action(action: str) -> Action:
    try:
        return Action(action)
    except ValueError:
        raise InvalidAction(f"unknown action {action!r}; expected one of: {', '.join(Action.values)}") from None


def _decide(owner, fact: Fact, status: str, reason: str) -> Fact:
    return ledger_services.decide(owner=owner, fact=fact, status=status, reason=reason, author=REVIEWER)


def _accept(owner, fact: Fact, detail: dict) -> Fact:
    held = None
    if is_conflict(fact.status_reason):
        held = held_fact_for(fact)
    fact = _decide(owner, fact, Status.ACCEPTED, "accepted-by-reviewer")
    if held is not None:
        # The person sided with the new claim: the held one was wrong (kept as contradicted history).
        detail.update(held=str(held.public_id), held_status=held.status, held_reason=held.status_reason)
        ledger_services.supersede(owner=owner, old=held, new=fact, kind="contradict", author=REVIEWER)
        fact = Fact.objects.get(pk=fact.pk)
    return fact


def _not_about_me(owner, fact: Fact, subject: str | None, detail: dict) -> Fact:
    subject = (subject or "").strip()
    if not subject:
        raise InvalidAction("say whom it is about: a person's name, or 'unknown'")
    if subject.lower() == "unknown":
        detail["subject"] = "unknown"
        return ledger_services.reassign_fact_subject(owner=owner, fact=fact, subject="unknown", author=REVIEWER)
    person = Entity.objects.owned_by(owner).filter(public_id=subject).first() if queries.is_uuid(subject) else None
    detail["subject"] = subject if person is None else person.name
    return ledger_services.reassign_fact_subject(
        owner=owner, fact=fact, subject="third_party", person=person or subject, author=REVIEWER
    )


def _merge(owner, fact: Fact, merge_into: str | None, detail: dict) -> Fact:
    target = None
    if merge_into and queries.is_uuid(merge_into):
        target = Fact.objects.owned_by(owner).filter(public_id=merge_into).first()
    if target is None:
        raise InvalidAction("merge_into must be the id of one of your memories")
    if target.pk == fact.pk or target.status not in (Status.ACCEPTED, *PENDING):
        raise InvalidAction("merge into a different memory you hold")
    detail.update(into=str(target.public_id), evidence=[])
    detail["evidence"] = ledger_services.merge_fact_into(owner=owner, fact=fact, into=target, author=REVIEWER)
    return Fact.objects.get(pk=fact.pk)


def _snooze(owner, fact: Fact, until, detail: dict) -> Fact:
    if isinstance(until, str):
        try:
            until = date.fromisoformat(until)
        except ValueError:
            raise InvalidAction("snooze_until must be a date (YYYY-MM-DD)") from None
    if not isinstance(until, date):
        raise InvalidAction("snooze needs a date (snooze_until)")
    if until <= queries.local_today(owner):
        raise InvalidAction("snooze until a day after today")
    detail["until"] = until.isoformat()
    return _decide(owner, fact, fact.status, f"{queries.SNOOZE_PREFIX}{until.isoformat()}")


def act(
    *,
    owner,
    fact: Fact,
    action: str,
    edit: str | None = None,
    subject: str | None = None,
    merge_into: str | None = None,
    snooze_until=None,
    batch: uuid.UUID | None = None,
) -> Outcome:
    """Apply one review action to ``fact`` as the reviewer and log it for undo.

    accept / reject / edit (refine, then accept) / not_about_me (reassign to a person or "unknown") / merge (into
    ``merge_into``) / snooze (until ``snooze_until``) / rescue (a dropped memory back into the queue).
    Raises InvalidAction (422) for an unknown action or a missing argument, NotReviewable (409) when the memory
    has left the state the action needs. Nothing is written when it raises.
    """
    kind = _check_action(action)
    if fact.owner_id != owner.pk:
        raise NotReviewable("not your memory")
    with transaction.atomic():
        # Two tabs (or the page and the API) deciding one item at once: the second waits here, then sees the
        # first decision and answers "stale" instead of writing a second, contradictory commit.
        fact = Fact.objects.select_for_update(of=("self",)).select_related("subject_entity").get(pk=fact.pk)
        if fact.status not in ALLOWED_FROM[kind]:
            raise NotReviewable(f"This memory is already {fact.status.replace('_', ' ')}; reload to see the queue")
        before, detail = _before(fact), {}
        if kind == Action.ACCEPT:
            fact = _accept(owner, fact, detail)
        elif kind == Action.REJECT:
            fact = _decide(owner, fact, Status.REJECTED, "rejected-by-reviewer")
        elif kind == Action.EDIT:
            fact = _edit(owner, fact, edit, detail)
        elif kind == Action.NOT_ABOUT_ME:
            fact = _not_about_me(owner, fact, subject, detail)
        elif kind == Action.MERGE:
            fact = _merge(owner, fact, merge_into, detail)
        elif kind == Action.SNOOZE:
            fact = _snooze(owner, fact, snooze_until, detail)
        else:
            fact = _decide(owner, fact, Status.PENDING_REVIEW, "rescued-by-reviewer")
        logged = ReviewAction.objects.create(
            owner=owner,
            batch=batch or uuid.uuid4(),
            kind=kind,
            fact_public_id=fact.public_id,
            before=before,
            detail=detail,
        )
        if kind in LEARNED_FROM:
            # Every decision is a labelled example for this owner's gate (``distill.learning``).
            learning.record_example(
                owner=owner, fact=fact, decision=kind, action_public_id=logged.public_id, before=before
            )
    return Outcome(logged, fact)


def _edit(owner, fact: Fact, edit: str | None, detail: dict) -> Fact:
    """Refine the wording, then accept: one commit, unless the item is a conflict (accepting it decides it)."""
    content = (edit or "").strip()
    if not content:
        raise InvalidAction("edit needs the corrected wording")
    if content != fact.content and not is_conflict(fact.status_reason):
        return ledger_services.refine(
            owner=owner, fact=fact, content=content, author=REVIEWER, status=Status.ACCEPTED,
            reason="edited-by-reviewer",
        )  # fmt: skip
    if content != fact.content:
        fact = ledger_services.refine(owner=owner, fact=fact, content=content, author=REVIEWER)
    return _accept(owner, fact, detail)


LEARNED_FROM = (Action.ACCEPT, Action.REJECT, Action.EDIT, Action.NOT_ABOUT_ME, Action.SNOOZE, Action.RESCUE)


def bulk(
    *, owner, band: str, action: str, source: str | None = None, subject: str | None = None, expected=None
) -> list[Outcome]:
    """Apply ``action`` to every item of a band the page shows with these filters, as one undoable batch.

    ``expected`` is the count the person confirmed; a different count now (the band changed) raises
    NotReviewable and writes nothing.
    """
    kind = _check_action(action)
    if band not in BULK_ACTIONS or kind not in BULK_ACTIONS[band]:
        raise InvalidAction(f"{kind.label} is not a bulk action for {queries.Band.LABELS.get(band, band)}")
    pks = bulk_targets(owner, band, source=source, subject=subject)
    if expected is not None and int(expected) != len(pks):
        raise NotReviewable(f"The band changed: {len(pks)} items match now; confirm again")
    batch = uuid.uuid4()
    with transaction.atomic():
        facts = Fact.objects.owned_by(owner).filter(pk__in=pks)
        return [act(owner=owner, fact=f, action=kind, batch=batch) for f in facts]


def bulk_targets(owner, band: str, *, source=None, subject=None) -> list[int]:
    if band in (queries.Band.QUEUE, queries.Band.CONFLICTS):
        plan = queries.queue_plan(owner)
        return [r.pk for r in queries.pending_rows(plan, band, source, subject, show_all=False)]
    return list(queries.recent_band_qs(owner, band, source=source, subject=subject).values_list("pk", flat=True))


# --- undo ----------------------------------------------------------------------------------------------
def undo(*, owner) -> list[Fact]:
    """Revert the owner's last review action (a whole bulk batch at once) with new reviewer commits.

    Raises NothingToUndo when there is none. Returns the facts as they are after the revert.
    """
    with transaction.atomic():
        last = (
            ReviewAction.objects.owned_by(owner)
            .select_for_update()
            .filter(undone_at__isnull=True)
            .order_by("-created_at", "-id")
            .first()
        )
        if last is None:
            raise NothingToUndo("Nothing to undo")
        actions = list(ReviewAction.objects.owned_by(owner).filter(batch=last.batch, undone_at__isnull=True))
        reverted = [f for a in actions if (f := _revert(owner, a)) is not None]
        ReviewAction.objects.filter(pk__in=[a.pk for a in actions]).update(undone_at=timezone.now())
        learning.undo_examples(owner=owner, action_public_ids=[a.public_id for a in actions])
    return reverted


def _revert(owner, action: ReviewAction) -> Fact | None:
    fact = Fact.objects.owned_by(owner).select_related("subject_entity").filter(public_id=action.fact_public_id)
    fact = fact.first()
    if fact is None:  # forgotten since: nothing to bring back
        return None
    before, detail = action.before, action.detail
    if action.kind == Action.NOT_ABOUT_ME:
        person = None
        if before.get("subject_entity"):
            person = Entity.objects.owned_by(owner).filter(public_id=before["subject_entity"]).first()
        kind = before["subject_kind"] if (before["subject_kind"] != "third_party" or person) else "unknown"
        return ledger_services.reassign_fact_subject(
            owner=owner, fact=fact, subject=kind, person=person, author=REVIEWER
        )
    if action.kind == Action.MERGE:
        for ev in Evidence.objects.owned_by(owner).filter(public_id__in=detail.get("evidence") or []):
            ledger_services.remove_evidence(owner=owner, evidence=ev, author=REVIEWER)
    if detail.get("held"):
        held = Fact.objects.owned_by(owner).filter(public_id=detail["held"]).first()
        if held is not None and held.status != detail["held_status"]:
            _decide(owner, held, detail["held_status"], detail.get("held_reason") or "restored-by-undo")
    if fact.content != before["content"]:
        fact = ledger_services.refine(owner=owner, fact=fact, content=before["content"], author=REVIEWER)
    return _decide(owner, fact, before["status"], before.get("status_reason") or "restored-by-undo")


def set_daily_budget(*, owner, daily_budget: int) -> int:
    """How many items a day the queue may surface for ``owner`` (1..500)."""
    from review.models import ReviewPreference

    if not isinstance(daily_budget, int) or not 1 <= daily_budget <= 500:
        raise InvalidAction("daily_budget must be between 1 and 500")
    ReviewPreference.objects.update_or_create(owner=owner, defaults={"daily_budget": daily_budget})
    return daily_budget


def refit_learning(*, owner):
    """Refit the owner's gate adjustment from their decisions now (the Review page's and the API's "Refit");
    the nightly schedule does the same for everyone. Returns ``distill.learning.learned(owner)``."""
    learning.refit(owner=owner)
    return learning.learned(owner)
