"""Turns labelled from the sets' own turn marks, for the trust gate's turn reader (``bench/train_turn_model.py``).

Every labelled set marks the turns that state each fact, so the label is read off the turn, never matched to a
rewritten claim:

- **days** (labeled wearable days): a turn is positive when it is the evidence of a gold fact, negative when it
  is the evidence of a trap or of nothing, neutral (not trained on) when it is only the evidence of an
  ``also_true`` item. Evidence indices point into the device's raw utterances; the transcript pipeline
  (off-the-record elision, cleanup, redaction) runs first, as in the product, and a raw utterance maps to the
  cleaned turn that starts at or before it and shares its words (an elided one maps to nothing). Group = the
  wearer (leave one wearer out).
- **persona** (Synthetic-Persona-Chat validation split, the first ``PERSONA_CONVERSATIONS``: all 1,000 since
  2026-12-07, 300 before): a turn is positive when it voices a persona line of its own speaker
  (``gate_data.voiced``: the reference matcher, containment ≥ 0.5); every other turn is an *unlabelled*
  negative, weighted ``PERSONA_UNLABELLED_WEIGHT`` (persona lists cover a fraction of what the generated speakers
  say about themselves). Group = the conversation.
- **locomo** (conv-26/30): a turn is positive when an observation rests on it. Measured only, never trained on
  (CC BY-NC). Group = the conversation.

Each turn is masked (``distill.masking``) and read by the turn reader's encoder; the vectors are cached under
``var/turn_cache`` keyed by the data, the masking code and the encoder graph.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import gate_data  # noqa: E402

CACHE_DIR = ROOT / "var" / "turn_cache"
PERSONA_CONVERSATIONS = 1000  # every conversation given (about 28,000 turns; the first 300 until 2026-12-07)
PERSONA_UNLABELLED_WEIGHT = 0.3


def _dt(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _overlap(a: str, b: str) -> float:
    wa, wb = set(re.findall(r"[a-z0-9]+", a.lower())), set(re.findall(r"[a-z0-9]+", b.lower()))
    return len(wa & wb) / max(len(wa), 1)


def _turn_rows(day_input, *, group: str, conv_prefix: str, owner_name: str) -> list[dict]:
    """One row per turn of a DayInput: its conversation, index, speaker role and text (masked later)."""
    rows = []
    for conv in day_input.conversations:
        for pos, t in enumerate(conv.turns):
            rows.append(
                {
                    "group": group,
                    "conversation": f"{conv_prefix}:{conv.external_id}",
                    "index": t.index,
                    "position": pos,
                    "speaker": t.speaker_name,
                    "is_owner": bool(t.is_owner),
                    "owner_confidence": float(conv.owner_confidence),
                    "text": t.text,
                    "started_at": t.started_at.isoformat() if t.started_at else "",
                    "owner_name": owner_name,
                    "label": 0,
                    "weight": 1.0,
                    "why": "",
                }
            )
    return rows


def build_days() -> list[dict]:
    gate_data._setup()
    from bench import extraction as xb

    out = []
    for day in gate_data.training_days():
        raw = {(rec["source"], c["id"]): c["utterances"] for rec in day["recordings"] for c in rec["conversations"]}
        for source, day_input in sorted(xb.day_inputs(day).items()):
            rows = _turn_rows(
                day_input,
                group=f"days:{day['wearer']}",
                conv_prefix=f"{day['date']}:{source}",
                owner_name=day["wearer"],
            )
            for r in rows:
                r |= {"set": "days", "day": day["date"], "source": source}
            by_conv: dict[str, list[dict]] = {}
            for r in rows:
                by_conv.setdefault(r["conversation"].rsplit(":", 1)[1], []).append(r)

            def turn_of(ev: dict, source=source, by_conv=by_conv, raw=raw):
                if ev["source"] != source:
                    return None
                utts = raw.get((source, ev["conversation"]), [])
                if ev["utterance_index"] >= len(utts):
                    return None
                u = utts[ev["utterance_index"]]
                start = _dt(u["start"])
                before = [
                    r for r in by_conv.get(ev["conversation"], []) if r["started_at"] and _dt(r["started_at"]) <= start
                ]
                if not before:
                    return None
                r = max(before, key=lambda r: r["started_at"])
                return r if _overlap(u["text"], r["text"]) >= 0.3 else None

            marks = [("gold", f) for f in day["gold_facts"]] + [("trap", t) for t in day["traps"]]
            marks += [("also", a) for a in day.get("also_true", [])]
            for kind, item in marks:
                for ev in item.get("evidence", []):
                    r = turn_of(ev)
                    if r is None:
                        continue
                    if kind == "gold":
                        r["label"], r["why"] = 1, f"gold:{item['id']}:{item['about']}"
                    elif kind == "trap" and r["label"] != 1:
                        r["why"] = f"trap:{item['id']}"
                    elif kind == "also" and r["label"] != 1 and not r["why"].startswith("trap"):
                        r["label"], r["why"] = None, f"also:{item['id']}"
            out += rows
    return out


def build_persona() -> list[dict]:
    gate_data._setup()
    out = []
    for conv in gate_data.persona_rows()[:PERSONA_CONVERSATIONS]:
        group = f"persona:{conv['index']:04d}"
        voiced = {}
        for g in gate_data.voiced(conv):
            for i in g["turns"]:
                voiced[i] = g["id"]
        for i, (who, text) in enumerate(conv["turns"]):
            label = 1 if i in voiced else 0
            out.append(
                {
                    "set": "persona",
                    "group": group,
                    "conversation": group,
                    "index": i,
                    "position": i,
                    "speaker": who,
                    "is_owner": who == gate_data.PERSONA_NAMES[0],
                    "owner_confidence": 1.0,
                    "text": text,
                    "started_at": "",
                    "owner_name": gate_data.PERSONA_NAMES[0],
                    "label": label,
                    "weight": 1.0 if label else PERSONA_UNLABELLED_WEIGHT,
                    "why": f"persona:{voiced[i]}" if label else "",
                }
            )
    return out


def build_locomo() -> list[dict]:
    gate_data._setup()
    from bench import extraction_locomo as xl

    data = json.loads(gate_data.LOCOMO_PATH.read_text())
    obs_turns = {(o["sample_id"], ref) for o in xl.observations(data) for ref in o["dia_ids"]}
    out = []
    for s in xl.load_sessions(data):
        rows = _turn_rows(
            xl.session_input(s),
            group=f"locomo:{s.sample_id}",
            conv_prefix=f"{s.sample_id}:{s.number:02d}",
            owner_name=s.owner,
        )
        for r, t in zip(rows, s.turns, strict=True):
            r |= {"set": "locomo", "session": s.number, "sample_id": s.sample_id, "dia_id": t["dia_id"]}
            r["label"] = 1 if (s.sample_id, t["dia_id"]) in obs_turns else 0
        out += rows
    return out


BUILDERS = {"days": build_days, "persona": build_persona, "locomo": build_locomo}


def mask_rows(rows: list[dict]) -> None:
    """``masked``: each turn's text with people, places and organisations replaced (``distill.masking``)."""
    from distill.masking import mask_conversation

    by_conv: dict[str, list[dict]] = {}
    for r in rows:
        by_conv.setdefault(r["conversation"], []).append(r)
    for conv_rows in by_conv.values():
        speakers = sorted({r["speaker"] for r in conv_rows if not r["is_owner"]})
        masked = mask_conversation(
            [r["text"] for r in conv_rows], owner_name=conv_rows[0]["owner_name"], speaker_names=speakers
        )
        for r, m in zip(conv_rows, masked, strict=True):
            r["masked"] = m


def code_hash() -> str:
    """What the cached vectors depend on: the masking, the encoder graphs and what the encoder reads of a turn
    (this module's labelling is cheap and rebuilt from the cached rows' sources only when the data change)."""
    import inspect

    from distill import turn_reader

    h = hashlib.sha256((ROOT / "distill" / "masking.py").read_bytes())
    h.update(inspect.getsource(turn_reader.turn_input).encode())
    h.update(str(turn_reader.MAX_TOKENS).encode())
    for f in sorted((ROOT / "ledger" / "recall" / "data").glob("*.onnx")):
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


def load(name: str, *, refresh: bool = False) -> tuple[list[dict], object]:
    """(rows, vectors): one set's labelled, masked turns and the turn reader's encoder vectors of them."""
    import numpy as np

    from distill import turn_reader

    paths = {
        "days": (gate_data.DAYS_DIR, gate_data.WRITTEN_DIR),
        "persona": (gate_data.PERSONA_PATH,),
        "locomo": (gate_data.LOCOMO_PATH,),
    }
    part = f"persona-{PERSONA_CONVERSATIONS}" if name == "persona" else name
    key = f"{part}-{gate_data._file_hash(*paths[name])}-{code_hash()}"
    rows_path, vec_path = CACHE_DIR / f"{key}.json", CACHE_DIR / f"{key}.npy"
    if rows_path.exists() and vec_path.exists() and not refresh:
        return json.loads(rows_path.read_text()), np.load(vec_path)
    rows = BUILDERS[name]()
    mask_rows(rows)
    vectors = turn_reader.encode_turns([turn_reader.turn_input(r["masked"], r["is_owner"]) for r in rows])
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    rows_path.write_text(json.dumps(rows, sort_keys=True))
    np.save(vec_path, vectors)
    return rows, vectors


def claim_pairs(records: list[dict], turns: list[dict], row_of: list[int], *, refresh: bool = False):
    """Vectors of every candidate claim read after its masked turn (``distill.turn_reader.encode_claims``), the
    claim masked like its conversation (``distill.masking``). Cached by the claims, their turns and the code."""
    import numpy as np

    from distill import turn_reader
    from distill.masking import mask_conversation

    h = hashlib.sha256(code_hash().encode())
    h.update(str(turn_reader.CLAIM_TOKENS).encode())
    for r, i in zip(records, row_of, strict=True):
        h.update(f"{r['content']}\x00{turns[i]['masked']}\x00".encode())
    path = CACHE_DIR / f"claims-{h.hexdigest()[:16]}.npy"
    if path.exists() and not refresh:
        return np.load(path)
    pairs = []
    for r, i in zip(records, row_of, strict=True):
        t = turns[i]
        speakers = [t["speaker"]] if not t["is_owner"] else []
        (claim,) = mask_conversation([r["content"]], owner_name=t["owner_name"], speaker_names=speakers)
        pairs.append((turn_reader.turn_input(t["masked"], t["is_owner"]), claim))
    vectors = turn_reader.encode_claims(pairs)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def persona_candidates(*, refresh: bool = False) -> dict:
    """``gate_data.build_persona`` on the conversations read here only (the first ``PERSONA_CONVERSATIONS``),
    cached beside the turns: the extractor's pass over all 1,000 costs a quarter of an hour on shared cores. When
    every conversation is read, it is ``gate_data``'s own cache of the set."""
    if PERSONA_CONVERSATIONS >= len(gate_data.persona_rows()):
        return gate_data.load("persona", refresh=refresh)
    key = f"persona-candidates-{PERSONA_CONVERSATIONS}-{gate_data.extractor_key()}-{gate_data._file_hash(gate_data.PERSONA_PATH)}-{gate_data.code_hash()}"
    path = CACHE_DIR / f"{key}.json"
    if path.exists() and not refresh:
        return json.loads(path.read_text())
    every = gate_data.persona_rows
    try:
        gate_data.persona_rows = lambda path=gate_data.PERSONA_PATH: every(path)[:PERSONA_CONVERSATIONS]
        data = gate_data.build_persona()
    finally:
        gate_data.persona_rows = every
    data["key"] = key
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, sort_keys=True, default=str))
    return data


if __name__ == "__main__":
    import time

    if "persona-candidates" in sys.argv:
        d = persona_candidates()
        print("persona candidates", len(d["records"]))
        raise SystemExit(0)
    for name in sys.argv[1:] or list(BUILDERS):
        t = time.perf_counter()
        rows, vec = load(name, refresh="--refresh" in sys.argv)
        labels = [r["label"] for r in rows]
        print(
            name,
            len(rows),
            "pos",
            labels.count(1),
            "neg",
            labels.count(0),
            "neutral",
            labels.count(None),
            vec.shape,
            f"{time.perf_counter() - t:.0f}s",
        )
