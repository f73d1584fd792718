"""Helpers shared by importers (pure): times, tolerant JSON Lines reading, file errors, role splitting."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from accounts.timestamps import parse_iso
from chats.pasted_text import split_pasted


def parse_time(value) -> datetime | None:
    """ISO-8601 strings (with Z), or Unix seconds as int/float; None when unreadable."""
    if value is None or value == "" or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(float(value), tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    try:
        return parse_iso(str(value))
    except ValueError:
        return None


class UnreadableFile(ValueError):
    """A file that cannot be read at all: names the file, line and column of the first problem."""

    def __init__(self, path: Path | str, line: int, column: int, message: str):
        self.path, self.line, self.column, self.message = str(path), line, column, message
        super().__init__(f"{self.path}:{line}:{column}: {message}")


@dataclass
class FileReport:
    """What one file gave: lines skipped, by reason (a tolerant reader never stops at one bad line)."""

    skipped: Counter = field(default_factory=Counter)

    def skip(self, reason: str, n: int = 1) -> None:
        self.skipped[reason] += n


def read_jsonl(path: Path, report: FileReport) -> Iterator[dict]:
    """Every JSON object line of ``path``; other lines are counted in ``report`` and skipped. A file in which
    no line is an object raises ``UnreadableFile`` at the first bad line (it is not JSON Lines at all)."""
    first_error: tuple[int, int, str] | None = None
    objects = 0
    try:
        fh = path.open(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UnreadableFile(path, 0, 0, exc.strerror or type(exc).__name__) from exc
    with fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except ValueError as exc:
                report.skip("not JSON")  # e.g. the half-written last line of a live session
                first_error = first_error or (n, getattr(exc, "colno", 1), getattr(exc, "msg", str(exc)))
                continue
            if not isinstance(rec, dict):
                report.skip(f"a JSON {type(rec).__name__}, not an object")
                first_error = first_error or (n, 1, f"a JSON {type(rec).__name__}, not an object")
                continue
            objects += 1
            yield rec
    if objects == 0 and first_error is not None:
        raise UnreadableFile(path, *first_error)


def load_json(path: Path):
    """The parsed JSON document, or ``UnreadableFile`` with the line and column of the syntax error."""
    try:
        raw = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UnreadableFile(path, 0, 0, exc.strerror or type(exc).__name__) from exc
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise UnreadableFile(path, exc.lineno, exc.colno, exc.msg) from exc


def file_tag(key: str) -> str:
    """A short stable tag of one file (its path or upload label): conversation ids are namespaced with it, so
    two files that reuse an id never replace each other's turns."""
    return hashlib.sha256(key.encode()).hexdigest()[:12]


# --- What the person typed vs what came with it -------------------------------------------------------------
# Harness-injected blocks are XML-ish tags around the text (<system-reminder>, <ide_selection>, <command-name>…);
# pasted material is fenced code or a block quote. These are structural markers of the formats, not word lists.
_TAGGED = re.compile(r"<([A-Za-z][\w-]*)(?:\s[^>]*)?>.*?</\1>", re.DOTALL)
_FENCE = re.compile(r"^(`{3,}|~{3,})[^\n]*\n.*?^\1[ \t]*$", re.DOTALL | re.MULTILINE)
_QUOTE = re.compile(r"(?:^>[^\n]*(?:\n|$))+", re.MULTILINE)
_INTERRUPT = re.compile(r"^\[Request interrupted by user[^\]]*\]\s*$", re.MULTILINE)


def _tag_kind(tag: str) -> str:
    tag = tag.lower()
    if "reminder" in tag or tag.startswith("system"):
        return "system_reminder"
    if tag.startswith("ide") or "context" in tag or "instructions" in tag:
        return "ide_context"
    if "stdout" in tag or "stderr" in tag or "output" in tag:
        return "command_output"
    if tag.startswith("command") or tag.startswith("bash") or tag.startswith("local-command"):
        return "command"
    return "injected"


# A value inside a harness block worth recognising again outside it: a path, an id, a file name.
_BLOCK_VALUE = re.compile(r"[\w.~-]*[/\\][\w./\\~-]{6,}|\b(?=[\w-]*\d)[\w-]{8,}\b")


def _harness_lines(text: str, blocks: list[str]) -> tuple[str, list[dict]]:
    """Lines that go on from a harness block (they repeat a path or id from inside it, like Claude Code's
    "Read the output file to retrieve the result: <the block's output file>"): the harness's, not the person's."""
    values = {v for b in blocks for v in _BLOCK_VALUE.findall(b)}
    if not values:
        return text, []
    kept, taken = [], []
    for line in text.split("\n"):
        (taken if any(v in line for v in values) else kept).append(line)
    return "\n".join(kept), [{"kind": "injected", "text": line.strip()[:4000]} for line in taken if line.strip()]


def split_typed(text: str) -> tuple[str, list[dict]]:
    """(the person's own words, [{kind, text}] for injected, pasted and quoted parts) of one user message."""
    extras: list[dict] = []

    def take(kind_of):
        def repl(m: re.Match) -> str:
            extras.append({"kind": kind_of(m), "text": m.group(0).strip()[:4000]})
            return "\n"

        return repl

    text = _TAGGED.sub(take(lambda m: _tag_kind(m.group(1))), text or "")
    text, follow = _harness_lines(text, [e["text"] for e in extras])
    extras += follow
    text = _INTERRUPT.sub(take(lambda m: "interrupt"), text)
    text = _FENCE.sub(take(lambda m: "pasted"), text)
    text = _QUOTE.sub(take(lambda m: "quoted"), text)
    text, pasted = split_pasted(text)
    extras += [{"kind": "pasted", "text": block[:4000]} for block in pasted]
    typed = re.sub(r"\n{3,}", "\n\n", text).strip()
    if typed.startswith("<") and typed.endswith(">"):  # an unclosed or unknown harness tag on its own
        extras.append({"kind": "injected", "text": typed[:4000]})
        typed = ""
    return typed, extras


_IDE_REQUEST = re.compile(r"^#{1,3} My request for [^\n]*:[ \t]*$", re.MULTILINE)


def split_ide_context(text: str) -> tuple[str, list[dict]]:
    """Codex editors put the IDE context (open tabs, files mentioned) before a "## My request for …:" heading;
    only what follows the last such heading is what the person typed."""
    marks = list(_IDE_REQUEST.finditer(text or ""))
    if not marks:
        return text, []
    head, typed = text[: marks[-1].start()], text[marks[-1].end() :]
    return typed.strip(), ([{"kind": "ide_context", "text": head.strip()[:4000]}] if head.strip() else [])
