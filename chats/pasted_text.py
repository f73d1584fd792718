"""Code, logs and stack traces pasted into a message without a fence are not the person's own words.

``split_pasted`` finds them line by line from the shape of the text, not from any list of phrases: a line
looks like code or machine output when its punctuation is dense (brackets, operators, semicolons), when it
opens or closes a block, when it is a stack-trace frame, a log record or a shell prompt, or when it is
indented under such a line; prose is a run of ordinary words ending like a sentence. A block of two or more
such lines (blank lines inside allowed), or one long line that is plainly code, is pasted material; a single
short line ("why does foo() return None?") stays the person's words. Measured on lines from other projects'
source files and on conversational prose (``bench/pasted_code.py``, figures in docs/sources/chats.md).
"""

from __future__ import annotations

import re

_SYMBOLS = frozenset("{}[]();=<>|&*/\\$#@%^~`+")
_TRACE = re.compile(
    r'^\s*(?:File ".*", line \d+|at [\w$.<>/-]+ ?\(.*:\d+(?::\d+)?\)|Traceback \(most recent call last\)|'
    r"[A-Z]\w*(?:Error|Exception|Warning): |\w+(?:\.\w+)+:\d+(?::\d+)?: )"
)
_LOG = re.compile(
    r"^\s*\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d)?|^\s*\[?(?:DEBUG|INFO|WARN(?:ING)?|ERROR|FATAL)\]?[: ]"
)
_PROMPT = re.compile(r"^\s*(?:\$ |>>> |\.\.\. |PS [A-Z]:\\|[\w@.-]+:[~/][^\s]*[$#] )")
_OPENS_OR_CLOSES = re.compile(r"(?:[{(\[]|=>|->|:)\s*$|^\s*[}\])];?,?\s*$|;\s*$")
_CALL_OR_ACCESS = re.compile(r"[A-Za-z_]\w*(?:\.\w+)*\([^()]*\)|\w+\.\w+\.\w+|\w+(?:_\w+){2,}|[a-z]+[A-Z]\w*")
_WORD = re.compile(r"[A-Za-z][a-z']+")
MIN_LONG_LINE = 60


def _symbol_share(line: str) -> float:
    chars = [c for c in line if not c.isspace()]
    return sum(c in _SYMBOLS for c in chars) / len(chars) if chars else 0.0


def _odd_share(line: str) -> float:
    """The share of a line's tokens that are not plain words: identifiers, paths, flags, numbers, operators,
    words in capitals (SQL, constants)."""
    tokens = line.split()
    if not tokens:
        return 0.0
    odd = 0
    for token in tokens:
        bare = token.strip(".,;:!?\"'()")
        plain = bare.isalpha() and (bare.islower() or bare.istitle()) and len(bare) > 0
        odd += not plain or (bare.isupper() and len(bare) > 1)
    return odd / len(tokens)


def _is_prose(line: str) -> bool:
    words = _WORD.findall(line)
    stripped = line.strip()
    return len(words) >= 5 and _symbol_share(stripped) < 0.06 and not _OPENS_OR_CLOSES.search(stripped)


_INLINE_CODE = re.compile(r"`[^`\n]+`")
_LINK_TARGET = re.compile(r"\]\([^)\s]+\)")
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+(?=\S)")


def _as_written(line: str) -> str:
    """A line with the markup people write in prose neutralised: `inline code` is one word, a link keeps its
    text, a list bullet goes."""
    line = _INLINE_CODE.sub("code", line)
    line = _LINK_TARGET.sub("]", line)
    return _BULLET.sub(r"\1", line)


def code_score(line: str) -> float:
    """How much one line looks like code or machine output (0: prose or blank, 1: certainly not prose)."""
    if _TRACE.search(line) or _LOG.search(line) or _PROMPT.search(line):
        return 1.0
    line = _as_written(line)
    stripped = line.strip()
    if not stripped or _is_prose(line):
        return 0.0
    score = min(1.0, _symbol_share(stripped) * 4) + 0.5 * _odd_share(stripped)
    if _OPENS_OR_CLOSES.search(stripped):
        score += 0.4
    if _CALL_OR_ACCESS.search(stripped):
        score += 0.3
    if line[:1] in (" ", "\t") and len(line) - len(line.lstrip()) >= 2:
        score += 0.2
    if not _WORD.search(stripped):
        score += 0.3  # no ordinary word at all: numbers, symbols, identifiers
    return min(1.0, score)


CODE_LINE = 0.5  # a line at or above this score is code-like


def _indented(line: str) -> bool:
    """An indented line goes on with the code above it (a traceback's source line, a block's body)."""
    return bool(line.strip()) and len(line) - len(line.lstrip()) >= 2


def split_pasted(text: str) -> tuple[str, list[str]]:
    """(the text without pasted blocks, the blocks) of one message."""
    lines = (text or "").split("\n")
    scores = [code_score(line) for line in lines]
    pasted = [False] * len(lines)
    i = 0
    while i < len(lines):
        if scores[i] < CODE_LINE:
            i += 1
            continue
        j, code_lines, last = i, 0, i
        while j < len(lines) and (scores[j] >= CODE_LINE or not lines[j].strip() or _indented(lines[j])):
            if scores[j] >= CODE_LINE:
                code_lines += 1
            if lines[j].strip():
                last = j
            j += 1
        strong = code_lines == 1 and len(lines[i].strip()) >= MIN_LONG_LINE and scores[i] >= 0.9
        if code_lines >= 2 or strong:
            for k in range(i, last + 1):
                pasted[k] = True
        i = last + 1
    blocks: list[str] = []
    kept: list[str] = []
    current: list[str] = []
    for line, is_pasted in zip(lines, pasted, strict=True):
        if is_pasted:
            current.append(line)
            continue
        if current:
            blocks.append("\n".join(current).strip("\n"))
            current = []
        kept.append(line)
    if current:
        blocks.append("\n".join(current).strip("\n"))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip(), blocks
