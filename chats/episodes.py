"""Reading a session (pure, no database): the session digest and its correction/error/surprise/environment moments.

The deterministic reader works on any conversation between a person and an agent. Its cues are general
conversational markers (negation at the start of a reply right after the agent spoke, "I meant", a refused or
interrupted tool call; error classes in tool output; stated surprise), not phrases from any data set.
"""

from __future__ import annotations

import json
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


# A reply that opens by rejecting or redirecting what the agent just did or said (its first words only).
_CORRECTION_OPEN = re.compile(
    r"^\s*(?:no\b[,.!]?|nope\b|wrong\b|not (?:that|this|like that)\b|that'?s (?:not|wrong|incorrect)\b|"
    r"(?:actually|wait)\s*[,:]\s*(?:no\b|use|it|we|i|don'?t|do not)|stop\b|don'?t\b|do not\b|never\b|undo\b|"
    r"i (?:meant|said|asked for)\b|you (?:misunderstood|forgot|broke|deleted)\b|please don'?t\b|revert\b)",
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
_LEAD = re.compile(r"^\s*(?:no|nope|wrong|actually|wait|hmm|ugh|sorry|hold)\b[\s,.!:;-]*", re.IGNORECASE)
_ENV_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*$")


def _lesson_from_correction(text: str) -> str:
    """The corrective sentence, without its leading "no," ("No, use pnpm here." → "Use pnpm here.")."""
    for s in sentences(text):
        stripped = _LEAD.sub("", s).strip()
        if len(content_words(stripped)) >= 2:
            return stripped[:1].upper() + stripped[1:]
    return first_sentence(text)


def command_shape(call: dict) -> str:
    """What kind of command a call ran: the program and its sub-command (``git push``, ``npm run``, ``pytest``),
    after ``cd … &&`` prefixes and environment assignments; for other tools, the tool name."""
    inp = call.get("input") if isinstance(call.get("input"), dict) else {}
    cmd = inp.get("command") or inp.get("cmd")
    if isinstance(cmd, list):
        cmd = " ".join(str(c) for c in cmd)
    if not isinstance(cmd, str) or not cmd.strip():
        return str(call.get("name") or "tool")
    segment = [p.strip() for p in re.split(r"&&|;|\|\|", cmd) if p.strip()]
    segment = [p for p in segment if not p.startswith("cd ")] or segment
    words = [w for w in (segment[-1] if segment else cmd).split() if not _ENV_ASSIGN.match(w)]
    if words[:2] in (["bash", "-lc"], ["sh", "-c"], ["bash", "-c"]) and len(words) > 2:
        words = words[2:]
    words = [w.strip("'\"") for w in words]
    if words and words[0] in ("python", "python3") and words[1:2] == ["-m"]:
        words = words[2:]
    if not words:
        return str(call.get("name") or "tool")
    prog = words[0].rsplit("/", 1)[-1]
    sub = words[1] if len(words) > 1 and re.fullmatch(r"[a-z][a-z0-9-]{1,20}", words[1]) else ""
    return f"{prog} {sub}".strip()


def _correction_from_rejection(call: dict, index: int) -> Moment | None:
    """A rejected call carries the person's reason: a redirect teaches; a bare refusal or a question does not."""
    reason = str(call.get("reason") or "").strip()
    if not reason or reason.rstrip().endswith("?") or len(content_words(reason)) < 3:
        return None
    lesson = _lesson_from_correction(reason)
    return Moment("correction", lesson, reason[:300], index, signature=f"{call.get('name')}|{command_shape(call)}")


def _rejection_moments(turn) -> list[Moment]:
    out = []
    for call in turn.tool_calls or []:
        if call.get("rejected"):
            moment = _correction_from_rejection(call, turn.index)
            if moment:
                out.append(moment)
    return out


# The line of a failed call's output that says what went wrong, by the conventions tools print errors in: an
# exception line ("ValueError: …"), "error:"/"fatal:" prefixes, the shell's own messages. Output without one
# (grep finding nothing, "nothing to commit") is an answer, not a failure to learn from.
_ERROR_LINE = re.compile(
    r"\b[A-Z][A-Za-z0-9]*(?:Error|Exception)\b|(?:^|\s|:)(?:error|fatal|ERROR|FATAL)\b\s*[:\[]|"
    r"command not found|[Nn]o such file or directory|[Pp]ermission denied|syntax error|unexpected token|"
    r"[Cc]onnection refused|cannot |can't |[Nn]ot found\b"
)
_QUOTED = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"")
_PATHISH = re.compile(r"\S*[/\\]\S*")
_NUMBER = re.compile(r"\b\d+(?:\.\d+)*\b|\b[0-9a-f]{7,}\b")


def error_cause(call: dict) -> str:
    """What went wrong, as the failed call's output says it (its last error line); "" when it says nothing."""
    lines = [ln.strip() for ln in str(call.get("result") or "").splitlines() if ln.strip()]
    found = [ln for ln in lines if _ERROR_LINE.search(ln) and not ln.startswith("Traceback")]
    return found[-1][:200] if found else ""


def cause_key(cause: str) -> str:
    """A cause without its particulars (quoted text, paths, numbers): one cause, whatever file or tool."""
    text = _NUMBER.sub("N", _PATHISH.sub("P", _QUOTED.sub("Q", cause.lower())))
    return " ".join(text.split())


def _program(call: dict) -> str:
    return command_shape(call).split(" ")[0]


def _fix_for(calls: list[tuple[int, dict]], at: int) -> tuple[str, str]:
    """(what was run instead, how) for the failed call at position ``at`` of the agent's run of calls: a later
    successful call of the same program with other input ("instead"), or the calls that made the same command
    succeed on its retry ("first"). ("", "") when nothing fixed it, or it only needed running again."""
    failed = calls[at][1]
    between: list[dict] = []
    for _index, call in calls[at + 1 :]:
        ok = not call.get("is_error") and not call.get("rejected") and not call.get("interrupted")
        if _program(call) == _program(failed) and ok:
            if call.get("input") != failed.get("input"):
                return _shown(call), "instead"
            return (_shown(between[-1]), "first") if between else ("", "")
        if ok:
            between.append(call)
    return "", ""


def _shown(call: dict) -> str:
    inp = call.get("input") if isinstance(call.get("input"), dict) else {}
    cmd = inp.get("command") or inp.get("cmd")
    if isinstance(cmd, list):
        cmd = " ".join(str(c) for c in cmd)
    return (str(cmd) if cmd else f"{call.get('name') or 'tool'} {json.dumps(inp, sort_keys=True)[:120]}")[:200]


def _error_moments(run: list[tuple[int, dict]], project: str) -> list[Moment]:
    """Failures that mattered in one run of agent calls (between two things the person said): the call failed
    with a stated cause and the agent changed course to something that worked. One cause is one lesson."""
    out = []
    for at, (index, call) in enumerate(run):
        if not call.get("is_error") or call.get("interrupted") or call.get("rejected"):
            continue
        cause = error_cause(call)
        if not cause:
            continue
        fix, how = _fix_for(run, at)
        if not fix:
            continue
        failed = _shown(call)
        then = f"running `{fix}` first made it work" if how == "first" else f"`{fix}` worked instead"
        lesson = f"`{failed}` failed: {cause} — {then}."
        place = project.rstrip("/").rsplit("/", 1)[-1] if project else ""
        out.append(Moment("error", lesson, cause[:300], index, signature=f"{place}|{cause_key(cause)}"))
    return out


def _acted(turn) -> bool:
    return bool(turn.tool_calls) or bool((turn.text or "").strip())


def find_moments(turns, project: str = "") -> list[Moment]:
    """Corrections (a person's reply that opens by rejecting or redirecting what the agent just did; a rejected
    call with the person's reason), failures that mattered (a stated cause, and the agent changed course to
    something that worked; ``_error_moments``), surprises and environment notes the person stated. Only the person's own words count (pasted, quoted and injected parts are not in
    ``text``)."""
    moments: list[Moment] = []
    previous = None
    run: list[tuple[int, dict]] = []  # the agent's calls since the person last spoke
    for t in turns:
        text = t.text or ""
        if t.role in PERSON_ROLES and text.strip():
            moments.extend(_error_moments(run, project))
            run = []
            first = sentences(text)[0] if sentences(text) else text
            if previous is not None and previous.role == "assistant" and _acted(previous) \
                    and _CORRECTION_OPEN.search(first) and not first.rstrip().endswith("?"):  # fmt: skip
                moments.append(Moment("correction", _lesson_from_correction(text), text[:300], t.index))
            if _SURPRISE.search(text):
                s = next((s for s in sentences(text) if _SURPRISE.search(s)), text)
                moments.append(
                    Moment("surprise", s[:240], s[:300], t.index, signature=" ".join(sorted(set(content_words(s)))[:6]))
                )
            if _ENVIRONMENT.search(text):
                s = next((s for s in sentences(text) if _ENVIRONMENT.search(s)), text)
                moments.append(Moment("environment", s[:240], s[:300], t.index))
        moments.extend(_rejection_moments(t))
        run.extend((t.index, call) for call in t.tool_calls or [])
        if t.role in ("user", "person", "assistant") and (text.strip() or t.tool_calls):
            previous = t
    moments.extend(_error_moments(run, project))
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


def _actions(turns) -> str:
    return actions_summary([call for t in turns for call in t.tool_calls or []])


def actions_summary(calls: list[dict]) -> str:
    """What the agent did, from its calls: files edited or written, commands run, failures among them."""
    edited: list[str] = []
    ran: list[str] = []
    failed = 0
    for call in calls:
        inp = call.get("input") if isinstance(call.get("input"), dict) else {}
        path = inp.get("file_path") or inp.get("path")
        name = str(call.get("name") or "")
        if path and re.search(r"edit|write|patch|create", name, re.IGNORECASE):
            edited.append(str(path).rsplit("/", 1)[-1])
        elif inp.get("command") or inp.get("cmd"):
            ran.append(command_shape(call))
        failed += bool(call.get("is_error") and not call.get("rejected"))
    parts = []
    if edited:
        parts.append("edited " + ", ".join(dict.fromkeys(edited[:20])))
    if ran:
        parts.append("ran " + ", ".join(f"`{r}`" for r in list(dict.fromkeys(ran))[:6]))
    if failed:
        parts.append(f"{failed} call(s) failed")
    return "; ".join(parts)


def _outcome(agents) -> str:
    """The agent's last sentence that says something (at least three content words), not "Perfect!"."""
    for t in reversed(agents):
        for s in reversed(sentences(t.text)):
            if len(content_words(s)) >= 3 and not s.startswith(("```", "|", "-")):
                return s if len(s) <= 200 else s[:199].rstrip() + "…"
    return ""


def digest(turns, *, title: str = "", project: str = "") -> Digest:
    """The deterministic session digest: title, gist (what was asked, what was done, how it ended), topics,
    entities, decisions, action items, moments. Built from the person's own words and the agent's replies and
    calls; thinking, pasted and injected parts never reach it."""
    people = [t for t in turns if t.role in PERSON_ROLES and (t.text or "").strip()]
    agents = [t for t in turns if t.role == "assistant" and (t.text or "").strip()]
    ask = first_sentence(people[0].text, 200) if people else ""
    done, outcome = _actions(turns), _outcome(agents)
    gist = " ".join(p for p in (f"Asked: {ask}" if ask else "", f"Done: {done}." if done else "",
                                f"Outcome: {outcome}" if outcome else "") if p)  # fmt: skip
    return Digest(
        title=(title or first_sentence(ask or outcome, 80) or "Conversation")[:300],
        gist=gist or "(no text)",
        topics=_topics(turns),
        entities=_entities(turns),
        decisions=_matching(turns, _DECISION),
        action_items=_matching(turns, _ACTION),
        moments=find_moments(turns, project),
    )
