from __future__ import annotations

from accounts.exceptions import DomainError


class WearablesError(DomainError):
    """Bad input to a wearables service (400)."""


class WearablesValidationError(DomainError):
    """A setting that cannot be saved (422)."""

    status_code = 422
