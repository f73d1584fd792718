"""The request path's fast mechanisms keep recall's answers: the flat BM25 expression ranks exactly as the
expression tree it replaced, large corpora (statistics instead of counts) take informative words first and fill
the list from common ones, and every kind recall embeds has its own HNSW index."""

from __future__ import annotations

import time
import uuid

import pytest
from django.contrib.postgres.search import SearchQuery
from django.db import connection
from django.db.models import Case, F, FloatField, Func, Q, Value, When
from django.utils import timezone

from ledger.models import Fact, PinnedFact
from ledger.recall import search
from ledger.recall.ledger_providers import FactProvider, PinnedProvider
from ledger.recall.models import EMBEDDED_KINDS
from ledger.recall.providers import providers_for
from tests.factories import ConversationFactory, UtteranceFactory
from wearables.models import Utterance
from wearables.recall_provider import TranscriptProvider

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_stats(fresh_recall):
    """Corpus statistics and cached blocks start empty in every test of this module."""


def tree_ranking(provider, owner, tq, limit):
    """The ranking as the Case/When expression tree computed it before the flat expression (reference)."""
    n, avgdl, names = search._corpus_stats(provider, owner)
    dfs = search._document_frequencies(provider, owner, list(tq.weights), n)
    present = [lx for lx in tq.weights if dfs.get(lx)]
    field = provider.search_field
    matched = provider.queryset(owner).filter(
        **{field: SearchQuery(" | ".join(present), search_type="raw", config="simple")}
    )
    # A speaker's name inside the text counts NAME_IN_TEXT_WEIGHT (said to the person, not by them).
    spoken = {lx for t in tq.terms if t in names for lx in search._lexeme_cache.get(t, ())}
    terms = [
        Case(
            When(
                Q(**{field: SearchQuery(lx, search_type="raw", config="simple")}),
                then=Value(
                    tq.weights[lx] * search._idf(n, dfs[lx]) * (search.NAME_IN_TEXT_WEIGHT if lx in spoken else 1.0)
                ),
            ),
            default=Value(0.0),
            output_field=FloatField(),
        )
        for lx in present
    ]
    for t in [t for t in tq.terms if t in names]:
        terms.append(
            Case(
                When(Q(**{f"{provider.name_field}__iexact": t}), then=Value(search._idf(n, names[t]))),
                default=Value(0.0),
                output_field=FloatField(),
            )
        )
    total = terms[0]
    for expr in terms[1:]:
        total = total + expr
    length = Func(F(field), function="length", output_field=FloatField())
    norm = Value(search.K1 * (1 - search.B)) + Value(search.K1 * search.B / avgdl) * length
    score = total * Value(search.K1 + 1) / (Value(1.0) + norm)
    return list(matched.annotate(bm25=score).order_by("-bm25", "pk").values_list("pk", "bm25")[:limit])


def test_flat_score_ranks_exactly_as_the_expression_tree(user):
    conv = ConversationFactory(transcript__source__owner=user)
    texts = [
        ("Maya", "The ferry to the island leaves at noon on Saturday."),
        ("Jonas", "Maya said the ferry was late again, the island trip is off."),
        ("Maya", "I bought a kayak for the lake."),
        ("Jonas", "The lake was frozen, no kayak this weekend."),
        ("Priya", "Saturday works for the island, I will bring sandwiches."),
        ("Maya", "Noon is too early for me."),
        ("Priya", "Ferry tickets are cheaper online."),
        ("Jonas", "The island has a small museum about ferries and kayaks."),
    ]
    for i, (speaker, text) in enumerate(texts * 2):  # duplicates: equal scores, ties broken by pk
        UtteranceFactory(conversation=conv, index=i, speaker_name=speaker, text=text)
    provider = TranscriptProvider()
    for question in (
        "When does the ferry to the island leave, Maya?",
        "Did Jonas take the kayak to the lake?",
        "What did Priya say about Saturday sandwiches?",
    ):
        tq = search.text_query(question)
        expected = tree_ranking(provider, user, tq, 50)
        got = [(pk, score) for pk, score in search._scored_rows(provider, user, tq, 50, False)]
        assert expected, question
        assert [pk for pk, _ in got] == [pk for pk, _ in expected], question
        assert [float(s) for _, s in got] == pytest.approx([float(s) for _, s in expected], rel=1e-12)


# Mid-frequency words: ANALYZE lists them, so a word it does not list is estimated rarer than they are.
THINGS = ["apple", "river", "stone", "cloud", "maple", "ocean", "piano", "tiger", "lemon", "cabin"]


def garden_text(i: int, *, every: int = 1) -> str:
    place = "garden" if i % every else "yard" if every > 1 else "garden"
    return f"the {place} plan number {i} near the {THINGS[i % 10]}" + (" with tulips" if i % 100 == 7 else "")


def test_flat_score_counts_a_subject_name_across_the_join_like_the_tree(user):
    from tests.factories import FactFactory

    FactFactory(owner=user, content="Maya swims in the sea every morning", subject="third_party", person="Maya")
    FactFactory(owner=user, content="Jonas swims at the pool on Fridays", subject="third_party", person="Jonas")
    FactFactory(owner=user, content="I swim in the lake in summer")  # no subject entity: still found
    FactFactory(owner=user, content="Sea water was cold this morning", subject="third_party", person="Maya")
    provider = FactProvider()
    tq = search.text_query("Where does Maya swim in the morning?")
    expected = tree_ranking(provider, user, tq, 50)
    got = search._scored_rows(provider, user, tq, 50, False)
    assert len(expected) == 4
    assert [pk for pk, _ in got] == [pk for pk, _ in expected]
    assert [float(s) for _, s in got] == pytest.approx([float(s) for _, s in expected], rel=1e-12)


def analysed(monkeypatch, table: str, *, cap: int) -> None:
    """Make ``table`` look large: document frequencies come from its ANALYZE statistics, and words in more than
    ``cap`` rows of the index are common."""
    with connection.cursor() as cur:
        cur.execute(f"ANALYZE {table}")
    monkeypatch.setattr(search, "ESTIMATE_FROM", 10)
    monkeypatch.setattr(search, "CANDIDATE_CAP", cap)
    search.forget_stats()


def test_large_corpus_ranks_informative_words_first_and_fills_from_a_common_one(user, monkeypatch):
    conv = ConversationFactory(transcript__source__owner=user)
    rows = [
        Utterance(
            owner=user,
            transcript=conv.transcript,
            conversation=conv,
            index=i,
            speaker_name="Maya",
            text=garden_text(i, every=3),  # the common word in two rows of three
            started_at=conv.started_at,
        )
        for i in range(300)
    ]
    Utterance.objects.bulk_create(rows)
    analysed(monkeypatch, "wearables_utterance", cap=40)
    tulips = set(Utterance.objects.filter(owner=user, text__contains="tulips").values_list("pk", flat=True))
    ranked = search.fulltext_ranking(TranscriptProvider(), user, "what about tulips in the garden?", 50)
    ids = [r.ref_id for r in ranked]
    # The rare word's rows first; the list is then filled with rows holding only the common word.
    assert set(ids[:3]) == tulips and len(tulips) == 3
    assert len(ids) == 50 and len(set(ids)) == 50
    assert all("garden" in t for t in Utterance.objects.filter(pk__in=ids[3:]).values_list("text", flat=True))
    assert all(r.score > 0 for r in ranked)
    assert min(r.score for r in ranked[:3]) > max(r.score for r in ranked[3:])


def bulk_facts(owner, contents):
    now = timezone.now()
    facts = [
        Fact(
            owner=owner,
            public_id=uuid.uuid4(),
            content=text,
            status="accepted",
            recorded_at=now,
            updated_at=now,
            proposition_key=uuid.uuid4().hex,
            text_key=uuid.uuid4().hex,
            created_commit_id="test",
            last_commit_id="test",
        )
        for text in contents
    ]
    return Fact.objects.bulk_create(facts)


def test_small_layer_over_a_large_index_fills_from_its_own_rows(user, other_user, monkeypatch):
    facts = bulk_facts(user, [garden_text(i) for i in range(300)])
    bulk_facts(other_user, ["the garden plan with tulips"] * 50)  # another owner's rows share the index
    pinned = [PinnedFact(owner=user, fact=f, salience=0.5) for f in facts[:12]]
    PinnedFact.objects.bulk_create(pinned)
    analysed(monkeypatch, "ledger_fact", cap=100)
    items = search.search_provider(PinnedProvider(), user, "what about tulips in the garden?", 20)
    texts = [i.text for i in items]
    # The pinned fact with the rare word first, then the other pinned facts (the common word); never an
    # unpinned fact (facts[107] holds tulips too) nor another owner's.
    assert texts[0] == garden_text(7)
    assert sorted(texts[1:]) == sorted(f.content for f in facts[:12] if f.content != texts[0])
    assert {i.kind for i in items} == {"pinned"}


def test_every_embedded_kind_has_its_own_hnsw_index():
    with connection.cursor() as cur:
        cur.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'recall_embedding'")
        names = {r[0] for r in cur.fetchall()}
    kinds = {p.kind for p in providers_for("all")}
    assert "chat_turn" in kinds
    assert kinds <= set(EMBEDDED_KINDS)
    assert {f"recall_emb_{k}_hnsw" for k in kinds} <= names


def test_block_cache_write_is_read_back_overwritten_and_sweeps_expired_rows():
    from django.core.cache import cache

    from ledger.recall import blockcache

    cache.set("stale", "old", timeout=0)  # stored already expired (a second ago)
    time.sleep(0.01)
    blockcache.put("recall:k", {"block": "Maya lives in Lisbon", "items": [1, 2]}, 10)
    assert cache.get("recall:k") == {"block": "Maya lives in Lisbon", "items": [1, 2]}
    blockcache.put("recall:k", {"block": "changed"}, 10)
    assert cache.get("recall:k") == {"block": "changed"}
    with connection.cursor() as cur:
        cur.execute(f"SELECT cache_key FROM {cache._table}")
        keys = [r[0] for r in cur.fetchall()]
    assert keys == [cache.make_and_validate_key("recall:k")]
    blockcache.put("recall:gone", "x", -1)  # a negative lifetime is expired at once, like cache.set
    assert cache.get("recall:gone") is None


def test_a_pin_carries_its_facts_words_through_every_write_path(user, other_user):
    from ledger.services.layers import pin_fact

    violin, river, other = bulk_facts(user, ["the violin lesson on Tuesday", "a walk by the river", "violin strings"])
    bulk_facts(other_user, ["violin concert"])
    PinnedFact.objects.bulk_create([PinnedFact(owner=user, fact=violin)])  # bulk insert: no model code runs
    pin_fact(owner=user, fact=river)  # the service
    provider = PinnedProvider()

    def found(question):
        search.forget_stats()
        return [i.text for i in search.search_provider(provider, user, question, 10)]

    assert found("when is the violin lesson?") == ["the violin lesson on Tuesday"]  # not the unpinned fact
    assert found("a walk along the river") == ["a walk by the river"]
    Fact.objects.filter(pk=violin.pk).update(content="the cello lesson on Tuesday")  # the fact's text changes
    assert found("when is the cello lesson?") == ["the cello lesson on Tuesday"]
    assert found("violin") == []
    with connection.cursor() as cur:  # the pinned layer has its own full-text index
        cur.execute("SET LOCAL enable_seqscan = off")
        cur.execute("EXPLAIN SELECT id FROM ledger_pinnedfact WHERE search @@ to_tsquery('simple', 'cello')")
        assert "ledger_pinnedfact_search" in " ".join(r[0] for r in cur.fetchall())


def test_a_ranking_statement_written_once_serves_every_owner_within_the_policy(user, other_user):
    from ledger.recall import statements

    statements.forget_statements()
    mine = bulk_facts(user, ["the garden gate is green", "the garden shed roof leaks", "buy seeds for the garden"])
    theirs = bulk_facts(other_user, ["the garden gate of a neighbour", "a garden party", "the garden hose"])
    Fact.objects.filter(pk=mine[2].pk).update(status="rejected")  # the policy keeps rejected facts out
    provider = FactProvider()
    tq = search.text_query("what colour is the garden gate?")
    first = search._scored_rows(provider, user, tq, 50, False)
    written = len(statements._statements)
    second = search._scored_rows(provider, other_user, tq, 50, False)
    assert len(statements._statements) == written  # the same shape reuses the statement
    assert [pk for pk, _ in first] == [mine[0].pk, mine[1].pk]
    assert sorted(pk for pk, _ in second) == sorted(f.pk for f in theirs)
    expected = tree_ranking(provider, other_user, tq, 50)
    assert [pk for pk, _ in second] == [pk for pk, _ in expected]
    assert [s for _, s in second] == pytest.approx([float(s) for _, s in expected], rel=1e-12)
    # Exact document frequencies come from a statement too, within the same owner and policy.
    assert search._count_rows(provider, user, ["garden", "gate", "seed"]) == {"df0": 2, "df1": 1, "df2": 0}


def test_items_read_with_the_ranking_equal_the_items_read_on_their_own(user):
    from tests.factories import FactFactory

    FactFactory(owner=user, content="Maya plays the cello on Sundays", subject="third_party", person="Maya")
    FactFactory(owner=user, content="I play the cello badly", status="pending_review")
    # JSON must come back through its converter: as text, "stale" would be found inside '["stalemate"]'.
    Fact.objects.filter(owner=user).update(uncertainty_reasons=["stalemate"])
    for fact in Fact.objects.filter(owner=user):
        PinnedFact.objects.create(owner=user, fact=fact, salience=0.7)
    for provider in (FactProvider(), PinnedProvider()):
        found = search.search_provider(provider, user, "who plays the cello?", 10)
        assert len(found) == 2
        alone = provider.items(user, [i.ref_id for i in found])
        assert [i.as_dict() | {"score": 0} for i in found] == [alone[i.ref_id].as_dict() | {"score": 0} for i in found]
        assert [i.occurred_at for i in found] == [alone[i.ref_id].occurred_at for i in found]
        assert any("About Maya" in d for i in found for d in i.disclaimers)


def test_one_owners_few_rows_among_many_are_walked_with_the_same_statement_rules(user, other_user, monkeypatch):
    mine = bulk_facts(user, [garden_text(i) for i in range(12)])
    bulk_facts(other_user, [garden_text(i) for i in range(400)])  # the index is mostly another owner's
    analysed(monkeypatch, "ledger_fact", cap=100)
    walked = []
    ranked_rows = search._ranked_rows
    monkeypatch.setattr(search, "_ranked_rows", lambda *a, **k: walked.append(k.get("walk")) or ranked_rows(*a, **k))
    ranked = search.fulltext_ranking(FactProvider(), user, "what about tulips in the garden?", 50)
    assert walked == [True]
    assert {r.ref_id for r in ranked} == {f.pk for f in mine}  # every own garden row, no other owner's
    assert ranked[0].ref_id == mine[7].pk  # the rare word's row first


def test_a_row_statement_that_does_not_filter_by_its_owner_is_refused():
    from ledger.recall import statements

    with pytest.raises(ValueError, match="does not filter by its owner"):
        statements.statement(("unscoped-test",), lambda owner: Fact.objects.values_list("content"))
    assert ("unscoped-test",) not in statements._statements
