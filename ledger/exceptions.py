"""The ledger's domain errors, all ``accounts.exceptions.DomainError`` (mapped to ``{"detail": ...}`` by the API)."""

from __future__ import annotations

from accounts.exceptions import DomainError


class HeadConflict(DomainError):
    """The chain head moved since the caller read it (optimistic concurrency): re-read and retry."""

    status_code = 409

    def __init__(self, expected: str, current: str):
        self.expected = expected
        self.current = current
        super().__init__(
            f"Ledger head moved: expected {expected[:12] or '(empty)'}, current is {current[:12] or '(empty)'}"
        )


class InvalidMutation(DomainError):
    """A mutation is malformed or does not apply to the current projection."""

    status_code = 400


class ChainBroken(DomainError):
    """The commit chain failed verification (tampered or missing commit)."""

    status_code = 500


class RefusedClaim(DomainError):
    """The claim was refused by a lasting refusal."""

    status_code = 409
