"""User fix-ups: word corrections and redaction rules. Adding one re-processes stored days right away, so a new
redaction rule also scrubs what is already stored."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from accounts.owned import get_owned_or_404
from wearables.models import Correction, RedactionRule
from wearables.pipeline.redaction import compile_user_pattern
from wearables.services.errors import WearablesError, WearablesValidationError
from wearables.services.sources import get_source
from wearables.services.sync import reprocess_stored_days


@transaction.atomic
def add_correction(*, owner, wrong: str, right: str, kind: str | None = None) -> Correction:
    """Replace the whole word(s) ``wrong`` by ``right`` in every transcript (of one source with ``kind``)."""
    wrong, right = " ".join((wrong or "").split()), " ".join((right or "").split())
    if not wrong or not right or len(wrong) > 200 or len(right) > 200:
        raise WearablesValidationError("wrong and right need 1 to 200 characters each")
    if wrong.lower() == right.lower() and wrong == right:
        raise WearablesValidationError("wrong and right are the same")
    if "[redacted]" in wrong.lower() or "[redacted]" in right.lower():
        raise WearablesValidationError("corrections cannot touch redacted text")
    source = get_source(owner, kind) if kind else None
    correction, _ = Correction.objects.update_or_create(
        owner=owner, source=source, wrong=wrong, defaults={"right": right}
    )
    reprocess_stored_days(owner=owner, source=source)  # same transaction as the correction
    return correction


def remove_correction(*, owner, correction_id: int) -> None:
    """Future syncs stop applying it; text already corrected stays as it is."""
    get_owned_or_404(Correction, owner, pk=correction_id).delete()


@transaction.atomic
def add_redaction_rule(*, owner, pattern: str, description: str = "") -> RedactionRule:
    """A regex whose matches become [redacted]. Raises WearablesValidationError (422) if it does not compile."""
    try:
        compile_user_pattern(pattern)
    except ValueError as exc:
        raise WearablesValidationError(f"pattern: {exc}") from exc
    if len(pattern) > 500:
        raise WearablesValidationError("pattern: at most 500 characters")
    try:
        with transaction.atomic():
            rule = RedactionRule.objects.create(owner=owner, pattern=pattern, description=description[:200])
    except IntegrityError as exc:
        raise WearablesError("That redaction rule already exists") from exc
    reprocess_stored_days(owner=owner)  # same transaction: the rule and the scrubbed days land together
    return rule


def remove_redaction_rule(*, owner, rule_id: int) -> None:
    get_owned_or_404(RedactionRule, owner, pk=rule_id).delete()
