"""The dense encoder runs on onnxruntime over a weightless graph fed from the model package's tensors."""

from __future__ import annotations

import pytest

from ledger.recall.embeddings import minilm_available

pytestmark = pytest.mark.skipif(not minilm_available(), reason="packaged minilm model or onnxruntime not installed")

TEXTS = [
    "The ferry to Inishmore leaves at nine on Tuesdays.",
    "my sister restores church organs",
    "ok",
    "A much longer sentence about a glasshouse full of tomatoes, three beehives and a leaking water butt "
    "that nobody has fixed since the storm in February, which is longer than most turns people say.",
]


def _model_dir():
    from ledger.recall.embeddings import _minilm_model_dir

    return _minilm_model_dir()


def test_the_graph_gives_the_reference_forward_pass_vectors():
    from ledger.recall.minilm import MiniLM
    from tests.recall import minilm_reference

    got = MiniLM(_model_dir()).encode(TEXTS)
    want = minilm_reference.encode(_model_dir(), TEXTS)
    assert got.shape == (4, 384)
    assert abs(got - want).max() < 1e-5


def test_padding_in_a_batch_does_not_change_a_vector():
    from ledger.recall.minilm import MiniLM

    model = MiniLM(_model_dir())
    alone = model.encode(TEXTS[2:3])
    batched = model.encode(TEXTS)
    assert abs(alone[0] - batched[2]).max() < 1e-5


def test_the_int8_graph_stays_close_to_the_float_one():
    from ledger.recall.minilm import MiniLM

    exact = MiniLM(_model_dir()).encode(TEXTS)
    quick = MiniLM(_model_dir(), quantized=True).encode(TEXTS)
    cosines = (exact * quick).sum(1)
    assert len(cosines) == 4 and cosines.min() > 0.95


def test_int8_columns_keep_each_weight_within_half_a_step():
    import numpy as np

    from ledger.recall.minilm import quantize_columns

    weight = np.random.default_rng(0).normal(size=(64, 16)).astype(np.float32)
    q, scale, zero = quantize_columns(weight)
    assert q.dtype == np.int8 and (zero == 0).all() and scale.shape == (16,)
    assert np.abs(q * scale - weight).max() <= scale.max() / 2 + 1e-6


def test_the_committed_graphs_match_their_builder():
    pytest.importorskip("onnx")
    from bench import build_encoder_graph

    assert build_encoder_graph.main(["--check"]) == 0
