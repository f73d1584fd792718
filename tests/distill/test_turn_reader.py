"""The turn reader: features from a turn and its neighbours, and the logit it writes on each candidate."""

from __future__ import annotations

import json

import numpy as np
import pytest

from distill import gate_model, turn_reader
from distill.extraction.base import Candidate, ConversationIn, DayInput, Evidence, TurnIn

pytestmark = pytest.mark.django_db(databases=[])


def _reader(dim: int = 4) -> turn_reader.TurnReader:
    width = 3 * dim + len(turn_reader.SCALARS)
    coef = np.zeros(width, dtype=np.float32)
    coef[0] = 1.0  # the turn's own first dimension
    return turn_reader.TurnReader("turn-test", turn_reader.Head(np.zeros(width), np.ones(width), coef, 0.5), {})


def test_neighbours_come_from_the_same_conversation_only():
    rows = [
        turn_reader.TurnRow("a", 0, True, 1.0, "I restore organs."),
        turn_reader.TurnRow("b", 0, False, 0.8, "Is that so?"),
        turn_reader.TurnRow("a", 1, False, 1.0, "For churches?"),
    ]
    vectors = np.eye(3, 4, dtype=np.float32)
    f = turn_reader.features(rows, vectors)
    assert f.shape == (3, 12 + len(turn_reader.SCALARS))
    assert (f[0, 8:12] == vectors[2]).all() and np.isnan(f[0, 4:8]).all()  # next of a:0 is a:1, no previous
    assert np.isnan(f[1, 4:12]).all()  # b has no neighbour
    scalars = dict(zip(turn_reader.SCALARS, f[2, 12:], strict=True))
    assert scalars["question"] == 1.0 and scalars["prev_same_speaker"] == 0.0 and scalars["is_owner"] == 0.0


def test_a_turn_that_opens_its_conversation_is_read_on_its_words_not_its_place():
    """A head that learned position read a fact stated first ("I'm vegetarian, what can I cook?") as unlikely:
    long recorded talk opens with greetings. What a missing neighbour would say now reads as the training
    average, so an opener scores as if an average turn came before it, whatever the head's weights."""
    dim = 4
    width = 3 * dim + len(turn_reader.SCALARS)
    mean = np.full(width, 0.3, dtype=np.float32)  # an average previous turn is not a zero vector
    coef = np.zeros(width, dtype=np.float32)
    coef[dim : 2 * dim] = 2.0  # the head leans on the previous turn...
    coef[3 * dim + turn_reader.SCALARS.index("prev_same_speaker")] = -1.0  # ...and on who said it
    reader = turn_reader.TurnReader("turn-test", turn_reader.Head(mean, np.ones(width), coef, -1.0), {})
    rows = [
        turn_reader.TurnRow("a", 0, True, 1.0, "I keep bees on the roof."),
        turn_reader.TurnRow("a", 1, False, 1.0, "Bees?"),
    ]
    logits = reader.logits(turn_reader.features(rows, np.full((2, dim), 0.3, dtype=np.float32)))
    assert logits[0] == pytest.approx(-1.0)  # the intercept: no place penalty for opening


def _candidate(index: int) -> Candidate:
    return Candidate(
        subject="user", predicate="work:restore", args=[], content="Oona restores organs", kind="work",
        importance="normal", extraction_confidence=0.8, capture_confidence=1.0, attribution="user",
        evidence=Evidence(index, index, "I restore organs."),
    )  # fmt: skip


def test_annotate_reads_only_the_turns_of_candidates_and_their_neighbours(monkeypatch):
    read = []

    def fake_encode(texts):
        read.extend(texts)
        return np.tile(np.arange(len(texts), dtype=np.float32)[:, None], (1, 4))

    monkeypatch.setattr(turn_reader, "encode_turns", fake_encode)
    turns = [
        TurnIn(i, "Oona Ballantyne" if i % 2 == 0 else "SPEAKER_01", i % 2 == 0, f"Turn {i} here.") for i in range(10)
    ]
    day = DayInput(owner_name="Oona Ballantyne", conversations=[ConversationIn(None, turns)])
    cands = [_candidate(4)]
    turn_reader.annotate(day, cands, reader=_reader())
    assert len(read) == 3 and read[1].startswith("[OWNER]: Turn 4")
    assert cands[0].features["turn_logit"] == pytest.approx(1.5)  # its vector's first value (1) + intercept


def test_a_reader_without_a_claim_head_masks_no_claim(monkeypatch):
    """Masking a candidate's claim parses it: done for a claim head the artifact lacks, it was most of a day's
    reading time (a 2,000-turn day 188 s instead of 36 s). Only the conversation is masked, once."""
    from distill import masking

    masked = []
    real = masking.mask_conversation

    def counting(texts, **kw):
        masked.append(list(texts))
        return real(texts, **kw)

    monkeypatch.setattr(masking, "mask_conversation", counting)
    monkeypatch.setattr(turn_reader, "encode_turns", lambda texts: np.ones((len(texts), 4), dtype=np.float32))
    monkeypatch.setattr(turn_reader, "encode_claims", lambda pairs: pytest.fail("read a claim"))
    turns = [TurnIn(i, "Oona Ballantyne" if i % 2 == 0 else "Pádraig", i % 2 == 0, f"Turn {i} here.") for i in range(6)]
    day = DayInput(owner_name="Oona Ballantyne", conversations=[ConversationIn(None, turns)])
    cands = [_candidate(k) for k in (0, 2, 4)]
    turn_reader.annotate(day, cands, reader=_reader())
    assert len(masked) == 1 and len(masked[0]) == len(turns)
    assert all("turn_logit" in c.features and "claim_logit" not in c.features for c in cands)


def test_a_day_without_candidates_reads_nothing(monkeypatch):
    monkeypatch.setattr(turn_reader, "encode_turns", lambda texts: pytest.fail("read a turn"))
    day = DayInput(owner_name="Oona", conversations=[ConversationIn(None, [TurnIn(0, "Oona", True, "Hi.")])])
    turn_reader.annotate(day, [], reader=_reader())


def test_the_gate_model_reads_the_turn_logit_as_a_feature():
    cand = _candidate(0)
    assert "t:turn" not in gate_model.featurize(gate_model.view(cand))
    cand.features["turn_logit"] = -1.25
    assert gate_model.featurize(gate_model.view(cand))["t:turn"] == -1.25


@pytest.mark.skipif(not turn_reader.ARTIFACT.exists(), reason="no turn reader artifact")
def test_the_shipped_turn_reader_is_small_json_that_matches_the_gate_model():
    data = json.loads(turn_reader.ARTIFACT.read_text())
    assert turn_reader.ARTIFACT.stat().st_size < 10 * 1024 * 1024
    reader = turn_reader.TurnReader.from_dict(data)
    assert reader.head.coef.shape == reader.head.mean.shape
    assert json.loads(gate_model.ARTIFACT.read_text())["turn_reader"] == reader.version
