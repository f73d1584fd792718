"""Argument checks shared by the ledger's write services. Each raises a DomainError with a readable message."""

from __future__ import annotations

from accounts.exceptions import DomainError
from ledger.exceptions import InvalidMutation


def clamp01(value, name: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidMutation(f"{name} must be a number between 0 and 1") from None
    if not 0 <= v <= 1:
        raise InvalidMutation(f"{name} must be between 0 and 1, got {v}")
    return v


def check_owner(obj, owner, what: str):
    if obj is None or obj.owner_id != owner.pk:
        raise DomainError(f"{what} not found")


def check_choice(value: str, choices, name: str) -> str:
    if value not in choices:
        raise InvalidMutation(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value
