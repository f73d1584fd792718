"""Does fine-tuning MiniLM's top layer read turns better than the frozen encoder and a logistic head?

    python bench/finetune_turn_reader.py [--warm-start] [--folds 1,2] [--epochs 2] [--out var/finetune_turn.json]

An offline experiment for issue 37 (a small transformer fine-tuned for the turn decision), measured under the
protocol of ``bench/train_turn_model.py``: leave one wearer out (six folds; the persona chats split by
conversation into the same six folds alongside); LoCoMo is never trained on (CC BY-NC), only scored by each
fold's model. Needs the ``train`` extra (torch, CPU build); nothing at run time uses torch.

Two readers of the same masked turns (``bench/turn_data.py``: the days' evidence and trap turns, the persona
chats' voiced turns), the same labels and weights (each set weighing the same, unlabelled persona turns 0.3):

- **frozen**: today's turn head (``distill.turn_reader.features`` over the cached int8 vectors of the turn and
  its neighbours, plus the scalars; ``train_turn_model.fit_turn_head`` at its C);
- **fine-tuned**: all-MiniLM-L6-v2 from the model package in float32, layers 0 to ``6 - TOP_LAYERS - 1`` frozen
  and run once per turn (their hidden states kept under ``var/turn_cache``), the top ``TOP_LAYERS`` layer(s) trained with a
  linear head over the mean of the turn's own word pieces and the same scalars. The input is short: ``[CLS]``
  the turn (its role and masked words, ≤ ``TURN_TOKENS`` word pieces) ``[SEP]`` the previous turn (≤
  ``PREV_TOKENS``) ``[SEP]`` the next (≤ ``NEXT_TOKENS``) ``[SEP]``: at most 64 word pieces, as the frozen
  reader reads. With ``--warm-start`` the head starts as a logistic regression fitted on what the untrained top
  layer gives, and moves with the layer (fine-tuning from the frozen reader's optimum, not from zero).

The persona chats are the first ``PERSONA_CHATS`` of the turn cache's, for both readers; the fine-tuned reader
trains on every positive turn and a seeded share of the negatives (``NEGATIVE_SHARE``, reweighted); the frozen
head is also fitted on that same sample (``frozen_sampled``), to show the sample is not what separates them.

Per held-out fold it prints the turn AUC and average precision of both readers on the wearer's day turns and
on the fold's persona chats, and LoCoMo's. Fixed seeds; ``torch.set_num_threads(2)``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import turn_data  # noqa: E402

SEED = 20261207
TOP_LAYERS = 1
TURN_TOKENS = 32
PREV_TOKENS = 10
NEXT_TOKENS = 6
PERSONA_CHATS = 150  # of the turn cache's (1,000 since 2026-12-07, 300 before): the lower layers' cost on 2 cores
# Share of each set's negative turns the fine-tuned reader trains on (seeded; weights divided by the share):
# the top layer's forward and backward pass per turn is what the 2-core budget cannot afford for every turn.
NEGATIVE_SHARE = {"days": 0.5, "persona": 1 / 3}
EPOCHS = 2
BATCH = 32
LR_LAYER = 5e-5
LR_HEAD = 1e-3
WEIGHT_DECAY = 0.01
FROZEN_C = 0.002  # the shipped turn head's C (bench/train_turn_model.TURN_C_GRID)
SETS = ("days", "persona", "locomo")
WARM_START = False  # --warm-start: the head starts as a fitted logistic regression, not at zero
LIMIT = 0  # --limit: N turns of each set only, spread over the set (a smoke run)


# --- data ---------------------------------------------------------------------------------------------------
def load_turns() -> tuple[list[dict], object]:
    """Every turn of the three sets (cached masked rows) and the frozen reader's features of them."""
    import numpy as np

    from bench.train_turn_model import turn_features

    rows, feats = [], []
    for name in SETS:
        part, vectors = turn_data.load(name)
        if LIMIT:  # every k-th turn, so that every wearer is in
            keep = list(range(0, len(part), max(1, len(part) // LIMIT)))[:LIMIT]
            part, vectors = [part[i] for i in keep], vectors[keep]
        if name == "persona":
            kept = set(sorted({r["group"] for r in part})[:PERSONA_CHATS])
            keep = [i for i, r in enumerate(part) if r["group"] in kept]
            part, vectors = [part[i] for i in keep], vectors[keep]
        for r in part:
            r["set"] = name
        rows += part
        feats.append(turn_features(part, vectors))
    return rows, np.vstack(feats)


def fold_units(rows: list[dict]) -> tuple[list[str], list[str]]:
    """(wearers, unit of every turn): the wearer for a day turn, the persona chat's fold (round-robin over the
    sorted conversation names, folds named after the wearers, as ``train_turn_model.fold_keys``), 'locomo'."""
    wearers = sorted({r["group"].split(":", 1)[1] for r in rows if r["set"] == "days"})
    persona = sorted({r["group"] for r in rows if r["set"] == "persona"})
    fold = {g: wearers[i % len(wearers)] for i, g in enumerate(persona)}
    units = []
    for r in rows:
        if r["set"] == "days":
            units.append(r["group"].split(":", 1)[1])
        elif r["set"] == "persona":
            units.append(fold[r["group"]])
        else:
            units.append("locomo")
    return wearers, units


def neighbours(rows: list[dict]) -> tuple[list[int | None], list[int | None]]:
    """Index of the previous and next turn of each turn in its conversation (None at the ends)."""
    order = sorted(range(len(rows)), key=lambda i: (rows[i]["set"], rows[i]["conversation"], rows[i]["position"]))
    prev: list[int | None] = [None] * len(rows)
    nxt: list[int | None] = [None] * len(rows)
    for a, b in zip(order, order[1:], strict=False):
        if (rows[a]["set"], rows[a]["conversation"]) == (rows[b]["set"], rows[b]["conversation"]):
            prev[b], nxt[a] = a, b
    return prev, nxt


def tokenise(rows: list[dict], tokenizer) -> list[tuple[list[int], list[int], int]]:
    """(ids, token types, length of the turn's own part incl. [CLS] and its [SEP]) of every turn's input."""
    from distill import turn_reader

    texts = [turn_reader.turn_input(r["masked"], r["is_owner"]) or " " for r in rows]
    pieces = [e.ids[1:-1] for e in tokenizer.encode_batch(texts)]  # without [CLS] / [SEP]
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    prev, nxt = neighbours(rows)
    out = []
    for i in range(len(rows)):
        a = [cls, *pieces[i][:TURN_TOKENS], sep]
        b = [*pieces[prev[i]][:PREV_TOKENS], sep] if prev[i] is not None else []
        c = [*pieces[nxt[i]][:NEXT_TOKENS], sep] if nxt[i] is not None else []
        out.append((a + b + c, [0] * len(a) + [1] * (len(b) + len(c)), len(a)))
    return out


# --- the encoder in torch -----------------------------------------------------------------------------------
def base_weights() -> tuple[dict, object]:
    from tokenizers import Tokenizer

    from ledger.recall.embeddings import _minilm_model_dir
    from ledger.recall.minilm import load_safetensors

    model_dir = _minilm_model_dir()
    weights = {k.removeprefix("bert."): v for k, v in load_safetensors(f"{model_dir}/model.safetensors").items()}
    tokenizer = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return weights, tokenizer


def make_modules():
    import torch
    from torch import nn

    class Layer(nn.Module):
        """One BERT encoder layer (post-norm, exact GELU, eps 1e-12), names as in the package's tensors."""

        def __init__(self, dim: int = 384, heads: int = 12, inner: int = 1536):
            super().__init__()
            self.heads = heads
            self.query, self.key, self.value = nn.Linear(dim, dim), nn.Linear(dim, dim), nn.Linear(dim, dim)
            self.attn_out, self.attn_norm = nn.Linear(dim, dim), nn.LayerNorm(dim, eps=1e-12)
            self.inner, self.out, self.out_norm = (
                nn.Linear(dim, inner),
                nn.Linear(inner, dim),
                nn.LayerNorm(dim, eps=1e-12),
            )

        def load(self, w: dict, i: int) -> None:
            p = f"encoder.layer.{i}."
            names = {
                "query": "attention.self.query", "key": "attention.self.key", "value": "attention.self.value",
                "attn_out": "attention.output.dense", "attn_norm": "attention.output.LayerNorm",
                "inner": "intermediate.dense", "out": "output.dense", "out_norm": "output.LayerNorm",
            }  # fmt: skip
            with torch.no_grad():
                for mine, theirs in names.items():
                    m = getattr(self, mine)
                    m.weight.copy_(torch.from_numpy(w[p + theirs + ".weight"].astype("float32")))
                    m.bias.copy_(torch.from_numpy(w[p + theirs + ".bias"].astype("float32")))

        def forward(self, h, bias):
            b, t, d = h.shape

            def split(x):
                return x.view(b, t, self.heads, d // self.heads).transpose(1, 2)

            att = nn.functional.scaled_dot_product_attention(
                split(self.query(h)), split(self.key(h)), split(self.value(h)), attn_mask=bias
            )
            h = self.attn_norm(h + self.attn_out(att.transpose(1, 2).reshape(b, t, d)))
            return self.out_norm(h + self.out(nn.functional.gelu(self.inner(h))))

    class Reader(nn.Module):
        """The trained part: the top layer(s) and a linear head over the turn's mean vector and the scalars."""

        def __init__(self, w: dict, scalars: int):
            super().__init__()
            first = 6 - TOP_LAYERS
            self.layers = nn.ModuleList(Layer() for _ in range(TOP_LAYERS))
            for k, layer in enumerate(self.layers):
                layer.load(w, first + k)
            self.drop = nn.Dropout(0.1)
            self.head = nn.Linear(384 + scalars, 1)
            nn.init.zeros_(self.head.weight)
            nn.init.zeros_(self.head.bias)

        def features(self, h, mask, pool, scalars):
            bias = (1.0 - mask[:, None, None, :]) * -1e4
            for layer in self.layers:
                h = layer(h, bias)
            pooled = (h * pool[..., None]).sum(1) / pool.sum(1, keepdim=True)
            return torch.cat([pooled, scalars], 1)

        def forward(self, h, mask, pool, scalars):
            return self.head(self.drop(self.features(h, mask, pool, scalars))).squeeze(1)

    return Layer, Reader


def lower_states(inputs, weights: dict, batch: int = 64) -> list:
    """Hidden states after the frozen lower layers, one (length, 384) float16 tensor per input."""
    import torch
    from torch import nn

    Layer, _ = make_modules()
    emb = {
        k: torch.from_numpy(v.astype("float32"))
        for k, v in weights.items()
        if k.startswith("embeddings.") and v.dtype.kind == "f"
    }
    norm = nn.LayerNorm(384, eps=1e-12)
    with torch.no_grad():
        norm.weight.copy_(emb["embeddings.LayerNorm.weight"])
        norm.bias.copy_(emb["embeddings.LayerNorm.bias"])
    layers = []
    for i in range(6 - TOP_LAYERS):
        layer = Layer()
        layer.load(weights, i)
        layer.eval()
        layers.append(layer)
    out = [None] * len(inputs)
    order = sorted(range(len(inputs)), key=lambda i: len(inputs[i][0]))
    with torch.no_grad():
        for s in range(0, len(order), batch):
            chunk = order[s : s + batch]
            ids, types, mask = padded([inputs[i][0] for i in chunk]), padded([inputs[i][1] for i in chunk]), None
            mask = padded([[1] * len(inputs[i][0]) for i in chunk]).float()
            pos = torch.arange(ids.shape[1])[None, :]
            h = emb["embeddings.word_embeddings.weight"][ids] + emb["embeddings.position_embeddings.weight"][pos]
            h = norm(h + emb["embeddings.token_type_embeddings.weight"][types])
            bias = (1.0 - mask[:, None, None, :]) * -1e4
            for layer in layers:
                h = layer(h, bias)
            for k, i in enumerate(chunk):
                out[i] = h[k, : len(inputs[i][0])].to(torch.float16).clone()
    return out


def cached_states(rows, inputs, weights) -> list:
    """``lower_states``, kept under var/turn_cache keyed by the inputs and the layers run (about 350 MB)."""
    import hashlib

    import torch

    h = hashlib.sha256(f"{TOP_LAYERS}".encode())
    for ids, types, _ in inputs:
        h.update(bytes(str((ids, types)), "utf-8"))
    path = turn_data.CACHE_DIR / f"finetune-states-{h.hexdigest()[:16]}.pt"
    if path.exists():
        return torch.load(path)
    states = lower_states(inputs, weights)
    if not LIMIT:
        torch.save(states, path)
    return states


def padded(seqs):
    import torch

    t = torch.zeros((len(seqs), max(len(s) for s in seqs)), dtype=torch.long)
    for i, s in enumerate(seqs):
        t[i, : len(s)] = torch.tensor(s, dtype=torch.long)
    return t


def batch_of(idx, states, inputs, scalars):
    import torch

    width = max(states[i].shape[0] for i in idx)
    h = torch.zeros((len(idx), width, 384))
    mask = torch.zeros((len(idx), width))
    pool = torch.zeros((len(idx), width))
    for k, i in enumerate(idx):
        n = states[i].shape[0]
        h[k, :n] = states[i].float()
        mask[k, :n] = 1.0
        pool[k, : inputs[i][2]] = 1.0
    return h, mask, pool, torch.from_numpy(scalars[idx])


# --- training and measuring ---------------------------------------------------------------------------------
def sample_weights(rows: list[dict], idx: list[int]) -> dict[int, float]:
    """Each set weighing the same (``train_turn_model.set_balance``) times the turn's own weight; a sampled
    negative also carries 1 / its set's ``NEGATIVE_SHARE``."""
    share = {i: 1.0 if rows[i]["label"] else NEGATIVE_SHARE[rows[i]["set"]] for i in idx}
    counts: dict[str, float] = {}
    for i in idx:  # what each set's count would be without the sampling
        counts[rows[i]["set"]] = counts.get(rows[i]["set"], 0.0) + 1.0 / share[i]
    total = sum(counts.values())
    return {i: rows[i]["weight"] * total / (len(counts) * counts[rows[i]["set"]]) / share[i] for i in idx}


def negative_sample(rows: list[dict], idx: list[int]) -> list[int]:
    """Every positive turn of ``idx`` and a seeded share of each set's negatives (``NEGATIVE_SHARE``)."""
    import random

    rng = random.Random(SEED)
    draw = [rng.random() for _ in rows]  # one draw per turn, whatever the fold
    return [i for i in idx if rows[i]["label"] or draw[i] < NEGATIVE_SHARE[rows[i]["set"]]]


def say(line: str) -> None:
    print(line, flush=True)


def train_fold(train_idx, rows, states, inputs, scalars, weights, *, epochs: int, log=None):
    """The top layer(s) and head fitted on ``train_idx`` (labelled turns); batches of similar length, shuffled
    with a fixed seed."""
    import random

    import torch

    log = log or say
    torch.manual_seed(SEED)
    rng = random.Random(SEED)
    _, Reader = make_modules()
    model = Reader(weights, scalars.shape[1])
    w = sample_weights(rows, train_idx)
    if WARM_START:
        warm_start(model, train_idx, rows, states, inputs, scalars, w)
    groups = [
        {"params": [p for n, p in model.named_parameters() if n.startswith("layers.")], "lr": LR_LAYER},
        {"params": list(model.head.parameters()), "lr": LR_HEAD},
    ]
    opt = torch.optim.AdamW(groups, weight_decay=WEIGHT_DECAY)
    by_len = sorted(train_idx, key=lambda i: (states[i].shape[0], i))
    batches = [by_len[s : s + BATCH] for s in range(0, len(by_len), BATCH)]
    total = epochs * len(batches)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda step: min(1.0, (step + 1) / (0.1 * total)) * max(0.0, (total - step) / total)
    )
    model.train()
    for epoch in range(epochs):
        rng.shuffle(batches)
        started, seen = time.perf_counter(), 0.0
        for chunk in batches:
            h, mask, pool, sc = batch_of(chunk, states, inputs, scalars)
            y = torch.tensor([float(rows[i]["label"]) for i in chunk])
            sw = torch.tensor([w[i] for i in chunk])
            loss = (
                torch.nn.functional.binary_cross_entropy_with_logits(model(h, mask, pool, sc), y, reduction="none") * sw
            ).sum() / sw.sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            seen += loss.item()
        log(f"  epoch {epoch + 1}: loss {seen / len(batches):.4f} ({time.perf_counter() - started:.0f} s)")
    model.eval()
    return model


def predict(model, idx, states, inputs, scalars, batch: int = 128, *, features: bool = False):
    """The model's logits of the turns ``idx`` (or, with ``features``, what its head reads of them)."""
    import numpy as np
    import torch

    out = None
    order = sorted(range(len(idx)), key=lambda k: states[idx[k]].shape[0])
    with torch.no_grad():
        for s in range(0, len(order), batch):
            ks = order[s : s + batch]
            args = batch_of([idx[k] for k in ks], states, inputs, scalars)
            part = (model.features(*args) if features else model(*args)).numpy()
            if out is None:
                out = np.zeros((len(idx), *part.shape[1:]), dtype=np.float32)
            out[ks] = part
    return out if out is not None else np.zeros(0, dtype=np.float32)


def warm_start(model, idx, rows, states, inputs, scalars, w) -> None:
    """Start the head where a frozen reader would end: a logistic regression (standardised, the frozen head's
    C) over what the untrained top layer gives, folded into the linear head."""
    import numpy as np
    import torch
    from sklearn.linear_model import LogisticRegression

    model.eval()
    X = predict(model, idx, states, inputs, scalars, features=True)
    mean, scale = X.mean(0), X.std(0) + 1e-6
    lr = LogisticRegression(C=FROZEN_C, max_iter=500, tol=1e-5, solver="lbfgs")
    lr.fit((X - mean) / scale, np.array([rows[i]["label"] for i in idx]), sample_weight=np.array([w[i] for i in idx]))
    coef = lr.coef_[0] / scale
    with torch.no_grad():
        model.head.weight.copy_(torch.from_numpy(coef[None, :].astype("float32")))
        model.head.bias.fill_(float(lr.intercept_[0] - (coef * mean).sum()))


def scores(rows, idx, logits) -> dict:
    """AUC and average precision of ``logits`` over the labelled turns ``idx`` (None with one class)."""
    from sklearn.metrics import average_precision_score, roc_auc_score

    y = [rows[i]["label"] for i in idx]
    if len(set(y)) < 2:
        return {"auc": None, "ap": None, "n": len(y), "pos": sum(y)}
    return {
        "auc": round(float(roc_auc_score(y, logits)), 3),
        "ap": round(float(average_precision_score(y, logits)), 3),
        "n": len(y),
        "pos": int(sum(y)),
    }


def fit_sampled_head(F, rows, sample):
    """The frozen head on the fine-tuned reader's sampled turns and weights (the same data, for a fair look)."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    w = sample_weights(rows, sample)
    from distill import turn_reader

    X = F[sample]
    mean, scale = np.nanmean(X, 0), np.nanstd(X, 0) + 1e-6
    model = LogisticRegression(C=FROZEN_C, max_iter=500, tol=1e-5, solver="lbfgs")
    model.fit(
        turn_reader.standardise(X, mean, scale),
        np.array([rows[i]["label"] for i in sample]),
        sample_weight=np.array([w[i] for i in sample]),
    )
    return mean, scale, model.coef_[0].astype("float32"), float(model.intercept_[0])


def run(folds: list[int] | None, epochs: int, out: str = "", log=None) -> dict:
    log = log or say
    import numpy as np
    import torch

    from bench.train_turn_model import fit_turn_head, turn_logits
    from distill import turn_reader

    torch.set_num_threads(2)
    started = time.perf_counter()
    rows, F = load_turns()
    wearers, units = fold_units(rows)
    weights, tokenizer = base_weights()
    inputs = tokenise(rows, tokenizer)
    scalars = np.ascontiguousarray(np.nan_to_num(F[:, -len(turn_reader.SCALARS) :]))  # a missing neighbour: 0
    t = time.perf_counter()
    states = cached_states(rows, inputs, weights)
    log(f"lower layers 0-{5 - TOP_LAYERS} over {len(rows)} turns: {time.perf_counter() - t:.0f} s")
    labelled = [i for i, r in enumerate(rows) if r["label"] is not None]
    locomo = [i for i in labelled if units[i] == "locomo"]
    result = {"folds": [], "settings": settings(), "turns": len(rows)}
    loc_frozen, loc_tuned = np.zeros(len(locomo)), np.zeros(len(locomo))
    for number, wearer in enumerate(wearers, start=1):
        if folds and number not in folds:
            continue
        t = time.perf_counter()
        train = [i for i in labelled if units[i] not in (wearer, "locomo")]
        held = {s: [i for i in labelled if units[i] == wearer and rows[i]["set"] == s] for s in ("days", "persona")}
        sample = negative_sample(rows, train)
        head = fit_turn_head(F, rows, train, FROZEN_C)
        head_sampled = fit_sampled_head(F, rows, sample)
        log(f"fold {number}: {len(train)} training turns, the fine-tuned reader on {len(sample)} of them")
        model = train_fold(sample, rows, states, inputs, scalars, weights, epochs=epochs, log=log)
        fold = {"fold": number, "seconds": None}
        for s, idx in (*held.items(), ("locomo", locomo)):
            frozen = turn_logits(F, head, idx)
            tuned = predict(model, idx, states, inputs, scalars)
            if s == "locomo":
                loc_frozen += frozen
                loc_tuned += tuned
            fold[s] = {
                "frozen": scores(rows, idx, frozen),
                "frozen_sampled": scores(rows, idx, turn_logits(F, head_sampled, idx)),
                "tuned": scores(rows, idx, tuned),
            }
        fold["seconds"] = round(time.perf_counter() - t)
        result["folds"].append(fold)
        log(json.dumps(fold))
        if out:
            Path(out).write_text(json.dumps(result, indent=1))
    n = len(result["folds"])
    if n:
        result["locomo_mean_of_fold_models"] = {
            "frozen": scores(rows, locomo, loc_frozen / n),
            "tuned": scores(rows, locomo, loc_tuned / n),
        }
    result["seconds"] = round(time.perf_counter() - started)
    return result


def settings() -> dict:
    return {
        k: globals()[k]
        for k in (
            "SEED",
            "TOP_LAYERS",
            "TURN_TOKENS",
            "PREV_TOKENS",
            "NEXT_TOKENS",
            "PERSONA_CHATS",
            "NEGATIVE_SHARE",
            "BATCH",
            "LR_LAYER",
            "LR_HEAD",
            "WEIGHT_DECAY",
            "FROZEN_C",
            "WARM_START",
        )
    }


def table(result: dict) -> str:
    """The per-fold figures as a Markdown table (frozen → fine-tuned)."""

    def cell(part: dict, key: str) -> str:
        a, b = part["frozen"][key], part["tuned"][key]
        return "n/a" if a is None or b is None else f"{a:.3f} → {b:.3f}"

    lines = [
        "| held-out fold | day turns (true) | days AUC | days AP | persona turns (true) | persona AUC | persona AP |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in result["folds"]:
        d, p = f["days"], f["persona"]
        lines.append(
            f"| {f['fold']} | {d['frozen']['n']} ({d['frozen']['pos']}) | {cell(d, 'auc')} | {cell(d, 'ap')} "
            f"| {p['frozen']['n']} ({p['frozen']['pos']}) | {cell(p, 'auc')} | {cell(p, 'ap')} |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", default="", help="1-based wearer folds to run, e.g. 1,2 (default: all six)")
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument("--out", default="", help="write the figures as JSON here")
    parser.add_argument("--warm-start", action="store_true", help="start the head as a fitted logistic regression")
    parser.add_argument("--limit", type=int, default=0, help="N turns of each set only (a smoke run)")
    args = parser.parse_args(argv)
    global LIMIT, WARM_START, LR_HEAD
    LIMIT = args.limit
    if args.warm_start:
        WARM_START, LR_HEAD = True, LR_LAYER  # the head is fitted already: it moves with the layer
    folds = [int(x) for x in args.folds.split(",") if x.strip()] or None
    result = run(folds, args.epochs, args.out)
    result["settings"]["EPOCHS"] = args.epochs
    print(table(result))
    if "locomo_mean_of_fold_models" in result:
        loc = result["locomo_mean_of_fold_models"]
        print(
            f"LoCoMo (never trained on; mean of the fold models' logits): AUC {loc['frozen']['auc']} → {loc['tuned']['auc']}, AP {loc['frozen']['ap']} → {loc['tuned']['ap']}"
        )
    print(f"{result['seconds']} s in all")
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
