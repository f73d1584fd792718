"""Background jobs for the ledger (thin wrappers over services)."""

from __future__ import annotations

from ledger import services


def decide_timeouts() -> dict:
    """Daily: decide pending items nobody reviewed in time; returns the counted report."""
    report = services.decide_timeouts()
    return {"decided": report.decided, "accepted": report.accepted, "dropped": report.dropped}
