"""Pasted code without a fence (``chats/pasted_text.py``): how often it is found, how often prose is taken for it.

    .venv/bin/python bench/pasted_code.py [--seed 7] [--files 60]

Code: a 5-line window of each of up to ``--files`` source files per language, read from other projects' files
on this machine (the installed Python packages and the system's own scripts and headers), put inside a
message ("Can you look at this?" … "Thanks"). Prose: Synthetic-Persona-Chat's training split (the conversational
prose of /work/shared/bench; a first utterance over 40 characters per row) and the first paragraph of other
projects' Markdown documentation. Nothing here is used to set the detector: its rules read the shape of a line.
"""

from __future__ import annotations

import argparse
import csv
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from chats.pasted_text import split_pasted  # noqa: E402  (pure module: no Django needed)

SITE = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
# (language, folders to walk, file suffix): other projects' files on this machine.
SOURCES = [("python", [SITE], ".py"), ("javascript", [SITE, Path("/usr/share")], ".js"), ("c", [Path("/usr/include")], ".h"),
           ("shell", [Path("/usr/share"), Path("/usr/lib")], ".sh"), ("perl", [Path("/usr/share/perl5"),
           Path("/usr/share/perl")], ".pm"), ("sql", [SITE, Path("/usr/share")], ".sql"), ("json", [SITE], ".json")]  # fmt: skip
PERSONA = Path("/work/shared/bench/persona-chat-train.csv")


def _files(folders: list[Path], suffix: str, rng: random.Random, limit: int) -> list[str]:
    """Up to ``limit`` files ending in ``suffix``, sampled from the first ``20 * limit`` found (walked lazily)."""
    import os

    found: list[str] = []
    for root in folders:
        for folder, _dirs, files in os.walk(root):
            found += [os.path.join(folder, f) for f in files if f.endswith(suffix)]
            if len(found) >= 20 * limit:
                break
    rng.shuffle(found)
    return found[:limit]


def code_windows(rng: random.Random, limit: int) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for lang, folders, suffix in SOURCES:
        for path in _files(folders, suffix, rng, limit):
            try:
                lines = Path(path).read_text(errors="replace").splitlines()
            except OSError:
                continue
            code = [ln for ln in lines if ln.strip() and not ln.strip().startswith(("#", "//", "/*", "*", '"""'))]
            if len(code) >= 8:
                start = rng.randrange(0, len(code) - 5)
                out.setdefault(lang, []).append("\n".join(code[start : start + 5]))
    return out


def prose(rng: random.Random, limit: int) -> dict[str, list[str]]:
    chat: list[str] = []
    if PERSONA.exists():
        with PERSONA.open(newline="") as fh:
            rows = list(csv.reader(fh))
        rng.shuffle(rows)
        chat = [next(c for c in row if len(c) > 40) for row in rows[:300] if any(len(c) > 40 for c in row)]
    docs = []
    for path in _files([SITE, Path("/usr/share/doc")], ".md", rng, limit * 4):
        for para in re.split(r"\n\s*\n", Path(path).read_text(errors="replace")):
            if len(para) > 80 and not para.lstrip().startswith(("#", "```", "|", "-", "*", "    ", ">", "<", "[", "!")):
                docs.append(para)
                break
    return {"conversational prose (persona chat)": chat, "documentation paragraphs": docs}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--files", type=int, default=60, help="source files per language")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for lang, windows in sorted(code_windows(rng, args.files).items()):
        found = sum(bool(split_pasted(f"Can you look at this?\n{w}\nThanks")[1]) for w in windows)
        print(f"code {lang:<11} found {found / len(windows):.2f} ({found}/{len(windows)})")
    for name, texts in prose(rng, args.files).items():
        flagged = sum(bool(split_pasted(t)[1]) for t in texts)
        print(f"{name:<38} flagged {flagged}/{len(texts)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
