"""``<private>…</private>`` spans: text a person marked as never to be stored, indexed, embedded or forwarded.

Every entry point (hooks, the memory proxy, the ingest API, MCP, importers) runs incoming text through
``strip_private`` before anything else sees it. The span is removed with its tags; an opening tag that is never
closed hides everything after it (the safe reading of a cut-off message), and a stray closing tag hides
everything before it. Tag matching ignores case and whitespace inside the tag (``< PRIVATE >``), because a
person typing the tag by hand should not have to spell it one exact way.

Only the number of spans removed leaves this module; the removed text is never returned, logged or counted by
length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_OPEN = re.compile(r"<\s*private\s*>", re.IGNORECASE)
_CLOSE = re.compile(r"<\s*/\s*private\s*>", re.IGNORECASE)
_ANY_TAG = re.compile(r"<\s*(/?)\s*private\s*>", re.IGNORECASE)


@dataclass(frozen=True)
class Stripped:
    """The text without its private spans, and how many spans were removed (0 when nothing was private)."""

    text: str
    removed: int


def strip_private(text: str | None) -> Stripped:
    """``text`` with every private span removed. Nested spans count once; see the module docstring for tags
    that do not pair up. Repeated until no tag is left, since the pieces around a removed span can join into a
    new tag ("<pri" + "vate>")."""
    text = text or ""
    removed = 0
    while _ANY_TAG.search(text):
        once = _strip_once(text)
        text, removed = once.text, removed + once.removed
    return Stripped(text, removed)


def _strip_once(text: str) -> Stripped:
    kept: list[str] = []
    depth = 0
    removed = 0
    position = 0
    for tag in _ANY_TAG.finditer(text):
        closing = bool(tag.group(1))
        if depth == 0:
            if closing:
                # A closing tag with no opening one: everything before it was meant to be private.
                kept.clear()
                removed += 1
            else:
                kept.append(text[position : tag.start()])
                depth = 1
        elif closing:
            depth -= 1
            if depth == 0:
                removed += 1
        else:
            depth += 1
        position = tag.end()
    if depth > 0:
        removed += 1  # never closed: the rest of the text stays hidden
    else:
        kept.append(text[position:])
    return Stripped(_join(kept).strip(), removed)


def has_private(text: str | None) -> bool:
    """True when ``text`` carries a private tag of either kind."""
    return bool(text) and bool(_ANY_TAG.search(text))


def _join(pieces: list[str]) -> str:
    """The kept pieces joined so that a removed span leaves one space, not two, inside a line; the pieces'
    own spacing (indented code, line breaks) stays as it was."""
    out = ""
    for piece in pieces:
        if out.endswith((" ", "\t")) and piece.startswith((" ", "\t")):
            piece = piece.lstrip(" \t")
        out += piece
    return out
