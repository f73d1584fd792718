"""Background work of the gate: the nightly refit of every owner's learned adjustment (``distill.learning``)."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from distill import learning


def refit_adjustments() -> int:
    """Nightly (schedule ``distill-refit-adjustments``): refit every owner who has review examples."""
    return learning.refit_all()


def refit_owner(owner_id: int) -> None:
    """Refit one owner's adjustment; quietly nothing when the owner is gone."""
    owner = get_user_model().objects.filter(pk=owner_id).first()
    if owner is not None:
        learning.refit(owner=owner)
