"""The trust gate's model: the probability that a candidate is a durable, true statement about the right person.

A logistic regression over hashed features in four groups, then an isotonic calibration table:

- ``a:`` **attribution**: whom the claim is about and how sure the extractor is (subject type, resolved
  speaker, attribution confidence, owner speaking, a named person). Its summed contribution is reported on its
  own (``attribution_logit``) and checked by ``attribution_ok``: a claim whose subject is uncertain is never
  accepted, whatever the other groups say.
- ``s:`` **shape**: the parse features of the claim (negation, modality, hedges, tense, aspect, question,
  conditional, quotation, report, sarcasm cues, length, entities), the extractor's hard ceiling, flags, kind,
  importance and its own confidence (the LLM extractor's confidence is one more number here).
- ``c:`` **context**: another device heard it, the judge's verdict, an active memory supports it, which extractor.
- ``w:``/``b:`` **words**: lemmas (or lowercased words) of the claim's turn, and their pairs, hashed; names of
  people are left out so the model cannot learn who was in the development talk.

Everything the model needs is in one JSON artifact (``distill/data/gate_model.json``): hashing parameters,
sparse coefficients, the calibration table, the thresholds chosen on cross-validation folds, its version and the
hash of its training data. Inference is pure Python (no scikit-learn, no pickle); ``bench/train_gate.py``
rebuilds the artifact bit-for-bit.
"""

from __future__ import annotations

import json
import math
import re
import zlib
from bisect import bisect_right
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from pathlib import Path

ARTIFACT = Path(__file__).resolve().parent / "data" / "gate_model.json"
FORMAT = "almanac-gate-model/1"
HASH_BITS = 16
UNCERTAIN_SUBJECTS = {"unknown", "pronoun"}  # parse subject types the model may never accept on its own
MIN_ATTRIBUTION_CONFIDENCE = 0.6  # below it the subject is uncertain (checked, not learned)
# An accept line at 1.0 is no line: training found no probability at which what the model accepts on its own is
# right often enough (bench/train_gate.py), so nothing is accepted without asking, even a p that rounds to 1.0.
NO_LINE = 1.0
_WORD = re.compile(r"[A-Za-z][A-Za-z']*|\d+")
_PARSE_KEYS_BOOL = (
    "negated",
    "hedged",
    "habitual",
    "is_question",
    "conditional",
    "in_quote",
    "reported",
    "imperative",
    "has_date",
    "has_quantity",
    "answer_to_question",
    "coordinated",
)
_PARSE_KEYS_CAT = ("modality", "tense", "aspect", "verb_lemma", "object_head_lemma", "object_ent_label")
_ATTR_KEYS_CAT = ("subject_type",)


# --- features -----------------------------------------------------------------------------------------------
def view(candidate, *, corroborating_sources=(), judge_verdict=None, supporting_memory_id=None) -> dict:
    """The plain dict the model reads: a ``Candidate`` (or its ``as_dict()``) plus what the pass knows about it.

    Training (``bench/gate_data.py``) and inference build it the same way, so a feature means one thing.
    """
    data = candidate if isinstance(candidate, dict) else _fields_of(candidate)
    evidence = data.get("evidence") or {}
    if not isinstance(evidence, dict):
        evidence = {"quote": getattr(evidence, "quote", "")}
    return {
        "attribution": data.get("attribution") or "unknown",
        "person": data.get("person") or "",
        "subject": data.get("subject") or "",
        "content": data.get("content") or "",
        "quote": (evidence.get("quote") if isinstance(evidence, dict) else "") or data.get("turn_text") or "",
        "kind": data.get("kind") or "",
        "importance": data.get("importance") or "",
        "extraction_confidence": float(data.get("extraction_confidence") or 0.0),
        "capture_confidence": float(data.get("capture_confidence", 1.0)),
        "ceiling": data.get("ceiling") or "",
        "ceiling_reason": data.get("ceiling_reason") or "",
        "flags": list(data.get("flags") or []),
        "extractor": data.get("extractor") or "",
        "features": dict(data.get("features") or {}),
        "corroborated": bool(corroborating_sources or data.get("corroborating_sources")),
        "judge": judge_verdict or data.get("judge_verdict") or "",
        "supported": bool(supporting_memory_id or data.get("supporting_memory_id")),
    }


def _fields_of(candidate) -> dict:
    """A candidate's fields as they are (``as_dict`` deep-copies every parse feature: a third of a pass's
    scoring time)."""
    return {f.name: getattr(candidate, f.name) for f in fields(candidate)}


def _norm_reason(text: str) -> str:
    """A flag or ceiling reason without its specifics ("bee heard this differently" → "heard this differently")."""
    words = [w.lower() for w in _WORD.findall(text or "") if not w[0].isdigit()]
    return " ".join(words[-3:]) if words else ""


def _base(word: str) -> str:
    """A word without its possessive ending ("maya's" → "maya")."""
    return word.lower().removesuffix("'s")


def _capitalised_inside(text: str) -> set[str]:
    """Capitalised words that do not open a sentence: names of people, places and firms (as ``distill.masking``
    masks a proper noun the recogniser left out), not "I"."""
    out = set()
    for sentence in re.split(r"[.!?]\s+", text):
        for w in _WORD.findall(sentence)[1:]:
            if w[:1].isupper() and w not in ("I", "I'm", "I've", "I'll", "I'd"):
                out.add(_base(w))
    return out


def _names(v: dict) -> set[str]:
    """Words that are names here, without their possessive ending: the claim's person and subject, the word
    the claim opens with unless its turn uses it as a common word ("The", "My"), and words the claim or its
    turn capitalise inside a sentence. The model reads every one of them as ``<name>``, so no weight can learn
    who was in the development talk (a possessive, "maya's", had escaped the mask)."""
    out = {_base(w) for w in _WORD.findall(v["person"])}
    subject = v.get("subject") or ""
    if ":" in subject:
        out |= {_base(w) for w in _WORD.findall(subject.split(":", 1)[1])}
    first = _WORD.findall(v["content"])[:1]
    said = {w.lower() for w in _WORD.findall(v["quote"])}
    if first and first[0][:1].isupper() and first[0].lower() not in said and first[0] != "I":
        out.add(_base(first[0]))
    return out | _capitalised_inside(v["quote"]) | _capitalised_inside(v["content"])


def _bucket(x: float, edges=(0.3, 0.5, 0.6, 0.7, 0.8, 0.9)) -> str:
    return str(bisect_right(edges, x))


def featurize(v: dict) -> dict[str, float]:
    """Named features (group prefix + name → value). Absent parse keys are simply absent."""
    f: dict[str, float] = {"bias": 1.0}
    p = v["features"]
    # attribution
    f[f"a:attribution={v['attribution']}"] = 1.0
    f["a:named_person"] = float(bool(v["person"]))
    for key in _ATTR_KEYS_CAT:
        if key in p:
            f[f"a:{key}={p[key]}"] = 1.0
    if "attribution_confidence" in p:
        f["a:attribution_confidence"] = float(p["attribution_confidence"])
    if "speaker_is_owner" in p:
        f[f"a:speaker_is_owner={bool(p['speaker_is_owner'])}"] = 1.0
        f[f"a:owner_x_attr={bool(p['speaker_is_owner'])}:{v['attribution']}"] = 1.0
    # shape
    f[f"s:ceiling={v['ceiling'] or 'none'}"] = 1.0
    if v["ceiling_reason"]:
        f[f"s:ceiling_reason={_norm_reason(v['ceiling_reason'])}"] = 1.0
    for flag in v["flags"]:
        f[f"s:flag={_norm_reason(flag)}"] = 1.0
    f[f"s:kind={v['kind']}"] = 1.0
    f[f"s:importance={v['importance']}"] = 1.0
    f["s:extraction_confidence"] = v["extraction_confidence"]
    f[f"s:extraction_confidence_bucket={_bucket(v['extraction_confidence'])}"] = 1.0
    f["s:capture_confidence"] = v["capture_confidence"]
    for key in _PARSE_KEYS_BOOL:
        if key in p:
            f[f"s:{key}={bool(p[key])}"] = 1.0
    for key in _PARSE_KEYS_CAT:
        if p.get(key) not in (None, ""):
            f[f"s:{key}={str(p[key]).lower()}"] = 1.0
    if "sarcasm_cues" in p:
        f["s:sarcasm_cues"] = min(float(p["sarcasm_cues"]), 3.0)
    quote = v["quote"]
    n_tokens = float(p.get("n_tokens") or len(_WORD.findall(quote)))
    f[f"s:n_tokens_bucket={min(int(n_tokens) // 5, 8)}"] = 1.0
    f["s:quote_question"] = float("?" in quote)
    f["s:quote_exclaim"] = float(min(quote.count("!"), 3))
    f["s:content_covers_quote"] = _coverage(v["content"], quote)
    # the turn reader's logits of the candidate's turn and of its claim read after the turn (distill.turn_reader):
    # absent when it did not run
    if "turn_logit" in p:
        f["t:turn"] = float(p["turn_logit"])
    if "claim_logit" in p:
        f["t:claim"] = float(p["claim_logit"])
    # context
    f["c:corroborated"] = float(v["corroborated"])
    f["c:supported"] = float(v["supported"])
    if v["judge"]:
        f[f"c:judge={v['judge']}"] = 1.0
    f[f"c:extractor={v['extractor']}"] = 1.0
    # words
    names = _names(v)
    words = p.get("words")
    if not isinstance(words, list) or not words:
        words = [w.lower() for w in _WORD.findall(quote)]
    words = [("<name>" if _base(w) in names else w) for w in (str(w).lower() for w in words)]
    for w in set(words):
        f[f"w:{w}"] = 1.0
    for a, b in set(zip(words, words[1:], strict=False)):
        f[f"b:{a}_{b}"] = 1.0
    content_words = {w.lower() for w in _WORD.findall(v["content"])}
    for w in (w for w in content_words if _base(w) not in names):
        f[f"cw:{w}"] = 1.0
    return f


def _coverage(content: str, quote: str) -> float:
    c = {w.lower() for w in _WORD.findall(content)}
    q = {w.lower() for w in _WORD.findall(quote)}
    return round(len(c & q) / len(c), 2) if c else 0.0


def bucket_of(name: str, bits: int = HASH_BITS) -> int:
    return zlib.crc32(name.encode("utf-8")) & ((1 << bits) - 1)


def group_of(name: str) -> str:
    return name.split(":", 1)[0] if ":" in name else "bias"


def attribution_ok(v: dict) -> tuple[bool, str]:
    """The checked half of attribution: is the subject certain enough to accept without asking?"""
    p = v["features"]
    if v["attribution"] == "unknown" or v["subject"] in ("", "unknown"):
        return False, "subject unknown"
    if str(p.get("subject_type", "")) in UNCERTAIN_SUBJECTS:
        return False, f"subject is a {p['subject_type']}"
    if "attribution_confidence" in p and float(p["attribution_confidence"]) < MIN_ATTRIBUTION_CONFIDENCE:
        return False, f"attribution confidence {float(p['attribution_confidence']):.2f}"
    if v["attribution"] == "third_party" and not v["person"]:
        return False, "third party without a name"
    return True, ""


# --- the model ----------------------------------------------------------------------------------------------
@dataclass
class Prediction:
    p: float
    logit: float
    attribution_logit: float
    attribution_ok: bool
    attribution_reason: str
    top: list[tuple[str, float]] = field(default_factory=list)


@dataclass
class GateModel:
    version: str
    bits: int
    intercept: float
    weights: dict[int, float]
    calibration_x: list[float]
    calibration_y: list[float]
    accept_threshold: float
    review_threshold: float
    meta: dict = field(default_factory=dict)
    platt: tuple[float, float] | None = None  # (a, b): p = sigmoid(a·logit + b), used when there is no table
    # A claim a hard rule caps at review (a quote, an uncertain subject...) is asked at p ≥ this line, chosen on
    # the folds apart from the review line: such claims are a population of their own. None: the review line.
    capped_threshold: float | None = None
    # The lines of each medium (``distill.conversation.Medium``) as (accept, review, capped): chosen on the typed
    # and the spoken training sets apart. A medium not listed keeps the lines above (speech's).
    lines_by_medium: dict[str, tuple[float, float, float | None]] = field(default_factory=dict)

    def for_medium(self, medium: str) -> GateModel:
        """This model deciding with the lines chosen for ``medium`` (itself when it has none of its own)."""
        if medium not in self.lines_by_medium:
            return self
        accept, review, capped = self.lines_by_medium[medium]
        return replace(self, accept_threshold=accept, review_threshold=review, capped_threshold=capped)

    @property
    def capped_line(self) -> float:
        return self.review_threshold if self.capped_threshold is None else self.capped_threshold

    @classmethod
    def from_dict(cls, data: dict) -> GateModel:
        if data.get("format") != FORMAT:
            raise ValueError(f"not a gate model artifact (format {data.get('format')!r})")
        h = data["hashing"]
        return cls(
            version=data["version"],
            bits=int(h["bits"]),
            intercept=float(data["intercept"]),
            weights={int(i): float(w) for i, w in data["weights"]},
            calibration_x=[float(x) for x in data["calibration"]["x"]],
            calibration_y=[float(y) for y in data["calibration"]["y"]],
            accept_threshold=float(data["thresholds"]["accept"]),
            review_threshold=float(data["thresholds"]["review"]),
            capped_threshold=float(data["thresholds"]["capped"]) if "capped" in data["thresholds"] else None,
            lines_by_medium={
                medium: (float(t["accept"]), float(t["review"]), float(t["capped"]) if "capped" in t else None)
                for medium, t in sorted((data["thresholds"].get("by_medium") or {}).items())
            },
            meta={k: data.get(k) for k in ("training_data", "folds", "trained_on", "created_by")},
            platt=(float(data["calibration"]["a"]), float(data["calibration"]["b"]))
            if "a" in data["calibration"]
            else None,
        )

    def logit_of(self, feats: dict[str, float]) -> tuple[float, dict[str, float]]:
        contributions = {}
        total = self.intercept
        for name, value in feats.items():
            w = self.weights.get(bucket_of(name, self.bits))
            if w:
                contributions[name] = w * value
                total += w * value
        return total, contributions

    def calibrate(self, logit: float) -> float:
        """Platt scaling (a sigmoid of the logit) or an isotonic table, linear between its knots and flat outside:
        either way monotone in the logit."""
        xs, ys = self.calibration_x, self.calibration_y
        if not xs:
            a, b = self.platt or (1.0, 0.0)
            z = max(min(a * logit + b, 60.0), -60.0)
            return 1.0 / (1.0 + math.exp(-z))
        if logit <= xs[0]:
            return ys[0]
        if logit >= xs[-1]:
            return ys[-1]
        i = bisect_right(xs, logit)
        x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
        return y0 if x1 == x0 else y0 + (y1 - y0) * (logit - x0) / (x1 - x0)

    def predict(self, v: dict, *, top: int = 5, features: dict[str, float] | None = None) -> Prediction:
        """The prediction for a view ``v``; ``features``: its ``featurize(v)`` when the caller has it already."""
        logit, contributions = self.logit_of(features if features is not None else featurize(v))
        ok, reason = attribution_ok(v)
        attr = sum(c for n, c in contributions.items() if group_of(n) == "a")
        ranked = sorted(contributions.items(), key=lambda kv: (-abs(kv[1]), kv[0]))[:top]
        return Prediction(
            p=round(min(max(self.calibrate(logit), 0.0), 1.0), 4),
            logit=round(logit, 4),
            attribution_logit=round(attr, 4),
            attribution_ok=ok,
            attribution_reason=reason,
            top=[(n, round(c, 3)) for n, c in ranked],
        )


def load(path: Path | str | None = None) -> GateModel:
    """Read an artifact (JSON only: nothing is unpickled or executed)."""
    return GateModel.from_dict(json.loads(Path(path or ARTIFACT).read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def shipped() -> GateModel:
    """The artifact in the repository, read once per process."""
    return load(ARTIFACT)
