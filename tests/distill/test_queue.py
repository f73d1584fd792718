"""The queue: the day's review budget by expected value, dropped items kept and rescuable, never re-proposed by
the same evidence, near-duplicates across turns, days and sources merged into one item with all its evidence."""

from __future__ import annotations

import pytest

from distill import queue
from distill.models import Claim
from ledger.models import Fact
from review.services import set_daily_budget
from tests.factories import FactFactory

from .gatepass import run_gate, scored

pytestmark = pytest.mark.django_db

# Pending claims from domains no development file touches: falconry, glassblowing, orienteering, bell-ringing.
CLAIMS = [
    ("Alice flies a Harris hawk at the county falconry club.", 0.62, "high"),
    ("Alice blows glass at a studio in Murano every spring.", 0.50, "normal"),
    ("Alice captains an orienteering team in the fells.", 0.66, "normal"),
    ("Alice rings the tenor bell at Saint Wendreda's.", 0.48, "low"),
    ("Alice keeps a logbook of every barn owl she rescues.", 0.58, "high"),
    ("Alice judges sheepdog trials each September.", 0.55, "low"),
]


def pending_pass(user, **kw):
    items = [
        scored(text, p, importance=imp, predicate=f"hobby:claim_{i}", turn=i) for i, (text, p, imp) in enumerate(CLAIMS)
    ]
    return items, run_gate(user, items, **kw)


def by_content(user) -> dict[str, Fact]:
    return {f.content: f for f in Fact.objects.owned_by(user)}


def test_budget_lets_only_the_most_valuable_pending_claims_into_review(user):
    set_daily_budget(owner=user, daily_budget=3)
    items, report = pending_pass(user)
    facts = by_content(user)
    queued = sorted(t for t, f in facts.items() if f.status == "pending_review")
    # value = p × importance weight (high 0.75, normal 0.5, low 0.25) × novelty (1: nothing known)
    assert queued == sorted([CLAIMS[0][0], CLAIMS[4][0], CLAIMS[2][0]])
    assert report.written == {"pending_review": 3} and report.over_budget == 3
    assert Claim.objects.owned_by(user).filter(queued=True).count() == 3


def test_claims_over_the_budget_are_kept_dropped_with_probability_and_reason(user):
    set_daily_budget(owner=user, daily_budget=2)
    pending_pass(user)
    dropped = [f for f in by_content(user).values() if f.status == "dropped"]
    assert len(dropped) == 4
    glass = by_content(user)[CLAIMS[1][0]]
    assert glass.status_reason.startswith("over daily review budget: rank 4 of 6, p 0.50")
    details = glass.evidence.get().details
    assert details["trust_score"] == pytest.approx(0.50)
    assert details["components"]["queue_rank"] == 4 and details["components"]["expected_value"] == pytest.approx(0.25)


ORGANS = "Alice repairs church organs in the valley."


def test_budget_is_shared_by_every_pass_of_one_day(user):
    set_daily_budget(owner=user, daily_budget=4)
    pending_pass(user, source_key="chat:alpha")
    run_gate(user, [scored(ORGANS, 0.69, importance="high", predicate="work:repair")], source_key="wearable:beta")
    assert by_content(user)[ORGANS].status == "dropped"
    assert Claim.objects.owned_by(user).filter(queued=True).count() == 4


def test_a_dropped_claim_said_again_another_day_competes_for_that_day(user):
    set_daily_budget(owner=user, daily_budget=4)
    pending_pass(user, source_key="chat:alpha")
    run_gate(user, [scored(ORGANS, 0.69, importance="high", predicate="work:repair")], source_key="wearable:beta")
    again = scored(ORGANS, 0.66, importance="high", predicate="work:repair", quote="I still fix the church organs")
    report = run_gate(user, [again], source_key="wearable:beta", day_key="2031-04-03")
    fact = by_content(user)[ORGANS]
    assert report.merged == 1 and fact.status == "pending_review" and fact.evidence.count() == 2
    assert Fact.objects.owned_by(user).filter(content=ORGANS).count() == 1


def test_known_claims_rank_below_new_ones(user):
    FactFactory(owner=user, content="Alice keeps bees.", status="accepted")
    set_daily_budget(owner=user, daily_budget=1)
    known = scored("Alice keeps bees at the allotment.", 0.68, predicate="hobby:keep_bee")
    new = scored("Alice forges kitchen knives from old files.", 0.52, predicate="hobby:forge_knife", turn=1)
    run_gate(user, [known, new])
    facts = by_content(user)
    assert facts["Alice forges kitchen knives from old files."].status == "pending_review"
    assert facts["Alice keeps bees at the allotment."].status == "dropped"
    assert known.components["novelty"] < 0.5 < new.components["novelty"]


def test_a_dropped_claim_is_rescued_from_the_review_api(user, api):
    set_daily_budget(owner=user, daily_budget=1)
    pending_pass(user)
    band = api.get("/review/", {"band": "dropped"}).json()
    assert band["count"] == 5
    item = next(i for i in band["items"] if i["content"] == CLAIMS[5][0])
    assert any(w.startswith("over daily review budget") for w in item["why"])
    answer = api.post("/review/decide", {"item": item["id"], "action": "rescue"})
    assert answer.status_code == 200 and answer.json()["item"]["status"] == "pending_review"


def test_a_rerun_with_the_same_evidence_never_reproposes_a_dropped_claim(user):
    set_daily_budget(owner=user, daily_budget=1)
    pending_pass(user)
    set_daily_budget(owner=user, daily_budget=50)  # room now, but the evidence is the same
    _, report = pending_pass(user)
    assert report.written == {} and report.promoted == 0
    assert sum(f.status == "pending_review" for f in by_content(user).values()) == 1
    _, other_scope = pending_pass(user, scope_key="chat:test:replayed")
    assert other_scope.written == {} and other_scope.merged == 0
    assert Fact.objects.owned_by(user).count() == len(CLAIMS)
    assert all(f.evidence.count() == 1 for f in Fact.objects.owned_by(user))


def test_near_duplicates_across_days_and_sources_become_one_item_with_all_evidence(user):
    first = scored("Alice restores clock towers for the city council.", 0.6, predicate="work:restore_clock")
    run_gate(user, [first], source_key="chat:alpha", day_key="2031-04-02")
    again = scored(
        "Alice restores the clock towers for the city council now.",
        0.58,
        predicate="work:restore_clock",
        quote="yeah I restore the clock towers for the city council now",
    )
    report = run_gate(user, [again], source_key="wearable:beta", day_key="2031-04-05")
    [fact] = Fact.objects.owned_by(user)
    assert report.merged == 1 and report.written == {}
    assert fact.status == "pending_review"
    assert sorted(fact.evidence.values_list("source_label", flat=True)) == ["chat:alpha", "wearable:beta"]
    assert set(Claim.objects.owned_by(user).values_list("source_key", "fact_id")) == {
        ("chat:alpha", fact.pk),
        ("wearable:beta", fact.pk),
    }


def test_near_duplicates_within_one_pass_merge_across_turns(user):
    items = [
        scored("Alice teaches Welsh to refugees on Thursdays.", 0.55, predicate="work:teach_welsh", turn=3),
        scored("Alice teaches Welsh to the refugees on Thursdays.", 0.57, predicate="work:teach_welsh", turn=9),
    ]
    report = run_gate(user, items)
    [fact] = Fact.objects.owned_by(user)
    assert report.merged == 1 and fact.evidence.count() == 2


def test_a_near_duplicate_about_someone_else_stays_a_separate_item(user):
    run_gate(user, [scored("Alice restores clock towers for the city council.", 0.6)])
    run_gate(user, [scored("Bertrand restores clock towers for the city council.", 0.6, person="Bertrand")])
    assert Fact.objects.owned_by(user).count() == 2


def test_new_evidence_strong_enough_to_accept_promotes_the_item(user):
    set_daily_budget(owner=user, daily_budget=1)
    run_gate(user, [scored("Alice builds harpsichords in a barn.", 0.6, importance="high")], day_key="2031-04-02")
    run_gate(user, [scored("Alice rows for the Tideway veterans eight.", 0.5, importance="low")], day_key="2031-04-02")
    assert by_content(user)["Alice rows for the Tideway veterans eight."].status == "dropped"
    strong = scored("Alice rows for the Tideway veterans eight.", 0.9, quote="I row for the Tideway veterans eight")
    report = run_gate(user, [strong], source_key="wearable:gamma", day_key="2031-04-09")
    assert report.promoted == 1
    assert by_content(user)["Alice rows for the Tideway veterans eight."].status == "accepted"


def test_review_mode_asks_about_everything(user):
    set_daily_budget(owner=user, daily_budget=1)
    items = [scored(text, p, predicate=f"hobby:claim_{i}", turn=i) for i, (text, p, _) in enumerate(CLAIMS)]
    run_gate(user, items, mode="review")
    assert Fact.objects.owned_by(user).filter(status="pending_review").count() == len(CLAIMS)


def test_similarity_needs_two_shared_words():
    idx = queue.Index()
    assert queue.similarity(idx.tokens("swims."), idx.tokens("swims daily in the lido.")) == 0.0
    assert queue.similarity(idx.tokens("swims lido"), idx.tokens("swims in the lido")) == 1.0
