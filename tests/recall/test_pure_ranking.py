"""Pure recall pieces: token counting, BM25, weighted fusion, MMR, the gate's routing table, budget packing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.recall.embeddings import DIMENSIONS, HashBackend
from ledger.recall.gate import heuristic_gate
from ledger.recall.lexical import BM25, count_tokens, query_terms
from ledger.recall.planner import BUDGET_MAX, BUDGET_MIN, RecallItem, clamp_budget, pack_block
from ledger.recall.ranking import RRF_K, cosine, final_score, mmr, weighted_rrf


def test_count_tokens_is_deterministic_and_grows_with_text():
    assert count_tokens("") == 0
    assert count_tokens("hello world") == 2
    assert count_tokens("hello, world!") == 4
    assert count_tokens("internationalization") > count_tokens("nation")
    assert count_tokens("a b c " * 10) == 30


def test_query_terms_drop_question_scaffolding_and_stopwords():
    assert query_terms("When did Caroline go to the LGBTQ support group?") == [
        "caroline",
        "go",
        "lgbtq",
        "support",
        "group",
    ]


def test_bm25_prefers_the_document_with_the_rare_term():
    docs = ["the cat sat on the mat", "a dog painted a sunrise", "the cat and the dog"]
    assert BM25(docs).rank("when did she paint the sunrise")[0] == 1
    assert BM25(docs).rank("zebra") == []


def test_weighted_rrf_lets_the_heavier_list_win_disagreements():
    fused = weighted_rrf({"fulltext": ["a", "b", "c"], "vector": ["c", "b", "a"]}, {"fulltext": 1.0, "vector": 0.3})
    assert [k for k, _ in fused] == ["a", "b", "c"]
    flipped = weighted_rrf({"fulltext": ["a", "b", "c"], "vector": ["c", "b", "a"]}, {"fulltext": 0.3, "vector": 1.0})
    assert [k for k, _ in flipped] == ["c", "b", "a"]


def test_weighted_rrf_adds_items_found_by_only_one_list_below_agreed_ones():
    fused = dict(weighted_rrf({"fulltext": ["a", "b"], "vector": ["b", "z"]}, {"fulltext": 1.0, "vector": 0.5}))
    assert fused["b"] > fused["a"] > fused["z"]


def test_weighted_rrf_ignores_zero_weight_lists_and_repeated_keys():
    fused = weighted_rrf({"fulltext": ["a", "a", "b"], "vector": ["b"]}, {"vector": 0})
    assert [k for k, _ in fused] == ["a", "b"]
    assert fused[0][1] == pytest.approx(1 / (RRF_K + 1))


def test_mmr_drops_near_duplicates_and_diversifies():
    texts = {
        "a": "we booked the flight to denver on friday",
        "a2": "we booked the flight to denver on friday",
        "b": "we booked the flight to denver for friday morning",
        "c": "the dentist appointment moved to tuesday",
    }
    backend = HashBackend()
    vec = {k: backend.vector(t) for k, t in texts.items()}
    picked = mmr(
        [("a", 1.0), ("a2", 0.99), ("b", 0.9), ("c", 0.5)], lambda x, y: cosine(vec[x], vec[y]), limit=3, lambda_=0.5
    )
    keys = [k for k, _ in picked]
    assert keys[0] == "a"
    assert "a2" not in keys  # exact duplicate dropped
    assert keys[1] == "c"  # diversity beats a near-paraphrase of the first pick


def test_mmr_with_lambda_one_keeps_relevance_order():
    picked = mmr([("x", 0.9), ("y", 0.8), ("z", 0.1)], lambda a, b: 0.5, limit=2, lambda_=1.0)
    assert [k for k, _ in picked] == ["x", "y"]


def test_final_score_lets_relevance_dominate_recency():
    assert final_score(0.9, recency=0.0, strength=0.0) > final_score(0.3, recency=1.0, strength=1.0)
    assert final_score(0.5, recency=1.0, strength=0.5) > final_score(0.5, recency=0.0, strength=0.5)


def test_hash_vectors_are_deterministic_normalised_and_of_fixed_dimension():
    a = HashBackend().embed(["Maya is Dana's sister", "Maya is Dana's sister"])
    assert a[0] == a[1] == HashBackend().vector("Maya is Dana's sister")
    assert len(a[0]) == DIMENSIONS
    assert sum(x * x for x in a[0]) == pytest.approx(1.0)
    # Fixed values guard against salted hashing sneaking in (they must survive a new process).
    assert HashBackend().space == "hash:v2"
    related = cosine(a[0], HashBackend().vector("Dana's sister Maya"))
    unrelated = cosine(a[0], HashBackend().vector("the quarterly budget spreadsheet"))
    assert related > 0.5 > unrelated


@pytest.mark.parametrize(
    ("query", "route"),
    [
        ("What's my name?", "identity"),
        ("who am I", "identity"),
        ("What were Maya's exact words about the lease?", "transcript"),
        ("quote verbatim what she said", "transcript"),
        ("What did we discussed about the trip?", "episodes"),
        ("Remember when we went hiking?", "episodes"),
        ("what did I say last time about the budget", "episodes"),
        ("which app was I using this morning", "events"),
        ("Does Maya like sushi?", "pinned"),
        ("What about Maya's garden?", "pinned"),
        ("What did we discuss about the budget?", "episodes"),
        ("What is the capital of France?", "none"),
        ("", "none"),
    ],
)
def test_gate_routing_table(query, route):
    assert heuristic_gate(query, known_entities=["Maya", "Acme Corp"]).route == route


def test_gate_reports_named_entities_whole_words_only():
    assert heuristic_gate("Tell me about acme corp", ["Acme Corp", "Acme"]).entities == ("Acme", "Acme Corp")
    assert heuristic_gate("Mayan ruins", ["Maya"]).route == "none"


# The LLM gate (a counted model call, the heuristic behind it) is tested against the imitation in tests/llm/.


def test_clamp_budget_keeps_the_documented_range():
    assert clamp_budget(None) == 800
    assert clamp_budget(5) == BUDGET_MIN
    assert clamp_budget(10**6) == BUDGET_MAX


item_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=0, max_size=400)


@settings(max_examples=150, deadline=None)
@given(
    identity=st.lists(item_text, max_size=3),
    texts=st.lists(item_text, max_size=40),
    uses=st.lists(st.sampled_from(["answer", "personalize", "quote"]), max_size=3),
    budget=st.integers(min_value=BUDGET_MIN, max_value=BUDGET_MAX),
)
def test_packed_block_never_exceeds_the_budget(identity, texts, uses, budget):
    ident = [RecallItem(id=f"i{n}", kind="identity", text=t) for n, t in enumerate(identity)]
    items = [
        RecallItem(id=str(n), kind="pinned", text=t, permitted_uses=uses, disclaimers=["unconfirmed"])
        for n, t in enumerate(texts)
    ]
    packed = pack_block(ident, "pinned", items, budget)
    assert packed.tokens == count_tokens(packed.block) <= budget
    for item in packed.items:
        if item.kind == "pinned":
            assert item.line() in packed.block or item.line(licence=False) in packed.block


def test_lines_sharing_their_uses_say_them_once_in_the_section_header():
    turns = [
        RecallItem(id=str(n), kind="chat_turn", text=f"Ottilie: the kiln fired at {n} hundred degrees",
                   permitted_uses=["quote", "answer"])
        for n in range(3)
    ]  # fmt: skip
    packed = pack_block([], "transcript", turns, 400)
    assert packed.block.startswith("## Transcript excerpts (uses: quote, answer)\n")
    assert packed.block.count("(uses:") == 1 and len(packed.items) == 3


def test_sections_share_the_budget_and_the_last_one_takes_the_rest():
    from ledger.recall.planner import pack_sections

    facts = [RecallItem(id=f"f{n}", kind="fact", text="Bertil restores canal boats " * 3) for n in range(10)]
    turns = [RecallItem(id=f"t{n}", kind="chat_turn", text="Bertil: the hull needs tar") for n in range(30)]
    packed = pack_sections([], [("facts", facts, 0.3), ("transcript", turns, 1.0)], 300)
    kinds = [i.kind for i in packed.items]
    assert 0 < kinds.count("fact") < 10 and kinds.count("chat_turn") > kinds.count("fact")
    assert packed.block.index("## Facts") < packed.block.index("## Transcript excerpts")
    assert packed.tokens <= 300


def test_pack_block_puts_identity_first_and_skips_items_that_do_not_fit():
    ident = [RecallItem(id="n", kind="identity", text="name: Dana Whitfield")]
    big = RecallItem(id="big", kind="pinned", text="word " * 500)
    small = RecallItem(id="small", kind="pinned", text="Maya is Dana's sister", permitted_uses=["answer"])
    packed = pack_block(ident, "pinned", [big, small], 100)
    assert packed.block.startswith("## Identity\n- name: Dana Whitfield")
    assert [i.id for i in packed.items] == ["n", "small"]
    assert "(uses: answer)" in packed.block


def test_redact_for_display_masks_contacts_and_keys_but_keeps_dates():
    from ledger.recall.lexical import redact_for_display

    text = "[2026-11-29 20:16] call +351 912 345 678 or mail maya@example.org, key sk-abcdef1234567890, card 4111 1111 1111 1111"
    out = redact_for_display(text)
    assert out.startswith("[2026-11-29 20:16] call [number] or mail [email], key [secret], card [number]")
    assert redact_for_display("she turned 42 in 2023") == "she turned 42 in 2023"


def test_hash_vectors_are_identical_in_another_process_with_another_hash_seed():
    import json
    import os
    import subprocess
    import sys

    code = "import json; from ledger.recall.embeddings import HashBackend; print(json.dumps(HashBackend().vector('Maya moved to Lisbon')))"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True, cwd=os.getcwd()
    )
    assert json.loads(out.stdout) == HashBackend().vector("Maya moved to Lisbon")
