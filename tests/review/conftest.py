"""Review fixtures: pending memories with a trust score, the way the gate writes them."""

from __future__ import annotations

import pytest

from tests.factories import EvidenceInFactory, FactFactory
from tests.wearables.conftest import serve  # noqa: F401  (imitation servers, for the synced-day browser test)


def make_pending(owner, content, trust=0.6, *, importance="normal", source="wearable:1", details=None, **kw):
    """A pending_review memory whose evidence carries the gate's trust score and components."""
    ev_details = {
        "trust_score": trust,
        "components": {"extraction_confidence": 0.8, "source_trust": 0.8, "judge": 0.15, "capture_confidence": 0.8},
        "judge_verdict": "accept",
        "corroborating_sources": [],
        "reason": "score in review band",
        **(details or {}),
    }
    ev = EvidenceInFactory(quote=content, details=ev_details, source_label=source)
    return FactFactory(
        owner=owner, content=content, pending=True, evidence=[ev], importance=importance, source_label=source, **kw
    )


@pytest.fixture
def pending():
    """``pending(owner, content, trust=0.6, importance=..., source=...)`` -> a queued Fact."""
    return make_pending
