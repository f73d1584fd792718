"""Pure hashing and claim keys: no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from ledger import hashing

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(max_size=8), json_values, max_size=6))
def test_canonical_json_ignores_key_order(value):
    reordered = dict(reversed(list(value.items())))
    assert hashing.canonical_json(value) == hashing.canonical_json(reordered)


def test_canonical_json_is_compact_and_keeps_unicode():
    assert hashing.canonical_json({"b": 1, "a": "é"}) == '{"a":"é","b":1}'


def test_datetimes_serialise_as_iso_utc_whatever_their_zone():
    t = datetime(2026, 3, 1, 10, 0, tzinfo=timezone(timedelta(hours=-7)))
    assert hashing.canonical_json({"t": t}) == '{"t":"2026-03-01T17:00:00Z"}'


@given(st.lists(st.dictionaries(st.sampled_from(["type", "fact_id", "status"]), st.text(max_size=5)), max_size=4))
def test_commit_id_is_deterministic(mutations):
    assert hashing.commit_id("abc", mutations) == hashing.commit_id("abc", [dict(m) for m in mutations])


def test_commit_id_depends_on_parent_and_content():
    m = [{"type": "add_fact", "payload": {"content": "x"}}]
    assert hashing.commit_id("a", m) != hashing.commit_id("b", m)
    assert hashing.commit_id("a", m) != hashing.commit_id("a", [{"type": "add_fact", "payload": {"content": "y"}}])


def test_dropping_a_payload_keeps_the_commit_id():
    m = {"type": "add_fact", "fact_id": "f", "payload": {"content": "secret"}}
    redacted = {"type": "add_fact", "fact_id": "f", "payload": None, "payload_hash": hashing.digest(m["payload"])}
    assert hashing.commit_id("p", [m]) == hashing.commit_id("p", [redacted])
    assert "secret" not in hashing.canonical_json(hashing.seal(m))


def test_text_key_ignores_case_punctuation_pronouns_and_word_order():
    assert hashing.text_key("I live in Denver.") == hashing.text_key("i LIVE in denver")
    assert hashing.text_key("The user lives in Denver") == hashing.text_key("Lives in Denver")
    assert hashing.text_key("I live in Denver") != hashing.text_key("I live in Boston")


def test_paraphrases_score_above_the_threshold_and_different_claims_below():
    base = hashing.token_signature("Maya lives in Portland")
    assert hashing.similarity(base, hashing.token_signature("Maya resides in Portland")) >= hashing.PARAPHRASE_THRESHOLD
    assert (
        hashing.similarity(base, hashing.token_signature("Apparently Maya is living in Portland now"))
        >= hashing.PARAPHRASE_THRESHOLD
    )
    assert hashing.similarity(base, hashing.token_signature("Maya lives in Seattle")) < hashing.PARAPHRASE_THRESHOLD


def test_digit_sequences_make_claims_different():
    a = hashing.token_signature("Dentist appointment on March 3 at 10")
    b = hashing.token_signature("Dentist appointment on March 4 at 11")
    assert hashing.similarity(a, b) < hashing.PARAPHRASE_THRESHOLD


def test_proposition_key_normalises_arguments():
    a = hashing.proposition_key("user", "lives_in", {"place": "Denver "}, "")
    b = hashing.proposition_key("user", "lives_in", {"place": "denver"}, "")
    assert a == b
    assert a != hashing.proposition_key("entity:x", "lives_in", {"place": "denver"}, "")


def test_derived_ids_are_stable_uuids():
    assert hashing.derived_uuid("a", 1) == hashing.derived_uuid("a", 1)
    assert hashing.derived_uuid("a", 1) != hashing.derived_uuid("a", 2)


def test_parse_iso_accepts_z_and_offsets():
    assert hashing.parse_iso("2026-01-01T00:00:00Z") == datetime(2026, 1, 1, tzinfo=UTC)
    assert hashing.parse_iso("2026-01-01T01:00:00+01:00") == datetime(2026, 1, 1, tzinfo=UTC)


def test_negation_makes_a_different_claim():
    assert hashing.text_key("I am allergic to peanuts") != hashing.text_key("I am not allergic to peanuts")
    assert hashing.text_key("I don't eat meat") == hashing.text_key("I do not eat meat")
    a = hashing.token_signature("Dana is allergic to peanuts")
    assert hashing.similarity(a, hashing.token_signature("Dana is not allergic to peanuts")) < 1.0


def test_a_denial_is_never_a_paraphrase():
    a = hashing.token_signature("Dana is allergic to peanuts")
    assert hashing.similarity(a, hashing.token_signature("Dana is not allergic to peanuts")) == 0.0
    assert hashing.similarity(a, hashing.token_signature("Dana isn't allergic to peanuts")) == 0.0


CONTENT_WORDS = ["denver", "guitar", "sister", "acme", "marathon", "peanuts", "lisbon", "cello"]
FILLERS = ["um", "apparently", "really", "i", "think", "the", "actually", "you", "uh", "now"]


@given(
    st.lists(st.sampled_from(CONTENT_WORDS), min_size=1, max_size=4, unique=True),
    st.lists(st.sampled_from(FILLERS), max_size=5),
    st.randoms(use_true_random=False),
    st.booleans(),
)
def test_re_extractions_that_only_add_fillers_or_reorder_keep_the_text_key(words, fillers, rnd, shout):
    variant = words + fillers
    rnd.shuffle(variant)
    text = " ".join(variant) + "!"
    if shout:
        text = text.upper()
    assert hashing.text_key(text) == hashing.text_key(" ".join(words))
    assert hashing.similarity(hashing.token_signature(text), hashing.token_signature(" ".join(words))) == 1.0


def test_liking_is_content_not_filler():
    assert hashing.text_key("I like jazz") != hashing.text_key("jazz")
    assert hashing.similarity(hashing.token_signature("I like jazz"), hashing.token_signature("I love jazz")) == 1.0
