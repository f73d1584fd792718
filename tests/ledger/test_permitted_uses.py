"""The policy table, bands, conflicts and timeouts: pure, no database."""

from __future__ import annotations

import pytest

from ledger import permitted_uses


@pytest.mark.parametrize(
    ("status", "uses"),
    [
        ("accepted", ["answers", "actions"]),
        ("pending", ["answers_with_disclaimer"]),
        ("pending_review", ["answers_with_disclaimer"]),
        ("contradicted", ["uncertainty_history"]),
        ("rejected", ["audit_debug"]),
        ("dropped", []),
        ("retracted", []),
        ("superseded", []),
        ("tombstoned", []),
        ("source_tombstoned", []),
    ],
)
def test_policy_table_maps_each_status_to_its_uses(status, uses):
    assert permitted_uses.permitted_uses(status) == uses


def test_unknown_status_permits_nothing():
    assert permitted_uses.permitted_uses("made_up") == []


def test_irreversible_action_needs_accepted():
    assert permitted_uses.can_use_for_action("accepted", "irreversible")
    for status in permitted_uses.STATUSES:
        if status != "accepted":
            assert not permitted_uses.can_use_for_action(status, "irreversible")
            assert not permitted_uses.can_use_for_action(status, "reversible")


def test_can_use_for_action_rejects_unknown_kinds():
    with pytest.raises(ValueError):
        permitted_uses.can_use_for_action("accepted", "sometimes")


def test_answers_with_disclaimer_includes_plainly_answerable_facts():
    assert set(permitted_uses.statuses_permitting("answers_with_disclaimer")) == {
        "accepted",
        "pending",
        "pending_review",
    }
    assert permitted_uses.statuses_permitting("answers") == ["accepted"]


@pytest.mark.parametrize(
    ("value", "band"), [(0.0, "low"), (0.49, "low"), (0.5, "medium"), (0.75, "high"), (0.9, "certain")]
)
def test_bands(value, band):
    assert permitted_uses.band(value) == band


def test_conflict_escalates_only_when_ambiguous_and_material():
    kw = {"new_importance": "high", "held_importance": "high"}
    assert permitted_uses.conflict_resolution(new_veracity=0.4, held_veracity=0.8, **kw) == "escalate"
    # not ambiguous: the new claim is at least medium
    assert permitted_uses.conflict_resolution(new_veracity=0.6, held_veracity=0.8, **kw) == "supersede"
    # ambiguous but not material: trivial importance
    assert (
        permitted_uses.conflict_resolution(
            new_veracity=0.4, held_veracity=0.8, new_importance="trivial", held_importance="trivial"
        )
        == "keep_held"
    )


def test_timeout_decision_accepts_only_well_supported_claims():
    assert permitted_uses.timeout_decision(
        status="pending_review", veracity=0.8, capture_confidence=0.7, importance="normal"
    ) == (
        "accepted",
        "accepted-by-timeout",
    )
    assert (
        permitted_uses.timeout_decision(
            status="pending_review", veracity=0.6, capture_confidence=0.7, importance="normal"
        )[0]
        == "dropped"
    )
    assert (
        permitted_uses.timeout_decision(
            status="pending_review", veracity=0.95, capture_confidence=0.9, importance="critical"
        )[0]
        == "dropped"
    )


def test_disclaimers_name_the_third_party():
    out = permitted_uses.disclaimers(
        status="pending_review", subject_kind="third_party", subject_name="Maya", capture_confidence=0.4, veracity=0.6
    )
    assert "About Maya, not you." in out
    assert any("Unconfirmed" in d for d in out)
    assert any("misheard" in d for d in out)
