"""What the gate's code and tests share with the development data: people's names and sentences.

    python bench/development_overlap.py [--paths distill tests/distill] [--threshold 0.8]

1. **Names**: every person's name the development sets hold (the labelled days' wearers, speakers, ``who`` and
   ``false_who``, the PERSON entities of their facts and traps; LoCoMo's speakers and the PERSON entities of its
   observations; the persona chats' speaker names the bench gives them), found as a whole word in any file
   under ``--paths`` (code, comments, tests, written training days). Names that are also everyday English words
   ("May", "Will", "Rose") are reported apart, with their line, for a person to judge.
2. **Sentences**: every string of four words or more in a test module (``test_*.py`` under ``--paths``), and every
   utterance of eight words or more of a day written for training (``*.day``, ``bench/written_days.py``), against
   every development utterance (the days' turns, LoCoMo's turns, the persona chats' lines): the same words
   (normalised), or a token Jaccard of ``--threshold`` or more.

Exits 1 when a name that is no English word, or a sentence, is found (0 otherwise), so it can guard a change.
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.gate_data import DAYS_DIR, LOCOMO_PATH, PERSONA_NAMES, PERSONA_PATH, _setup  # noqa: E402

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def _tokens(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def development_names() -> set[str]:
    """Single name words (first names, surnames, nicknames) of the people in the development sets."""
    _setup()
    from distill.extraction import nlp

    names: set[str] = set(PERSONA_NAMES)
    texts: list[str] = []
    for path in sorted(DAYS_DIR.glob("*.json")):
        day = json.loads(path.read_text())
        names |= set(day["wearer"].split())
        for rec in day["recordings"]:
            for conv in rec["conversations"]:
                names |= {u["speaker"] for u in conv["utterances"] if u["speaker"][:1].isupper()}
        for item in day["gold_facts"] + day["traps"] + day.get("also_true", []):
            for key in ("who", "false_who"):
                names |= {w for w in _WORD.findall(item.get(key) or "") if w[:1].isupper()}
            texts += [item.get("fact") or "", item.get("false_claim") or "", item.get("text") or ""]
    locomo = json.loads(LOCOMO_PATH.read_text())
    for sample in locomo:
        conv = sample["conversation"]
        names |= {conv.get("speaker_a", ""), conv.get("speaker_b", "")}
        for session in (sample.get("observation") or {}).values():
            for items in (session or {}).values():
                texts += [o[0] if isinstance(o, list) else str(o) for o in items]
    for doc in nlp.parse_with_entities([t for t in texts if t]):
        names |= {w for e in doc.ents if e.label_ == "PERSON" for w in _WORD.findall(e.text) if w[:1].isupper()}
    # Titles and a device's speaker labels ("SPEAKER_01") name nobody.
    titles = {"Dr", "Mr", "Mrs", "Ms", "Miss", "St", "Fr", "Prof", "Unknown", "User", "Speaker"}
    titles |= {"Canada", "Physio", "Yaris"}  # a country, a job and a car the recogniser took for people in the facts
    return {n for n in names if len(n) > 1 and n not in titles and not re.search(r"[\d_]", n)}


def development_utterances() -> list[str]:
    out: list[str] = []
    for path in sorted(DAYS_DIR.glob("*.json")):
        day = json.loads(path.read_text())
        out += [u["text"] for rec in day["recordings"] for c in rec["conversations"] for u in c["utterances"]]
    for sample in json.loads(LOCOMO_PATH.read_text()):
        for key, session in sample["conversation"].items():
            if key.startswith("session_") and isinstance(session, list):
                out += [t.get("text", "") for t in session]
    with PERSONA_PATH.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            for line in (row.get("Best Generated Conversation") or "").splitlines():
                out.append(line.split(":", 1)[-1])
    return [u for u in out if len(_tokens(u)) >= 4]


def _english_word(word: str) -> bool:
    from accounts.wordforms import lemmas_of

    return bool(lemmas_of(word.lower()))


def find_names(paths: list[Path], names: set[str]) -> tuple[list[str], list[str]]:
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, names), key=len, reverse=True)) + r")\b")
    found, words = [], []
    for path in paths:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in pattern.finditer(line):
                entry = f"{path.relative_to(ROOT)}:{n}: {m.group(1)}: {line.strip()[:110]}"
                (words if _english_word(m.group(1)) else found).append(entry)
    return found, words


def test_strings(path: Path) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(_tokens(node.value)) >= 4:
            out.append((node.lineno, node.value))
    return out


def day_lines(path: Path) -> list[tuple[int, str]]:
    """The utterances of a written training day (``bench/written_days.py``), with their line numbers."""
    from bench.written_days import parse

    return [(u.number, u.text) for c in parse(path.read_text(encoding="utf-8")).conversations for u in c.lines]


def strings_of(path: Path) -> list[tuple[int, str]]:
    """What a file says that must not come from a development file: a test's strings, a written day's talk."""
    if path.suffix == ".day":  # everyday talk shares short lines ("how are you doing today"): eight words or more
        return [(n, t) for n, t in day_lines(path) if len(_tokens(t)) >= 8]
    return test_strings(path) if path.name.startswith("test_") else []


def find_sentences(paths: list[Path], utterances: list[str], threshold: float) -> list[str]:
    said = {" ".join(_tokens(u)) for u in utterances}
    sets = [(u, set(_tokens(u))) for u in utterances]
    index: dict[str, list[int]] = {}
    for k, (_, toks) in enumerate(sets):
        for t in toks:
            index.setdefault(t, []).append(k)
    found = []
    for path in paths:
        for line, text in strings_of(path):
            norm = " ".join(_tokens(text))
            mine = set(_tokens(text))
            if norm in said or any(norm in s for s in said if len(norm) > 30 and len(s) >= len(norm)):
                found.append(f"{path.relative_to(ROOT)}:{line}: verbatim: {text[:100]!r}")
                continue
            rare = min(mine, key=lambda t: len(index.get(t, ())), default="")
            for k in index.get(rare, ()):
                theirs = sets[k][1]
                if len(mine & theirs) / len(mine | theirs) >= threshold:
                    found.append(f"{path.relative_to(ROOT)}:{line}: {text[:80]!r} ~ {sets[k][0][:80]!r}")
                    break
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", nargs="*", default=["distill", "tests/distill", "bench/data/written-days"])
    parser.add_argument("--threshold", type=float, default=0.8)
    args = parser.parse_args(argv)
    try:
        names, utterances = development_names(), development_utterances()
    except (OSError, ValueError, KeyError) as exc:
        print(f"error: cannot read the development data: {exc}", file=sys.stderr)
        return 2
    files = sorted({f for p in args.paths for pattern in ("*.py", "*.day") for f in (ROOT / p).rglob(pattern)})
    found, words = find_names(files, names)
    sentences = find_sentences(files, utterances, args.threshold)
    print(f"{len(names)} development names, {len(utterances)} development utterances, {len(files)} files")
    print(f"\nNames ({len(found)}):")
    print("\n".join(f" - {f}" for f in found))
    print(f"\nNames that are also English words, to judge ({len(words)}):")
    print("\n".join(f" - {w}" for w in words))
    print(f"\nTest sentences said in a development file ({len(sentences)}):")
    print("\n".join(f" - {s}" for s in sentences))
    return 1 if found or sentences else 0


if __name__ == "__main__":
    raise SystemExit(main())
