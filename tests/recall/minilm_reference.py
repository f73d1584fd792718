"""A plain NumPy forward pass of all-MiniLM-L6-v2 (BERT + mean pooling + L2 norm), written from the model card's
description, used only to check that the onnxruntime graph computes the same vectors. It had been the runtime
encoder (it matched sentence-transformers to 2e-7); the product now runs the graph."""

from __future__ import annotations

import json
import os

import numpy as np

from ledger.recall.minilm import load_safetensors


def _layer_norm(x, weight, bias, eps=1e-12):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def _gelu(x):
    from math import erf

    return 0.5 * x * (1.0 + np.vectorize(erf)(x / np.sqrt(2.0)))


def encode(model_dir: str, texts: list[str]) -> np.ndarray:
    from tokenizers import Tokenizer

    with open(os.path.join(model_dir, "config.json")) as fh:
        heads = int(json.load(fh)["num_attention_heads"])
    w = {
        k.removeprefix("bert."): v.astype(np.float64)
        for k, v in load_safetensors(os.path.join(model_dir, "model.safetensors")).items()
        if v.dtype != np.int64
    }
    tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    tok.no_padding()
    out = []
    for text in texts:
        ids = np.array(tok.encode(text).ids)
        h = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][: len(ids)]
        h = _layer_norm(
            h + w["embeddings.token_type_embeddings.weight"][0],
            w["embeddings.LayerNorm.weight"],
            w["embeddings.LayerNorm.bias"],
        )
        d = h.shape[1] // heads
        for i in range(6):
            p = f"encoder.layer.{i}"

            def lin(x, n, p=p):
                return x @ w[f"{p}.{n}.weight"].T + w[f"{p}.{n}.bias"]

            q, k, v = (
                lin(h, f"attention.self.{n}").reshape(len(ids), heads, d).transpose(1, 0, 2)
                for n in ("query", "key", "value")
            )
            s = q @ k.transpose(0, 2, 1) / np.sqrt(d)
            s = np.exp(s - s.max(-1, keepdims=True))
            ctx = ((s / s.sum(-1, keepdims=True)) @ v).transpose(1, 0, 2).reshape(len(ids), -1)
            h = _layer_norm(
                lin(ctx, "attention.output.dense") + h,
                w[f"{p}.attention.output.LayerNorm.weight"],
                w[f"{p}.attention.output.LayerNorm.bias"],
            )
            h = _layer_norm(
                lin(_gelu(lin(h, "intermediate.dense")), "output.dense") + h,
                w[f"{p}.output.LayerNorm.weight"],
                w[f"{p}.output.LayerNorm.bias"],
            )
        pooled = h.mean(0)
        out.append(pooled / np.linalg.norm(pooled))
    return np.array(out)
