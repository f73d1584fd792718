"""The trust decision (pure): the model's calibrated probability, the modes, the lines, the caps and the gates."""

from __future__ import annotations

import json

import pytest

from distill import gate_model, pipeline, trust
from distill.extraction.base import Candidate, Evidence
from distill.steps import decision


def cand(
    content="Ilse repairs harpsichords for a living.", conf=0.8, importance="high", capture=0.9, **kw
) -> Candidate:
    kw.setdefault("features", {"subject_type": "owner", "attribution_confidence": 0.95, "speaker_is_owner": True})
    return Candidate(
        subject=kw.pop("subject", "user"),
        predicate="work:repair",
        args=[],
        content=content,
        kind="work",
        importance=importance,
        extraction_confidence=conf,
        capture_confidence=capture,
        attribution=kw.pop("attribution", "user"),
        evidence=Evidence(0, 0, "I repair harpsichords for a living."),
        **kw,
    )


def at(p: float, c: Candidate | None = None, policy=None, **kw) -> trust.Scored:
    """A candidate scored by the shipped model, then placed at probability ``p`` and decided."""
    policy = policy or trust.Policy()
    scored = pipeline.score(c or cand(), source_trust=policy.source_trust, **kw)
    scored.score = p
    return decision.decide(scored, policy)


MODEL = gate_model.shipped()
ACCEPT, REVIEW = MODEL.accept_threshold, MODEL.review_threshold


def test_score_is_the_shipped_models_calibrated_probability_with_its_workings():
    s = pipeline.score(cand(), source_trust=0.8)
    assert 0.0 <= s.score <= 1.0
    assert s.score == pytest.approx(MODEL.calibrate(s.components["logit"]), abs=1e-4)
    assert s.components["model_version"] == MODEL.version and s.components["top_features"]
    assert s.evidence_payload()["trust_score"] == s.score


def test_judge_accept_and_a_supporting_memory_raise_the_models_log_odds():
    base = pipeline.score(cand(), source_trust=0.8).components["logit"]
    assert pipeline.score(cand(), source_trust=0.8, judge_verdict="accept").components["logit"] > base
    assert pipeline.score(cand(), source_trust=0.8, supporting_memory_id="m1").components["logit"] > base


def test_a_source_trusted_less_than_the_default_scores_lower_and_the_default_changes_nothing():
    default = pipeline.score(cand(), source_trust=0.8)
    assert default.score == default.components["p_model"]
    assert pipeline.score(cand(), source_trust=0.4).score <= default.score
    assert pipeline.score(cand(), source_trust=0.4).components["p_model"] == default.score


def test_corroboration_records_the_other_sources():
    assert pipeline.score(cand(), source_trust=0.8, corroborating_sources=["omi", "bee"]).corroborating_sources == [
        "bee",
        "omi",
    ]


def test_smart_mode_uses_the_artifacts_lines():
    accept, review, _ = decision.lines(trust.Policy())
    assert (accept, review) == (ACCEPT, min(REVIEW, ACCEPT))
    assert at(max(review - 0.01, 0.0)).decision == trust.DROPPED
    assert at(review).decision == (trust.ACCEPTED if review == accept < gate_model.NO_LINE else trust.PENDING)
    # an accept line of 1.0 is no line: even a probability of 1.0 is asked, not accepted
    assert at(1.0).decision == (trust.PENDING if accept >= gate_model.NO_LINE else trust.ACCEPTED)


def gated(p: float, c: Candidate, policy=None) -> trust.Scored:
    """Decided at fixed lines (accept 0.9, review 0.8), whatever the shipped model's are: for the gates after the
    decision (the shipped accept line may be 1.0, no line)."""
    return _decided(p, c, _model_with_lines(accept=0.9, review=0.8, capped=0.9), policy)


def test_an_owner_who_moved_the_lines_gets_their_own():
    strict = trust.Policy(auto_approve_trust=0.99, review_trust=0.2)
    assert at(0.98, policy=strict).decision == trust.PENDING
    assert at(0.25, policy=strict).decision == trust.PENDING
    assert at(0.1, policy=strict).decision == trust.DROPPED


def test_an_uncertain_subject_is_never_accepted_whatever_its_probability():
    for features in ({"subject_type": "pronoun"}, {"subject_type": "owner", "attribution_confidence": 0.3}):
        s = at(1.0, cand(features=features))
        assert s.decision == trust.PENDING and s.reason.startswith("subject uncertain")
    unknown = at(1.0, cand(attribution="unknown", subject="unknown"))
    assert unknown.decision == trust.PENDING and "subject unknown" in unknown.reason


def test_judge_reject_drops_and_defer_sends_to_review():
    assert at(1.0, judge_verdict="reject").decision == trust.DROPPED
    assert at(1.0, judge_verdict="defer").decision == trust.PENDING


def test_low_capture_confidence_caps_at_review():
    s = at(1.0, cand(capture=0.2))
    assert s.decision == trust.PENDING and "low capture" in s.reason


def test_an_extractor_ceiling_caps_the_decision():
    assert at(1.0, cand(ceiling=trust.PENDING, ceiling_reason="quoted")).decision == trust.PENDING
    assert at(1.0, cand(ceiling=trust.DROPPED, ceiling_reason="question")).decision == trust.DROPPED


def test_review_mode_queues_everything():
    assert at(1.0, policy=trust.Policy(mode="review")).decision == trust.PENDING


def test_auto_mode_accepts_survivors_of_the_gates():
    policy = trust.Policy(mode="auto")
    items = [at(0.0, cand(conf=0.3), policy), at(0.0, cand("Ilse lives in Tromsø.", conf=0.7), policy)]
    decision.apply_gates(items, policy, existing_hashes=set())
    assert [i.decision for i in items] == [trust.DROPPED, trust.ACCEPTED]
    assert "min_confidence" in items[0].reason


def test_off_mode_writes_nothing():
    assert at(1.0, policy=trust.Policy(mode="off")).decision == trust.DROPPED


def test_min_importance_gate():
    policy = trust.Policy(min_importance="normal")
    items = [at(1.0, cand(importance="low"), policy)]
    decision.apply_gates(items, policy, existing_hashes=set())
    assert items[0].decision == trust.DROPPED and "min_importance" in items[0].reason


def test_dedup_within_run_and_against_existing():
    policy = trust.Policy()
    a, b, c = (
        gated(1.0, cand("Ilse repairs harpsichords.")),
        gated(1.0, cand("ilse REPAIRS harpsichords")),
        gated(1.0, cand("Ilse lives in Tromsø.")),
    )
    decision.apply_gates([a, b, c], policy, existing_hashes={c.candidate.content_hash})
    assert [x.decision for x in (a, b, c)] == [trust.ACCEPTED, trust.DROPPED, trust.DROPPED]
    assert b.reason == c.reason == "duplicate"


def test_day_cap_keeps_the_most_probable_in_smart_mode_after_dedup():
    policy = trust.Policy(max_memories_per_day=2)
    above = [0.9 + d * 0.1 for d in (0.1, 0.9, 0.1, 0.6)]
    items = [gated(p, cand(f"Ilse fact number {n}.")) for n, p in enumerate(above)]
    items.insert(0, gated(above[1], cand("Ilse fact number 1.")))  # duplicate of a high one: dropped first
    decision.apply_gates(items, policy, existing_hashes=set())
    kept = [i.candidate.content for i in items if i.decision != trust.DROPPED]
    assert kept == ["Ilse fact number 1.", "Ilse fact number 3."]


def test_uncapped_when_zero():
    policy = trust.Policy(max_memories_per_day=0)
    items = [gated(1.0, cand(f"Ilse fact {n}.")) for n in range(30)]
    decision.apply_gates(items, policy, existing_hashes=set())
    assert len(items) == 30 and all(i.decision == trust.ACCEPTED for i in items)


def test_native_policy_lowers_prior_and_uses_its_own_mode():
    from distill.models import GatePolicy
    from distill.policies import as_trust_policy

    gate = GatePolicy(source_key="wearable:bee", mode="smart", source_trust=0.8, native_mode="review")
    policy = as_trust_policy(gate, native=True)
    assert policy.source_trust == pytest.approx(0.72) and policy.mode == "review"
    assert as_trust_policy(gate).mode == "smart" and as_trust_policy(gate).source_trust == pytest.approx(0.8)


def test_coverage_is_token_share_of_the_claim():
    assert trust.coverage("Ilse lives in Tromsø", "she said Ilse lives in Tromsø now") == 1.0
    assert trust.coverage("Ilse lives in Tromsø", "Bergen is lovely") == 0.0


def test_active_memory_of_the_same_subject_supports_a_candidate():
    from distill import pipeline

    active = [
        pipeline.ActiveMemory("m1", "user", "Ilse repairs harpsichords and repairs harpsichords for a living."),
        pipeline.ActiveMemory("m2", "person:Oskar", "Oskar repairs harpsichords for a living."),
    ]
    assert pipeline.find_support(cand(), active, "Ilse") == "m1"
    assert pipeline.find_support(cand("Ilse lives in Tromsø."), active, "Ilse") is None


def test_sibling_that_heard_the_words_differently_flags_the_claim():
    from distill import pipeline

    c = cand("Ilse has been a librarian for eleven years.")
    c.evidence = Evidence(0, 0, "I've been a librarian for, um, eleven years.")
    sibs = [pipeline.SiblingTurn("limitless", "I've been a Libyan for, um, eleven years.", True)]
    agreeing, disagreement = pipeline.cross_check(c, None, True, sibs, "Ilse")
    assert agreeing == [] and "heard this differently" in disagreement


def test_sibling_giving_the_words_to_another_speaker_flags_the_claim():
    from distill import pipeline

    c = cand("Ilse is switching to night shifts in July.")
    c.evidence = Evidence(0, 0, "Tell me. I'm switching to night shifts in July.")
    sibs = [pipeline.SiblingTurn("limitless", "I'm switching to night shifts in July.", False)]
    agreeing, disagreement = pipeline.cross_check(c, None, True, sibs, "Ilse")
    assert agreeing == [] and "another speaker" in disagreement


def _model_with_lines(**lines) -> gate_model.GateModel:
    data = json.loads(gate_model.ARTIFACT.read_text(encoding="utf-8"))
    data["thresholds"].update(lines)
    return gate_model.GateModel.from_dict(data)


def _decided(p: float, c: Candidate, model: gate_model.GateModel, policy=None) -> trust.Scored:
    policy = policy or trust.Policy()
    scored = pipeline.score(c, source_trust=policy.source_trust, model=model)
    scored.score = p
    return decision.decide(scored, policy, model=model)


def test_a_claim_a_rule_caps_at_review_is_asked_from_its_own_line():
    """A claim no score may accept (a quote, an uncertain subject) is asked at p ≥ the capped line, whatever the
    review line; a claim the model decides is asked at p ≥ the review line."""
    model = _model_with_lines(accept=0.9, review=0.8, capped=0.6)
    quoted = cand(ceiling=trust.PENDING, ceiling_reason="quoted or reported speech")
    asked = _decided(0.7, quoted, model)
    assert asked.decision == trust.PENDING and asked.reason == "review at most: quoted or reported speech"
    assert asked.components["capped"] and not _decided(0.85, cand(), model).components["capped"]  # (for learning)
    below = _decided(0.5, quoted, model)
    assert below.decision == trust.DROPPED and below.reason.endswith("below the line for asking")
    assert _decided(0.7, cand(), model).decision == trust.DROPPED  # decided by the model: under its review line
    assert _decided(0.85, cand(), model).decision == trust.PENDING
    uncertain = cand(features={"subject_type": "pronoun"})
    assert _decided(0.65, uncertain, model).decision == trust.PENDING
    strict = _model_with_lines(accept=0.9, review=0.8, capped=0.95)  # a capped line over the accept line
    assert _decided(0.92, quoted, strict).decision == trust.DROPPED
    assert _decided(0.96, quoted, strict).decision == trust.PENDING
    assert _decided(0.92, cand(), strict).decision == trust.ACCEPTED


def test_an_owner_who_moved_the_lines_is_asked_capped_claims_from_their_review_line():
    model = _model_with_lines(accept=0.9, review=0.8, capped=0.95)
    owners = trust.Policy(auto_approve_trust=0.99, review_trust=0.2)
    quoted = cand(ceiling=trust.PENDING, ceiling_reason="quoted or reported speech")
    assert _decided(0.25, quoted, model, owners).decision == trust.PENDING
    assert _decided(0.15, quoted, model, owners).decision == trust.DROPPED


def test_an_accept_line_of_one_accepts_nothing_and_asks_what_passes_the_review_line():
    """When training finds no line at which the model's own accepts are right often enough, the line is 1.0:
    nothing is accepted without asking, not even a probability that rounds to 1.0."""
    model = _model_with_lines(accept=1.0, review=0.8, capped=0.9)
    got = [_decided(p, cand(), model) for p in (1.0, 0.95, 0.8, 0.79)]
    assert [s.decision for s in got] == [trust.PENDING, trust.PENDING, trust.PENDING, trust.DROPPED]
    assert got[0].reason == "score in review band"
