"""The turn reader: how likely a turn, in its conversation, states a durable fact.

A sentence model reads every turn once (all-MiniLM-L6-v2 on onnxruntime, int8, ``ledger.recall.minilm``) after
its names are masked (``distill.masking``): "[OWNER]: …" or "[OTHER]: …" and the turn's words. A small head
(logistic regression, ``distill/data/turn_reader.json``, trained by ``bench/train_turn_model.py`` on turn labels)
reads the turn's vector beside the vectors of the turns just before and after it (a question it answers, a
reply that laughs or corrects) and a few plain facts of the turn (the owner speaking, how sure the device is
of that, a question mark, its length).

The gate model (``distill.gate_model``) takes the turn's logit as one more feature of every candidate the turn
gave; the weights of the encoder are the model package's, the repository ships the head (a few hundred KiB).
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ledger.recall.embeddings import EmbeddingError

logger = logging.getLogger(__name__)
ARTIFACT = Path(__file__).resolve().parent / "data" / "turn_reader.json"
FORMAT = "almanac-turn-reader/2"
MAX_TOKENS = 64  # a turn's first 64 word pieces: the cost of attention grows with the square of the length
CLAIM_TOKENS = 32  # a candidate claim's, read after its turn
SCALARS = ("is_owner", "owner_confidence", "question", "prev_question", "prev_same_speaker", "length")
_lock = threading.Lock()


def turn_input(masked_text: str, is_owner: bool) -> str:
    """What the encoder reads of one turn: its speaker's role, then its masked words."""
    return f"{'[OWNER]' if is_owner else '[OTHER]'}: {masked_text}"


@lru_cache(maxsize=1)
def encoder():
    """The int8 MiniLM encoder over the installed model package (loaded once per process)."""
    from ledger.recall.embeddings import _minilm_model_dir
    from ledger.recall.minilm import MiniLM

    return MiniLM(_minilm_model_dir(), quantized=True)


def encode_turns(texts: Sequence[str]) -> np.ndarray:
    """Unit vectors of the turns (rows in the order given)."""
    return encoder().encode(list(texts), max_tokens=MAX_TOKENS)


def encode_claims(pairs: Sequence[tuple[str, str]]) -> np.ndarray:
    """Unit vectors of (turn input, masked claim) pairs read together (the claim's word pieces attend to the
    turn's), averaged over the claim's word pieces only: how the claim reads in the words it came from."""
    model = encoder()
    rows = []
    for turn, claim in pairs:
        a = model.tokenizer.encode(turn or " ").ids[: MAX_TOKENS - 1]
        b = model.tokenizer.encode(claim or " ").ids[1:][:CLAIM_TOKENS]  # without its [CLS]
        rows.append((a + b, [0] * len(a) + [1] * len(b), [0] * len(a) + [1] * len(b)))
    if not rows:
        return np.zeros((0, model.dimensions), dtype=np.float32)
    vectors = model.pooled(rows)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


@dataclass
class TurnRow:
    """What the head reads of a turn besides its vector (training rows and a pass's turns alike)."""

    conversation: str
    position: int
    is_owner: bool
    owner_confidence: float
    text: str


def features(rows: Sequence[TurnRow], vectors: np.ndarray) -> np.ndarray:
    """One row per turn: its vector, the previous and next turn's in the same conversation, and the scalars
    (``SCALARS``). What a missing neighbour would say is NaN, and ``standardise`` reads NaN as the training
    average: a turn that opens or closes a conversation is read on its own words, never by its place. (A head
    that learned position read an opening statement as unlikely to be a fact: long recorded talk opens with a
    greeting, but a short exchange or a typed chat often opens with the fact.)"""
    n, dim = vectors.shape
    prev = np.full_like(vectors, np.nan)
    nxt = np.full_like(vectors, np.nan)
    scalars = np.zeros((n, len(SCALARS)), dtype=np.float32)
    order = sorted(range(n), key=lambda i: (rows[i].conversation, rows[i].position))
    for k, i in enumerate(order):
        r = rows[i]
        before = order[k - 1] if k and rows[order[k - 1]].conversation == r.conversation else None
        after = order[k + 1] if k + 1 < n and rows[order[k + 1]].conversation == r.conversation else None
        if before is not None:
            prev[i] = vectors[before]
        if after is not None:
            nxt[i] = vectors[after]
        scalars[i] = [
            float(r.is_owner),
            float(r.owner_confidence),
            float("?" in r.text),
            float("?" in rows[before].text) if before is not None else np.nan,
            float(rows[before].is_owner == r.is_owner) if before is not None else np.nan,
            math.log1p(len(re.findall(r"\w+", r.text))) / 4.0,
        ]
    return np.hstack([vectors, prev, nxt, scalars]).astype(np.float32)


def standardise(x: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """(x − mean) / scale, with a missing value (NaN) at 0: the average of the training rows."""
    return np.nan_to_num((x - mean) / scale, nan=0.0)


@dataclass
class Head:
    """A standardised logistic regression: logit = ((x − mean) / scale) · coef + intercept."""

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float

    @classmethod
    def from_dict(cls, head: dict) -> Head:
        return cls(*(np.array(head[k], dtype=np.float32) for k in ("mean", "scale", "coef")), float(head["intercept"]))

    def logits(self, x: np.ndarray) -> np.ndarray:
        return standardise(x, self.mean, self.scale) @ self.coef + self.intercept


@dataclass
class TurnReader:
    version: str
    head: Head  # the turn head: a turn's vector, its neighbours' and the scalars (``features``)
    meta: dict
    claim: Head | None = None  # the claim head: a candidate's claim read after its turn, beside the turn's vector

    @classmethod
    def from_dict(cls, data: dict) -> TurnReader:
        if data.get("format") != FORMAT:
            raise ValueError(f"not a turn reader artifact (format {data.get('format')!r})")
        return cls(
            version=data["version"],
            head=Head.from_dict(data["head"]),
            meta={k: data.get(k) for k in ("training_data", "folds", "created_by")},
            claim=Head.from_dict(data["claim_head"]) if data.get("claim_head") else None,
        )

    def logits(self, feats: np.ndarray) -> np.ndarray:
        return self.head.logits(feats)

    def read(self, rows: Sequence[TurnRow], masked: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(logits, vectors) of the turns (``masked``: their texts after ``distill.masking``)."""
        if not rows:
            return np.zeros(0, dtype=np.float32), np.zeros((0, 0), dtype=np.float32)
        vectors = encode_turns([turn_input(m, r.is_owner) for m, r in zip(masked, rows, strict=True)])
        return self.logits(features(rows, vectors)), vectors

    def read_claims(self, pairs: Sequence[tuple[str, str]], turn_vectors: np.ndarray) -> np.ndarray:
        """Logits of the claim head for (turn input, masked claim) pairs and their turns' vectors."""
        if self.claim is None or not pairs:
            return np.zeros(len(pairs), dtype=np.float32)
        return self.claim.logits(np.hstack([encode_claims(pairs), turn_vectors]))


def load(path: Path | str | None = None) -> TurnReader:
    return TurnReader.from_dict(json.loads(Path(path or ARTIFACT).read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def shipped() -> TurnReader | None:
    """The artifact in the repository (None when there is none: the gate then scores without it)."""
    with _lock:
        return load(ARTIFACT) if ARTIFACT.exists() else None


def _read_claims(reader, day, mine, at, texts, rows, vectors, speakers_of) -> np.ndarray:
    """The claim head's logits of the candidates ``mine`` read after their turns; nothing is masked or read when
    the artifact has no claim head (masking each claim parses it: most of a day's turn reading time)."""
    from distill.masking import mask_conversation

    if reader.claim is None:
        return np.zeros(len(mine), dtype=np.float32)
    pairs = []
    for c, k in zip(mine, at, strict=True):
        (claim,) = mask_conversation(
            [c.content], owner_name=day.owner_name, speaker_names=speakers_of[c.evidence.first_index]
        )
        pairs.append((turn_input(texts[k], rows[k].is_owner), claim))
    return reader.read_claims(pairs, vectors[at] if at else vectors[:0])


def annotate(day, candidates, reader: TurnReader | None = None) -> None:
    """Write each candidate's turn logit into ``candidate.features["turn_logit"]`` (read by the gate model as
    ``t:turn``). Only the turns that gave a candidate, and their neighbours, are read; a day whose talk has no
    candidate costs nothing. Without an artifact nothing is written (the feature is then absent: neutral)."""
    from distill.masking import mask_conversation

    reader = reader or shipped()
    wanted = {c.evidence.first_index for c in candidates if c.evidence is not None}
    if reader is None or not wanted:
        return
    rows, texts, by_index, speakers_of = [], [], {}, {}
    for n, conv in enumerate(day.conversations):
        turns = conv.turns
        if not any(t.index in wanted for t in turns):
            continue
        speakers = sorted({t.speaker_name for t in turns if not t.is_owner})
        masked = mask_conversation([t.text for t in turns], owner_name=day.owner_name, speaker_names=speakers)
        for pos, (t, m) in enumerate(zip(turns, masked, strict=True)):
            near = {turns[k].index for k in range(max(pos - 1, 0), min(pos + 2, len(turns)))}
            if near & wanted:
                by_index[t.index] = len(rows)
                speakers_of[t.index] = [] if t.is_owner else [t.speaker_name]
                rows.append(TurnRow(str(n), pos, bool(t.is_owner), float(conv.owner_confidence), t.text))
                texts.append(m)
    try:
        logits, vectors = reader.read(rows, texts)
        mine = [c for c in candidates if c.evidence is not None and c.evidence.first_index in by_index]
        at = [by_index[c.evidence.first_index] for c in mine]
        claims = _read_claims(reader, day, mine, at, texts, rows, vectors, speakers_of)
    except (ImportError, EmbeddingError) as exc:  # the model package or onnxruntime is missing: score without it
        logger.warning("turn reader unavailable, candidates scored without it: %s", exc)
        return
    for cand, k, z in zip(mine, at, claims, strict=True):
        cand.features["turn_logit"] = round(float(logits[k]), 4)
        if reader.claim is not None:
            cand.features["claim_logit"] = round(float(z), 4)
