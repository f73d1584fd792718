"""Reading a session (pure, no database): the session digest and its correction/error/surprise/environment moments.

The deterministic reader works on any conversation between a person and an agent. Its cues are general
conversational markers (negation at the start of a reply right after the agent spoke, "I meant", a refused or
interrupted tool call; error classes in tool output; stated surprise), not phrases from any data set.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from chats.text import content_words, first_sentence, sentences

PERSON_ROLES = ("user", "person")


@dataclass
class Moment:
    """A correction, error, surprise or environment observation read from one place in a session."""

    kind: str  # correction | error | surprise | environment
    lesson: str  # the lesson text this moment would teach
    quote: str  # what was said or printed
    turn_index: int
    signature: str = ""  # for errors: the error class (what "recurs" means)


@dataclass
class Digest:
    title: str
    gist: str
    topics: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    action_items: list[str] = field(default_factory=list)
    moments: list[Moment] = field(default_factory=list)


# A reply that opens by rejecting what the agent just did or said.
_CORRECTION_OPEN = re.compile(
    r"^\s*(?:no\b[,.!]?|nope\b|wrong\b|not (?:that|this|like that)\b|that'?s (?:not|wrong|incorrect)\b|"
    r"(?:actually|wait)\s*[,:]\s*(?:no\b|use|it|we|i|don'?t|do not)|stop\b|don'?t\b|do not\b|never\b|undo\b)",
    re.IGNORECASE,
)
_CORRECTION_ANY = re.compile(
    r"\b(?:i meant|i said|i asked for|you (?:misunderstood|forgot|broke|deleted)|instead of|rather than|"
    r"should(?: have)? (?:use|used|be|been)|please don'?t|we don'?t use|we always use|we never)\b",
    re.IGNORECASE,
)
_REFUSED_TOOL = re.compile(
    r"(?:user (?:doesn'?t want|rejected|denied|declined)|request interrupted by user|permission denied by user|"
    r"tool use was rejected)",
    re.IGNORECASE,
)
_ERROR_CLASS = re.compile(
    r"\b([A-Z][A-Za-z]+(?:Error|Exception))\b|(command not found)|(no such file or directory)|"
    r"(permission denied)|(connection refused)|(exit (?:code|status) [1-9]\d*)|(timed? ?out)",
    re.IGNORECASE,
)
_SURPRISE = re.compile(
    r"\b(?:surprising(?:ly)?|turns out|it turns out|i didn'?t (?:know|expect|realise|realize)|unexpected(?:ly)?|"
    r"til\b|who knew|interesting(?:ly)?, )",
    re.IGNORECASE,
)
_DECISION = re.compile(
    r"\b(?:let'?s|we(?:'ll| will) (?:go with|use)|decided|go with|settle on|we should use|i'?ll use|agreed)\b",
    re.IGNORECASE,
)
_ACTION = re.compile(
    r"\b(?:todo|to do:|need to|needs to|remember to|next step|follow up|don'?t forget|later we|tomorrow)\b",
    re.IGNORECASE,
)
_ENVIRONMENT = re.compile(
    r"\b(?:(?:python|node|ruby|go|java|postgres(?:ql)?|django)\s+v?\d+(?:\.\d+)*|"
    r"(?:on|using|runs? on) (?:macos|linux|windows|ubuntu|debian|wsl)|(?:use|uses|using) (?:pnpm|yarn|npm|uv|poetry|pip|bun))\b",
    re.IGNORECASE,
)
_ENTITY = re.compile(
    r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)\b|`([^`\n]{2,60})`|(\b[\w\-/]+\.(?:py|js|ts|tsx|md|json|toml|yml|yaml|sql|html|css|go|rs)\b)"
)
_LEAD = re.compile(r"^\s*(?:no|nope|wrong|actually|wait|hmm|ugh|sorry)\b[\s,.!:;-]*", re.IGNORECASE)


def _lesson_from_correction(text: str) -> str:
    """The corrective sentence, without its leading "no," ("No, use pnpm here." → "Use pnpm here.")."""
    for s in sentences(text):
        stripped = _LEAD.sub("", s).strip()
        if len(content_words(stripped)) >= 2:
            return stripped[:1].upper() + stripped[1:]
    return first_sentence(text)


def _tool_moments(turn) -> list[Moment]:
    out = []
    for call in turn.tool_calls or []:
        result = str(call.get("result") or "")
        name = call.get("name") or "tool"
        if _REFUSED_TOOL.search(result):
            what = _describe_call(call)
            out.append(
                Moment(
                    "correction", f"The person refused {what}; ask before doing that again.", result[:300], turn.index
                )
            )
        elif call.get("is_error"):
            m = _ERROR_CLASS.search(result)
            if m:
                sig = next(g for g in m.groups() if g).lower()
                sig = re.sub(r"\d+", "N", sig)
                out.append(
                    Moment(
                        "error",
                        f"{name} failed with {sig}: check for it before running {name} again.",
                        result[:300],
                        turn.index,
                        signature=f"{name}:{sig}",
                    )
                )
    return out


def _describe_call(call: dict) -> str:
    name = call.get("name") or "a tool call"
    inp = call.get("input") or {}
    detail = inp.get("command") or inp.get("file_path") or inp.get("path") if isinstance(inp, dict) else ""
    return f"{name} `{str(detail)[:80]}`" if detail else name


def find_moments(turns) -> list[Moment]:
    """Corrections (a person pushing back right after the agent, refused tool calls), error classes, surprises."""
    moments: list[Moment] = []
    previous_role = ""
    for t in turns:
        text = t.text or ""
        if t.role in PERSON_ROLES and previous_role == "assistant" and text.strip():
            if _CORRECTION_OPEN.search(text) or _CORRECTION_ANY.search(text):
                moments.append(Moment("correction", _lesson_from_correction(text), text[:300], t.index))
        if text and _SURPRISE.search(text):
            s = next((s for s in sentences(text) if _SURPRISE.search(s)), text)
            moments.append(
                Moment("surprise", s[:240], s[:300], t.index, signature=" ".join(sorted(set(content_words(s)))[:6]))
            )
        if t.role in PERSON_ROLES and text and _ENVIRONMENT.search(text):
            s = next((s for s in sentences(text) if _ENVIRONMENT.search(s)), text)
            moments.append(Moment("environment", s[:240], s[:300], t.index))
        moments.extend(_tool_moments(t))
        if t.role in ("user", "person", "assistant"):
            previous_role = t.role if text.strip() or t.tool_calls else previous_role
    return moments


def _topics(turns, limit: int = 5) -> list[str]:
    counts: Counter[str] = Counter()
    for t in turns:
        if t.role in ("user", "person", "assistant"):
            counts.update(w for w in content_words(t.text) if len(w) >= 4)
    return [w for w, n in counts.most_common(limit) if n >= 2] or [w for w, _ in counts.most_common(min(3, limit))]


def _entities(turns, limit: int = 8) -> list[str]:
    seen: dict[str, None] = {}
    for t in turns:
        for m in _ENTITY.finditer(t.text or ""):
            value = next(g for g in m.groups() if g).strip()
            if value and value.lower() not in (k.lower() for k in seen):
                seen[value] = None
        for call in t.tool_calls or []:
            if call.get("name"):
                seen.setdefault(call["name"], None)
    return list(seen)[:limit]


def _matching(turns, pattern: re.Pattern, limit: int = 5) -> list[str]:
    out: list[str] = []
    for t in turns:
        if t.role not in ("user", "person", "assistant"):
            continue
        for s in sentences(t.text):
            if pattern.search(s) and s not in out and len(s) <= 300:
                out.append(s)
    return out[:limit]


def digest(turns, *, title: str = "") -> Digest:
    """The deterministic session digest: title, gist, topics, entities, decisions, action items, moments."""
    people = [t for t in turns if t.role in PERSON_ROLES and (t.text or "").strip()]
    agents = [t for t in turns if t.role == "assistant" and (t.text or "").strip()]
    ask = first_sentence(people[0].text, 200) if people else ""
    outcome = first_sentence(agents[-1].text, 200) if agents else ""
    gist = " ".join(p for p in (f"Asked: {ask}" if ask else "", f"Outcome: {outcome}" if outcome else "") if p)
    return Digest(
        title=(title or first_sentence(ask or outcome, 80) or "Conversation")[:300],
        gist=gist or "(no text)",
        topics=_topics(turns),
        entities=_entities(turns),
        decisions=_matching(turns, _DECISION),
        action_items=_matching(turns, _ACTION),
        moments=find_moments(turns),
    )
