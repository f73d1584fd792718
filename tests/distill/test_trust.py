"""Trust score components, modes and gates (pure)."""

from __future__ import annotations

import pytest

from distill import trust
from distill.extraction.base import Candidate


def cand(content="Rosa is allergic to peanuts.", conf=0.9, importance="high", capture=0.9, **kw) -> Candidate:
    return Candidate(
        subject="user",
        predicate="health:allergic",
        args=[],
        content=content,
        kind="health",
        importance=importance,
        extraction_confidence=conf,
        capture_confidence=capture,
        attribution="user",
        **kw,
    )


def decided(c, policy=None, **kw):
    policy = policy or trust.Policy()
    return trust.decide(trust.score(c, source_trust=policy.source_trust, **kw), policy)


def test_base_score_is_confidence_times_source_trust():
    s = trust.score(cand(conf=0.5), source_trust=0.8)
    assert s.score == pytest.approx(0.4)
    assert s.components["base"] == pytest.approx(0.4)


def test_judge_accept_adds_015():
    assert trust.score(cand(conf=0.5), source_trust=0.8, judge_verdict="accept").score == pytest.approx(0.55)


def test_corroboration_adds_015_and_records_sources():
    s = trust.score(cand(conf=0.5), source_trust=0.8, corroborating_sources=["omi", "bee"])
    assert s.score == pytest.approx(0.55)
    assert s.corroborating_sources == ["bee", "omi"]


def test_supporting_memory_adds_010_and_records_its_id():
    s = trust.score(cand(conf=0.5), source_trust=0.8, supporting_memory_id="abc")
    assert s.score == pytest.approx(0.5)
    assert s.evidence_payload()["supporting_memory_id"] == "abc"


def test_smart_mode_bands():
    assert decided(cand(conf=0.9)).decision == trust.ACCEPTED  # 0.72
    assert decided(cand(conf=0.7)).decision == trust.PENDING  # 0.56
    assert decided(cand(conf=0.5)).decision == trust.DROPPED  # 0.40


def test_judge_reject_drops_and_defer_sends_to_review():
    assert decided(cand(conf=0.95), judge_verdict="reject").decision == trust.DROPPED
    assert decided(cand(conf=0.95), judge_verdict="defer").decision == trust.PENDING


def test_low_capture_confidence_caps_at_review():
    s = decided(cand(conf=0.95, capture=0.2))
    assert s.decision == trust.PENDING and "low capture" in s.reason


def test_review_mode_queues_everything():
    assert decided(cand(conf=0.99), trust.Policy(mode="review")).decision == trust.PENDING


def test_auto_mode_accepts_survivors_of_the_gates():
    policy = trust.Policy(mode="auto")
    items = [decided(cand(conf=0.3), policy), decided(cand("Rosa lives in Oslo.", conf=0.7), policy)]
    trust.apply_gates(items, policy, existing_hashes=set())
    assert [i.decision for i in items] == [trust.DROPPED, trust.ACCEPTED]
    assert "min_confidence" in items[0].reason


def test_off_mode_writes_nothing():
    assert decided(cand(conf=0.99), trust.Policy(mode="off")).decision == trust.DROPPED


def test_min_importance_gate():
    policy = trust.Policy(min_importance="normal")
    items = [decided(cand(conf=0.95, importance="low"), policy)]
    trust.apply_gates(items, policy, existing_hashes=set())
    assert items[0].decision == trust.DROPPED and "min_importance" in items[0].reason


def test_dedup_within_run_and_against_existing():
    policy = trust.Policy()
    a, b, c = (
        decided(cand("Rosa is allergic to peanuts.")),
        decided(cand("rosa is ALLERGIC to peanuts")),
        decided(cand("Rosa lives in Oslo.")),
    )
    trust.apply_gates([a, b, c], policy, existing_hashes={c.candidate.content_hash})
    assert [x.decision for x in (a, b, c)] == [trust.ACCEPTED, trust.DROPPED, trust.DROPPED]
    assert b.reason == c.reason == "duplicate"


def test_day_cap_keeps_highest_trust_in_smart_mode_after_dedup():
    policy = trust.Policy(max_memories_per_day=2)
    items = [decided(cand(f"Rosa fact number {n}.", conf=c)) for n, c in enumerate([0.6, 0.95, 0.6, 0.9])]
    items.insert(0, decided(cand("Rosa fact number 1.", conf=0.95)))  # duplicate of a high one: dropped first
    trust.apply_gates(items, policy, existing_hashes=set())
    kept = [i.candidate.content for i in items if i.decision != trust.DROPPED]
    assert kept == ["Rosa fact number 1.", "Rosa fact number 3."]


def test_uncapped_when_zero():
    policy = trust.Policy(max_memories_per_day=0)
    items = [decided(cand(f"Rosa fact {n}.", conf=0.95)) for n in range(30)]
    trust.apply_gates(items, policy, existing_hashes=set())
    assert all(i.decision == trust.ACCEPTED for i in items)


def test_native_policy_lowers_prior_and_uses_its_own_mode():
    from distill.models import GatePolicy
    from distill.policies import as_trust_policy

    gate = GatePolicy(source_key="wearable:bee", mode="smart", source_trust=0.8, native_mode="review")
    policy = as_trust_policy(gate, native=True)
    assert policy.source_trust == pytest.approx(0.72) and policy.mode == "review"
    assert as_trust_policy(gate).mode == "smart" and as_trust_policy(gate).source_trust == pytest.approx(0.8)


def test_coverage_is_token_share_of_the_claim():
    assert trust.coverage("Rosa lives in Oslo", "she said Rosa lives in Oslo now") == 1.0
    assert trust.coverage("Rosa lives in Oslo", "Bergen is lovely") == 0.0


def test_active_memory_of_the_same_subject_supports_a_candidate():
    from distill import pipeline

    active = [
        pipeline.ActiveMemory("m1", "user", "Rosa has a peanut allergy and is allergic to peanuts."),
        pipeline.ActiveMemory("m2", "person:Oskar", "Oskar is allergic to peanuts."),
    ]
    assert pipeline.find_support(cand("Rosa is allergic to peanuts."), active, "Rosa") == "m1"
    assert pipeline.find_support(cand("Rosa lives in Oslo."), active, "Rosa") is None


def test_sibling_that_heard_the_words_differently_flags_the_claim():
    from distill import pipeline
    from distill.extraction.base import Evidence

    c = cand("Rosa has been a veterinarian for eight years.")
    c.evidence = Evidence(0, 0, "I've been a veterinarian for like eight years.")
    sibs = [pipeline.SiblingUtterance("limitless", "I've been vegetarian for like eight years.", True)]
    agreeing, disagreement = pipeline.cross_check(c, None, True, sibs, "Rosa")
    assert agreeing == [] and "heard this differently" in disagreement


def test_sibling_giving_the_words_to_another_speaker_flags_the_claim():
    from distill import pipeline
    from distill.extraction.base import Evidence

    c = cand("Rosa is switching to night shifts in July.")
    c.evidence = Evidence(0, 0, "Tell me. I'm switching to night shifts in July.")
    sibs = [pipeline.SiblingUtterance("limitless", "I'm switching to night shifts in July.", False)]
    agreeing, disagreement = pipeline.cross_check(c, None, True, sibs, "Rosa")
    assert agreeing == [] and "another speaker" in disagreement
