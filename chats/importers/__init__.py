"""Importers: each format turns files into ``SessionIn``s; ``chats.services.imports`` stores and distils them.

FORMATS["claude-code"].files(root) -> [Path]                    # which files under PATH are sessions of this format
FORMATS["claude-code"].parse(path, report) -> [SessionIn]       # report: lines skipped, by reason
detect(path) -> "codex" | … | None                              # which format a file looks like (for hints)
detect_tree(folder) -> "claude-code" | … | None                 # what most files under a folder look like
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from chats.importers import claude_code, codex, exports
from chats.importers.base import FileReport, UnreadableFile
from chats.text import SessionIn

__all__ = ["FORMATS", "FileReport", "UnreadableFile", "detect", "detect_tree"]


def _same_file(path: Path, session: SessionIn) -> Path:
    return path


@dataclass(frozen=True)
class Format:
    name: str
    files: Callable[[Path], list[Path]]
    parse: Callable[..., list[SessionIn]]
    tag_path: Callable[[Path, SessionIn], Path] = _same_file  # the file a session's id is namespaced by


def _json_files(root: Path) -> list[Path]:
    return [root] if root.is_file() else sorted(root.rglob("*.json"))


FORMATS: dict[str, Format] = {
    "claude-code": Format("claude-code", claude_code.session_files, claude_code.parse_file, claude_code.tag_path),
    "codex": Format("codex", codex.session_files, codex.parse_file),
    "openai": Format("openai", _json_files, exports.parse_openai),
    "anthropic": Format("anthropic", _json_files, exports.parse_anthropic),
    "gemini": Format("gemini", _json_files, exports.parse_gemini),
}


def _jsonl_kind(lines: list[dict]) -> str | None:
    for rec in lines:
        if isinstance(rec.get("payload"), dict) and rec.get("type") in ("session_meta", "response_item", "event_msg",
                                                                       "turn_context"):  # fmt: skip
            return "codex"
        if rec.get("sessionId") or rec.get("type") in ("user", "assistant", "summary", "queue-operation"):
            return "claude-code"
    return None


def _json_kind(doc) -> str | None:
    first = doc[0] if isinstance(doc, list) and doc else doc
    if not isinstance(first, dict):
        return None
    if "mapping" in first:
        return "openai"
    if "chat_messages" in first:
        return "anthropic"
    if "contents" in first or "safeHtmlItem" in first or first.get("header") == "Gemini Apps":
        return "gemini"
    if isinstance(first.get("messages"), list):
        blocks = [b for m in first["messages"] if isinstance(m, dict) and isinstance(m.get("content"), list)
                  for b in m["content"] if isinstance(b, dict)]  # fmt: skip
        anthropic = "system" in first or any(b.get("type") in ("tool_use", "tool_result") for b in blocks)
        return "anthropic" if anthropic else "openai"
    return None


def _candidates(root: Path, limit: int):
    """Up to ``limit`` session-like files under ``root`` (``.jsonl`` first, then ``.json``), skipping hidden
    folders; walked lazily, so a large ``~/.claude/projects`` is not listed in full to guess its format."""
    import os

    seen = 0
    for suffix in (".jsonl", ".json"):
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                if name.endswith(suffix) and not name.endswith(".meta.json"):
                    yield Path(folder) / name
                    seen += 1
                    if seen >= limit:
                        return


def detect_tree(root: Path, sample: int = 25) -> str | None:
    """The format most of the files under a folder look like (``~/.claude/projects``, ``~/.codex/sessions``,
    an unpacked export); None when none of the first ``sample`` files fits a known format."""
    if root.is_file():
        return detect(root)
    votes: dict[str, int] = {}
    for path in _candidates(root, sample):
        kind = detect(path)
        if kind:
            votes[kind] = votes.get(kind, 0) + 1
    return max(votes, key=votes.get) if votes else None


def detect(path: Path) -> str | None:
    """The format ``path`` (a file) looks like, from its first records; None when it fits none."""
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:2_000_000]
    except OSError:
        return None
    try:
        return _json_kind(json.loads(head))
    except ValueError:
        pass
    lines = []
    for line in head.splitlines()[:200]:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict):
            lines.append(rec)
    return _jsonl_kind(lines)
