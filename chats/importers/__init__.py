"""Importers: each format turns files into ``SessionIn``s; ``chats.services.imports`` stores and distils them.

FORMATS["claude-code"].files(root) -> [Path]      # which files under PATH are sessions of this format
FORMATS["claude-code"].parse(path) -> [SessionIn]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from chats.importers import claude_code, codex, exports
from chats.text import SessionIn


@dataclass(frozen=True)
class Format:
    name: str
    files: Callable[[Path], list[Path]]
    parse: Callable[[Path], list[SessionIn]]


def _json_files(root: Path) -> list[Path]:
    return [root] if root.is_file() else sorted(root.rglob("*.json"))


FORMATS: dict[str, Format] = {
    "claude-code": Format("claude-code", claude_code.session_files, claude_code.parse_file),
    "codex": Format("codex", codex.session_files, codex.parse_file),
    "openai": Format("openai", _json_files, exports.parse_openai),
    "anthropic": Format("anthropic", _json_files, exports.parse_anthropic),
    "gemini": Format("gemini", _json_files, exports.parse_gemini),
}
