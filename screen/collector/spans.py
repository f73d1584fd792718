"""Spans from context continuity: an activity starts when its context appears and ends when it is left for good
or concluded. Pure, no database; its state lives inside the signal deriver's JSON state.

- **Context** = the program plus, in a browser, the site (``app|example.com``): navigating inside one site is
  one activity; window titles are remembered as the span's titles.
- **Left for good**: the context has not been on screen for ``LEAVE`` (other programs were, or nothing).
- **Concluded**: the span showed an outcome line (``read_outcome``) and a later material change of the same
  context no longer shows it: the screen moved on from the result (a message sent, a result screen closed).
- **Regimes**: with no context to go by (no URL and an unchanged window title, e.g. a fullscreen game or one
  terminal), a change of most of the screen's lines with no outcome in it starts a new span (lobby -> match).
- **Anchors** are outcome lines *new* in a frame, never: assistant text (an assistant program, or the lines
  under an assistant pane header), controls ("Offer draw"), or rows of a history list (lines with the same
  shape as a sibling line, or dated "3h ago"/"yesterday"): older results in a sidebar are not this run's.
- **Speech** (ScreenPipe audio) attaches to the span on screen, with its device (Input = this machine's mic,
  Output = what the speakers played: other people on a call) and speaker name, for the proposer's roles.

Each ended span becomes one ``span_ended`` signal carrying a bounded summary; open spans are read by the
proposal pass after every window, so an activity still unfolding gets a provisional event, revised later.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from screen.collector.client import Item, parse_ts
from screen.events.families import is_assistant, is_assistant_frame, is_assistant_header, site_of
from screen.events.outcomes import ALL_WORDS, read_outcome, tokens

LEAVE = timedelta(minutes=15)
MATERIAL = 0.25
REGIME = 0.6
PRELUDE_GAP = timedelta(minutes=3)
MAX_OPEN = 12
MAX_LINES = 80
MAX_SEEN = 120
MAX_ANCHORS = 16
MAX_SPEECH = 16
MAX_WINDOWS = 6
_HISTORY = frozenset({"ago", "yesterday"})


def span_context(app: str, url: str) -> str:
    return f"{(app or '').lower()}|{site_of(url)}"


def _iso(dt: datetime) -> str:
    return dt.isoformat()


def _template(line: str) -> str:
    """A line's shape: outcome words kept, other words and numbers masked ("#1040 main passed 3h ago" ->
    "# w passed # w w")."""
    return " ".join(t if t in ALL_WORDS else ("#" if t.isdigit() else "w") for t in tokens(line))


def history_rows(lines: list[str]) -> set[str]:
    """Lines that are rows of a list of older items: dated relatively, or shaped like a sibling row."""
    shapes: dict[str, int] = {}
    for line in lines:
        shapes[_template(line)] = shapes.get(_template(line), 0) + 1
    out = set()
    for line in lines:
        toks = set(tokens(line))
        if toks & _HISTORY or (shapes[_template(line)] >= 2 and toks & ALL_WORDS):
            out.add(line)
    return out


class SpanTracker:
    """Feed every OCR frame (``frame``) and audio item (``audio``); ended spans come back as dicts."""

    def __init__(self, state: dict):
        self.state = state.setdefault("spans", {"open": {}, "seq": 0})

    @property
    def open(self) -> dict[str, dict]:
        return self.state["open"]

    def open_spans(self) -> list[dict]:
        return sorted(self.open.values(), key=lambda s: s["start"])

    # --- frames -----------------------------------------------------------------------------------------
    def frame(self, item: Item, lines: list[str], norm: dict[str, str]) -> list[dict]:
        ended = self._leave(item.at)
        ctx = span_context(item.app_name, item.url)
        span = self.open.get(ctx)
        cur = set(norm)
        assistant = self._assistant_lines(item, lines)
        if span is not None and item.at - parse_ts(span["last"]) >= LEAVE:
            ended.append(self._end(span, "left"))
            span = None
        if span is not None:
            prev = set(span["lines"])
            union = prev | cur
            ratio = len(prev ^ cur) / len(union) if union else 0.0
            fresh = [norm[k] for k in norm if k not in prev]
            new_anchors = self._anchors(fresh, lines, assistant)
            if ratio >= MATERIAL:
                span["changes"] += 1
            if ratio >= MATERIAL and not new_anchors:
                last = span["anchors"][-1] if span["anchors"] else None
                concluded = last is not None and last["norm"] not in cur
                contextless = not item.url and item.window_name == span["window"]
                if concluded or (contextless and ratio >= REGIME):
                    ended.append(self._end(span, "concluded" if concluded else "regime"))
                    span = self._start(item, ctx, prelude=span)
            if span is not None and span["start_frame"] != item.id:
                self._add_anchors(span, item, new_anchors)
        if span is None:
            span = self._start(item, ctx, prelude=None)
        if span["start_frame"] == item.id:
            self._add_anchors(span, item, self._anchors([norm[k] for k in norm], lines, assistant))
        self._update(span, item, norm, assistant)
        return ended

    def _assistant_lines(self, item: Item, lines: list[str]) -> set[str]:
        if is_assistant(item.app_name, item.window_name, item.url) or is_assistant_frame(lines):
            return set(lines)
        out: set[str] = set()
        inside = False
        for line in lines:
            inside = inside or is_assistant_header(line)
            if inside:
                out.add(line)
        return out

    def _anchors(self, fresh: list[str], lines: list[str], assistant: set[str]) -> list[str]:
        candidates = [line for line in fresh if line not in assistant and read_outcome(line) is not None]
        if not candidates:
            return []
        rows = history_rows([line for line in lines if line not in assistant])
        return [line for line in candidates if line not in rows]

    def _add_anchors(self, span: dict, item: Item, anchors: list[str]) -> None:
        from screen.text import normalize_line

        for line in anchors:
            span["anchors"].append({"line": line, "norm": normalize_line(line), "at": _iso(item.at), "frame": item.id})
        if len(span["anchors"]) > MAX_ANCHORS:
            span["anchors"] = span["anchors"][:4] + span["anchors"][-(MAX_ANCHORS - 4) :]

    def _start(self, item: Item, ctx: str, *, prelude: dict | None) -> dict:
        self.state["seq"] += 1
        before = []
        if prelude is not None and item.at - parse_ts(prelude["last"]) <= PRELUDE_GAP:
            before = list(prelude["seen"].values())[:10]
        span = {
            "id": f"{item.id}-{item.at:%Y%m%dT%H%M%S.%f}",
            "ctx": ctx,
            "app": item.app_name,
            "url": item.url,
            "window": item.window_name,
            "windows": [item.window_name] if item.window_name else [],
            "start": _iso(item.at),
            "start_frame": item.id,
            "last": _iso(item.at),
            "last_frame": item.id,
            "lines": [],
            "seen": {},
            "anchors": [],
            "assistant": is_assistant(item.app_name, item.window_name, item.url),
            "assistant_lines": [],
            "commands": [],
            "speech": [],
            "prelude": before,
            "changes": 0,
            "reason": "",
        }
        self.open[ctx] = span
        return span

    def _update(self, span: dict, item: Item, norm: dict[str, str], assistant: set[str]) -> None:
        from screen.collector.signals import prompt_lines

        span["last"], span["last_frame"] = _iso(item.at), item.id
        span["lines"] = list(norm)[:MAX_LINES]
        span["window"] = item.window_name
        if item.url:
            span["url"] = item.url
        if item.window_name and item.window_name not in span["windows"] and len(span["windows"]) < MAX_WINDOWS:
            span["windows"].append(item.window_name)
        seen = span["seen"]
        for key, line in norm.items():
            if line in assistant:
                keep = not is_assistant_header(line) and line not in span["assistant_lines"]
                if keep and len(span["assistant_lines"]) < 4:
                    span["assistant_lines"].append(line)
                continue
            if key not in seen and len(seen) < MAX_SEEN:
                seen[key] = line
        for command in prompt_lines(list(norm.values())):
            if command not in span["commands"] and len(span["commands"]) < 3:
                span["commands"].append(command)

    def _end(self, span: dict, reason: str) -> dict:
        self.open.pop(span["ctx"], None)
        span["reason"] = reason
        return span

    def _leave(self, now: datetime) -> list[dict]:
        ended = [self._end(s, "left") for s in list(self.open.values()) if now - parse_ts(s["last"]) >= LEAVE]
        while len(self.open) > MAX_OPEN:
            oldest = min(self.open.values(), key=lambda s: s["last"])
            ended.append(self._end(oldest, "left"))
        return ended

    # --- audio ------------------------------------------------------------------------------------------
    def audio(self, item: Item, focused_ctx: str | None) -> None:
        span = self.open.get(focused_ctx or "")
        if span is None or not item.text.strip() or len(span["speech"]) >= MAX_SPEECH:
            return
        span["speech"].append(
            {
                "at": _iso(item.at),
                "text": item.text.strip()[:300],
                "speaker": item.speaker,
                "device": item.device_type or item.device,
            }
        )
