"""ledger/lexicon.py: one lexicon, and refusal keys that stay stable across it.

The golden values below were computed by ledger/hashing.py BEFORE the text module existed (commit 8a39712).
A stored refusal only has these hashes: if one of them changes, old refusals silently stop matching. Changing
the key folding therefore needs a new ``KEY_VERSION`` that keeps matching refusals stored under the old one.
"""

from __future__ import annotations

import hashlib
import uuid

import pytest
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from ledger import hashing, lexicon
from ledger import services as ledger
from ledger.models import Fact, Refusal

GOLDEN = {
    "Alice is allergic to shellfish and cashews.": (
        "294b148f98d8f9819435993cbc0fd81aa3948859c220cbb7376d75a99982d5ed",
        "49d90043484480c3062698b1e66e195d70dda5907b807937f50e6252ccb315a4",
    ),
    "Alice doesn't eat meat anymore.": (
        "2e25307e76db95a8e850ae7f742d4b432e043261830962ac8331ad676c4060e3",
        "a04e9b266a13516f1afac5cdc9e1dcd3fa1228730ecdbe197444685353f965be",
    ),
    "Priya works as a pharmacist at the children's hospital.": (
        "6faf940d431ac100af7894ea9902f3162d024711ec5d4bb8e00a4750bcec90c3",
        "64203ad9cb7c8ab1d87d3e43e8ea0c33c244bb6359345ec2857245c5adad978d",
    ),
}


@pytest.mark.parametrize("claim", sorted(GOLDEN))
def test_text_and_proposition_keys_are_what_they_were_before_the_text_module(claim):
    text_key, proposition_key = GOLDEN[claim]
    assert hashing.text_key(claim) == text_key
    assert hashing.proposition_key("user", "states", None, claim) == proposition_key


def test_key_folding_is_frozen_at_version_1():
    assert lexicon.KEY_VERSION == 1
    folded = {w: lexicon.key_stem(w) for w in ["doesnt", "studies", "living", "paints", "allergic", "cats", "bus"]}
    assert folded == {
        "doesnt": "not",
        "studies": "study",
        "living": "live",
        "paints": "paint",
        "allergic": "allergy",
        "cats": "cat",
        "bus": "bus",
    }


def test_key_stopwords_are_frozen_at_version_1():
    # The words left out of stored keys are part of the key format: this digest is of the list as it stood in
    # ledger/hashing.py before it moved to ledger/lexicon.py (and must not follow changes to STOPWORDS).
    listed = " ".join(sorted(lexicon.KEY_STOPWORDS))
    assert len(lexicon.KEY_STOPWORDS) == 132
    assert (
        hashlib.sha256(listed.encode()).hexdigest()
        == "c9d1270b14859e1d0b562a16d0e612546dc2f88da6da65e87ef2d2eda9523b27"
    )


def test_matching_stem_is_snowball_and_claim_stem_folds_derived_forms():
    assert {lexicon.stem(w) for w in ["painting", "painted", "paints"]} == {"paint"}
    assert lexicon.stem("Studies") == lexicon.stem("studying") == "studi"
    assert lexicon.claim_stem("allergic") == lexicon.claim_stem("allergy")
    assert lexicon.claim_stem("moved") == lexicon.claim_stem("move")


@given(st.text(max_size=80))
def test_normalize_is_idempotent_and_stemming_total(value):
    once = lexicon.normalize_text(value)
    assert lexicon.normalize_text(once) == once
    for word in once.split():
        assert isinstance(lexicon.stem(word), str) and isinstance(lexicon.key_stem(word), str)


@pytest.mark.django_db
def test_a_refusal_stored_under_the_old_keys_still_refuses_the_claim(user):
    """An install upgraded from before the text module: its refusal row holds only the old hashes."""
    claim = "Alice is allergic to shellfish and cashews."
    text_key, proposition_key = GOLDEN[claim]
    Refusal.objects.create(
        owner=user,
        public_id=uuid.uuid4(),
        kind=Refusal.Kind.REJECTED,
        subject_key="user",
        proposition_key=proposition_key,
        text_key=text_key,
        token_hashes=[],
        decision_commit_id="0" * 64,
        recorded_at=timezone.now(),
    )
    result = ledger.propose_fact(owner=user, content=claim, source_label="chat:test", status="accepted")
    assert result.outcome == "refused" and not Fact.objects.owned_by(user).exists()
