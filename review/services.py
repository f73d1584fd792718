"""Review decisions. Every decision is a ledger commit authored by the reviewer; rejection makes a lasting refusal."""

from __future__ import annotations

from ledger import services as ledger_services
from ledger.exceptions import DomainError
from ledger.models import Fact
from review.queries import REVIEWABLE


class NotReviewable(DomainError):
    status_code = 409


DECISIONS = {"accept": "accepted", "reject": "rejected"}


def decide_item(*, owner, fact: Fact, decision: str, content: str | None = None, reason: str = "") -> Fact:
    """Accept (optionally with corrected wording) or reject one queued memory.

    Raises ``NotReviewable`` when the memory already left the queue, and ``DomainError`` for an unknown decision
    or empty corrected content. Nothing is written when it raises.
    """
    if decision not in DECISIONS:
        raise DomainError(f"decision must be one of: {', '.join(DECISIONS)}")
    if fact.status not in REVIEWABLE:
        raise NotReviewable(f"This memory is already {fact.status}; only pending memories can be reviewed")
    if content is not None:
        content = content.strip()
        if not content:
            raise DomainError("content must not be empty")
        if decision == "reject":
            raise DomainError("a rejected memory cannot be reworded")
        if content != fact.content:
            fact = ledger_services.refine(owner=owner, fact=fact, content=content, author="reviewer")
    default_reason = "accepted-by-reviewer" if decision == "accept" else "rejected-by-reviewer"
    return ledger_services.decide(
        owner=owner, fact=fact, status=DECISIONS[decision], reason=reason or default_reason, author="reviewer"
    )
