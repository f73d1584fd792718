"""Spans from context continuity: an activity starts when its context appears and ends when it is left for good
or concluded. Pure, no database; its state lives inside the signal deriver's JSON state.

- **Context** = the program plus, in a browser, the site (``app|example.com``): navigating inside one site is
  one activity; window titles are remembered as the span's titles.
- **Left for good**: the context has not been on screen for ``LEAVE`` (other programs were, or nothing). A span
  left with no outcome and nothing said is parked for ``PARK``: when its content is back in the same context (a
  machine's program still running after a long look elsewhere) it resumes.
- **Concluded**: the span showed an outcome line (``read_outcome``) and a later material change of the same
  context no longer shows it: the screen moved on from the result (a message sent, a result screen closed).
- **Regimes**: with no context to go by (URL and window title unchanged, e.g. a fullscreen game, one terminal,
  a phone mirrored on the desktop, a game on one web page), a change of most of the screen's lines with no outcome in it that
  does not go on with the span's content (``continues``: a shop's name on each page of its app, "Round" and
  "Team" on each screen of a match) starts a new span (lobby -> match). The span it leaves
  without an outcome is *suspended*: when its content comes back (a pause menu closed, back to the shop after a
  look at a chat) it resumes, and the screens in between were an interruption.
- **Anchors** are outcome lines *new* in a frame, never: assistant text (an assistant program, or the lines
  under an assistant pane header), controls ("Offer draw"), rows of a history list (lines with the same shape
  as a sibling line once words, numbers and outcome words are masked, lines dated "3h ago"/"yesterday", lines
  labelled "Last match:"), other people's posts under their bylines ("Ana · 2h", ``posts.py``), or a banner:
  lines that arrive over an unchanged screen and leave it unchanged again within ``BANNER`` (a notification
  about something else). Until then such a quiet anchor is pending.
- **Speech** (ScreenPipe audio) attaches to the span on screen, or, while one conversation goes on, to the span
  that heard its previous words (a call keeps its speech while the owner glances at another window), with its
  device (Input = this machine's mic, Output = what the speakers played: other people on a call), speaker name
  and the span's frame at that moment, for the proposer's roles and evidence.

Each ended span becomes one ``span_ended`` signal carrying a bounded summary; open spans are read by the
proposal pass after every window, so an activity still unfolding gets a provisional event, revised later.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from screen.collector.client import Item, parse_ts
from screen.collector.posts import others_posts
from screen.events.families import (
    classify,
    is_assistant,
    is_assistant_frame,
    is_assistant_header,
    is_mirror,
    is_notification,
    is_standalone,
    site_of,
)
from screen.events.outcomes import ALL_WORDS, CONTROL_VERBS, PROGRESS, read_outcome, tokens
from screen.text import SCREEN_STOPWORDS, normalize_line

LEAVE = timedelta(minutes=15)
PARK = timedelta(hours=2)  # a span left with nothing to show may still be resumed this long after its last frame
MAX_PARKED = 24
MATERIAL = 0.25
REGIME = 0.6
PRELUDE_GAP = timedelta(minutes=3)
BANNER = timedelta(seconds=60)  # a line that comes and goes over an unchanged screen within this is a banner
BANNER_LINES = 4  # a banner adds a few lines (sender, time, message), never a page
CONVERSATION_GAP = timedelta(minutes=2)  # speech within this of the previous words continues the same talk
MAX_OPEN = 12
MAX_SUSPENDED = 3
MAX_LINES = 80
MAX_SEEN = 120
MAX_ANCHORS = 16
MAX_SPEECH = 240  # about two hours of a call: the latest words are never the ones dropped
MAX_WINDOWS = 6
MAX_UNHEARD = 20  # speech waiting for a frame to say where it belongs
_HISTORY = frozenset({"ago", "yesterday"})
_LOOKING_BACK = frozenset("last previous recent earlier past".split())  # "Last match: Victory" recalls one
_LIST_TITLES = _LOOKING_BACK | frozenset("history older".split())  # "Match history", "Recent orders"


def span_context(app: str, url: str) -> str:
    return f"{(app or '').lower()}|{site_of(url)}"


def _iso(dt: datetime) -> str:
    return dt.isoformat()


def _template(line: str, *, keep: bool = False) -> str:
    """A line's shape (``keep``: its outcome word kept): words, numbers and identifiers (three digits or more,
    or capitals: "#1040", "LG-58213", "QXKPRM")
    and outcome words masked as three classes ("#1040 main passed 3h ago" -> "# w o # w w"), so rows of one list share a shape whatever
    each row's identifier and result."""
    out = []
    for word in re.findall(r"[\w'’-]+", line):
        if word.lower() in ALL_WORDS:
            out.append(word.lower() if keep else "o")
        elif sum(c.isdigit() for c in word) >= 3 or (word.isupper() and len(word) >= 4) or word.isdigit():
            out.append("#")  # a number or an identifier: "LG-58213", "MSXDHY" (not a name such as "e2e")
        else:
            out.append("w")
    return " ".join(out)


def _looks_back(toks: list[str], line: str) -> bool:
    """A label recalling an earlier result: "Last match: Victory", "Previous result - Lost"."""
    return bool(toks) and toks[0] in _LOOKING_BACK and bool(re.search(r"^\W*\w+(?:\s+\w+){0,2}\s*[:\-–—]", line))


def history_rows(lines: list[str]) -> set[str]:
    """Lines that are rows of a list of older items: dated relatively, labelled as earlier, listed under a title
    of the past ("Match history", "Your recent orders"), or shaped like a sibling row: another line with the same words masked and the same result ("770 main passed", "769 main
    passed"), or two more with any result ("vs Ana won", "vs Ben lost", "vs Cy won"). Two lines of one shape
    with different results are a result screen ("Black resigned", "White wins"), not a list."""
    literal: dict[str, int] = {}
    shapes: dict[str, int] = {}
    for line in lines:
        literal[_template(line, keep=True)] = literal.get(_template(line, keep=True), 0) + 1
        shapes[_template(line)] = shapes.get(_template(line), 0) + 1
    out = set()
    listed = False  # inside a list titled as the past ("Match history", "Recent orders")
    for line in lines:
        toks = tokens(line)
        if 0 < len(toks) <= 4 and set(toks) & _LIST_TITLES and not set(toks) & ALL_WORDS:
            listed = True
            continue
        sibling = literal[_template(line, keep=True)] >= 2 or shapes[_template(line)] >= 3
        row = bool(set(toks) & ALL_WORDS)
        if set(toks) & _HISTORY or _looks_back(toks, line) or (row and (sibling or listed)):
            out.add(line)
        listed = listed and (row or any(t.isdigit() for t in toks))
    return out


def content_words(lines) -> set[str]:
    """Words of four letters or more, the commonest function words and every screen's control labels left
    out ("Continue", "Settings"): what a screen is about, not its counters, status bar or buttons."""
    out = set()
    for line in lines:
        out.update(w for w in re.findall(r"[a-z]{4,}", line.lower()) if w not in _GENERIC)
    return out


def continues(span: dict, norm: dict[str, str]) -> bool:
    """Does this frame go on with the span's content? It shows a line the span showed that says something (a
    shop's name above each page of its app), or shares a line (a HUD's "HP 72") and a word ("Team", "Round")
    with it. A word alone is not enough: a lobby's "Find opponent" is not the match's "Opponent: Ilse"."""
    shared = set(norm) & set(span["seen"])
    if any(content_words([norm[k]]) for k in shared):
        return True
    return bool(shared) and bool(content_words(norm.values()) & content_words(span["seen"].values()))


def _another_talk(span: dict, item: Item) -> bool:
    """A call's program shows a window title the call never showed, after its talk fell silent: another call
    or meeting in the same program (the same call keeps its title, and a glance away and back keeps its words
    flowing). Speech merely heard during another activity (someone talking nearby) is no call."""
    if not span["speech"] or not item.window_name or item.window_name in span["windows"]:
        return False
    if item.at - parse_ts(span["speech"][-1]["at"]) <= CONVERSATION_GAP:
        return False
    lines = list(span["seen"].values())
    return is_standalone(classify(app=span["app"], url=span["url"], windows=span["windows"], lines=lines))


_GENERIC = SCREEN_STOPWORDS | CONTROL_VERBS | frozenset("menu settings options home help search account".split())


class SpanTracker:
    """Feed every OCR frame (``frame``) and audio item (``audio``); ended spans come back as dicts."""

    def __init__(self, state: dict):
        self.state = state.setdefault("spans", {"open": {}, "seq": 0})
        self.state.setdefault("suspended", {})  # context -> spans left by a regime change, newest last

    @property
    def open(self) -> dict[str, dict]:
        return self.state["open"]

    @property
    def suspended(self) -> dict[str, list[dict]]:
        return self.state["suspended"]

    def open_spans(self) -> list[dict]:
        """Spans still unfolding, oldest first; ``current`` marks the one on screen in the latest frame."""
        for span in self.open.values():
            span["current"] = span["ctx"] == self.state.get("focus")
        return sorted(self.open.values(), key=lambda s: s["start"])

    def settle(self, now: datetime) -> list[dict]:
        """Spans whose context has been off screen for ``LEAVE`` by ``now`` (nothing was captured since):
        they end even if no later frame comes to end them."""
        return self._leave(now)

    # --- frames -----------------------------------------------------------------------------------------
    def frame(self, item: Item, lines: list[str], norm: dict[str, str]) -> list[dict]:
        ended = self._leave(item.at)
        ctx = span_context(item.app_name, item.url)
        self.state["focus"] = ctx
        span = self.open.get(ctx)
        assistant = self._assistant_lines(item, lines)
        posts = others_posts([line for line in lines if line not in assistant])
        if span is not None and (item.at - parse_ts(span["last"]) >= LEAVE or _another_talk(span, item)):
            ended.append(self._end(span, "left"))
            span = None
        if span is not None:
            span = self._continue(span, item, ctx, lines, norm, assistant | posts, ended)
        if span is None:
            span = self._resume(item, ctx, norm) or self._start(item, ctx, prelude=None)
        if span["start_frame"] == item.id:
            self._add_anchors(span, item, self._anchors([norm[k] for k in norm], lines, assistant | posts))
        self._update(span, item, norm, assistant, posts)
        self._hear_waiting(span, item)
        return ended

    def _hear_waiting(self, span: dict, item: Item) -> None:
        """Speech heard just before any frame showed where (a call's first words): the span on screen now, unless
        that is the notification centre (a banner holds no conversation: the words wait for the next frame)."""
        if is_notification(span["app"]):
            return
        waiting = self.state.pop("unheard", None) or []
        for said in waiting:
            if item.at - parse_ts(said["at"]) <= CONVERSATION_GAP:
                span["speech"].append(dict(said, frame=item.id, frame_at=_iso(item.at)))
        del span["speech"][:-MAX_SPEECH]

    def _continue(self, span, item, ctx, lines, norm, foreign, ended) -> dict:
        """The next frame of an open span: new anchors (never from ``foreign`` lines: an assistant's, other
        people's posts), banners leaving, conclusion, a regime change."""
        prev, cur = set(span["lines"]), set(norm)
        added, removed = cur - prev, prev - cur
        if self._banners_left(span, item, added, removed):
            added, removed = set(), set()
        union = prev | cur
        ratio = len(added | removed) / len(union) if union else 0.0
        fresh = [norm[k] for k in norm if k in added]
        new_anchors = self._anchors(fresh, lines, foreign)
        if ratio >= MATERIAL:
            span["changes"] += 1
        if ratio >= MATERIAL:
            # A step done inside the activity ("CV.pdf uploaded") never concludes it: its result does. A screen
            # that brings outcomes of its own concludes it when it is a page the span never showed (another
            # conversation in a chat program) or, where no window names the activity (a phone mirror, a
            # fullscreen program), when it does not go on with the span's content: a chat after a workout on one
            # phone is another activity, a fix run after an error in one terminal window is not.
            last = next((a for a in reversed(span["anchors"]) if not a.get("step")), None)
            concluded = last is not None and last["norm"] not in cur
            if concluded and new_anchors:
                titled = item.app_name and not is_mirror(item.app_name)
                moved = item.window_name and item.window_name not in span["windows"]  # another conversation, page
                concluded = bool(moved) if titled else not continues(span, norm)
            # A mirror's window names the device, whatever the phone shows: it says nothing of the activity.
            same_window = item.window_name == span["window"] or is_mirror(item.app_name)
            contextless = item.url == span["url"] and same_window
            regime = not new_anchors and contextless and ratio >= REGIME and not continues(span, norm)
            if concluded:
                ended.append(self._end(span, "concluded"))
                span = self._resume(item, ctx, norm) or self._start(item, ctx, prelude=span)
                if span["start_frame"] != item.id:
                    self._add_anchors(span, item, new_anchors)
                return span
            if regime:
                return self._switch(span, item, ctx, norm, ended)
        quiet = not removed and 0 < len(added) <= BANNER_LINES
        self._add_anchors(span, item, new_anchors, quiet=quiet, block=added)
        return span

    def _switch(self, span: dict, item: Item, ctx: str, norm: dict[str, str], ended: list[dict]) -> dict:
        """The screen's content changed to something unrelated: an activity that showed an outcome ends; one
        without is suspended (it may come back). The new content resumes a suspended span it continues (the
        screens in between were an interruption), or starts a span of its own."""
        if span["anchors"]:
            ended.append(self._end(span, "regime"))
            return self._resume(item, ctx, norm) or self._start(item, ctx, prelude=span)
        self.open.pop(ctx, None)
        resumed = self._resume(item, ctx, norm)
        self._suspend(span, ended)  # it may come back too (a match after its pause menu)
        return resumed or self._start(item, ctx, prelude=span)

    def _suspend(self, span: dict, ended: list[dict]) -> None:
        waiting = self.suspended.setdefault(span["ctx"], [])
        waiting.append(span)
        while len(waiting) > MAX_SUSPENDED:
            ended.append(self._end(waiting.pop(0), "left"))

    def _resume(self, item: Item, ctx: str, norm: dict[str, str]) -> dict | None:
        """A suspended span of this context whose content is back on screen (newest first)."""
        waiting = self.suspended.get(ctx) or []
        for span in reversed(waiting):
            horizon = PARK if span.get("parked") else LEAVE
            if item.at - parse_ts(span["last"]) < horizon and continues(span, norm):
                waiting.remove(span)
                span["parked"], span["reason"] = False, ""
                self.open[ctx] = span
                return span
        return None

    def _banners_left(self, span: dict, item: Item, added: set[str], removed: set[str]) -> bool:
        """Quiet anchors whose lines just left an otherwise unchanged screen, within ``BANNER`` of arriving,
        were a banner about something else: they are dropped, and their leaving changed nothing."""
        if added or not removed:
            return False
        gone = [
            a
            for a in span["anchors"]
            if a.get("quiet") and a["norm"] in removed and item.at - parse_ts(a["at"]) <= BANNER
        ]
        if not gone or not removed <= set().union(*(set(a.get("block") or []) for a in gone)):
            return False
        span["anchors"] = [a for a in span["anchors"] if a not in gone]
        for key in removed:
            span["seen"].pop(key, None)  # what the banner said is not what the span is about
        return True

    def _assistant_lines(self, item: Item, lines: list[str]) -> set[str]:
        """An assistant's own window: all of it; else the lines under an assistant pane's header; else, with no
        header, a frame showing an assistant's disclaimer or composer is the assistant's own window."""
        if is_assistant(item.app_name, item.window_name, item.url):
            return set(lines)
        out: set[str] = set()
        inside = False
        for line in lines:
            inside = inside or is_assistant_header(line)
            if inside:
                out.add(line)
        if not out and is_assistant_frame(lines):
            return set(lines)
        return out

    def _anchors(self, fresh: list[str], lines: list[str], foreign: set[str]) -> list[str]:
        candidates = [line for line in fresh if line not in foreign and read_outcome(line) is not None]
        if not candidates:
            return []
        rows = history_rows([line for line in lines if line not in foreign])
        return [line for line in candidates if line not in rows]

    def _add_anchors(
        self, span: dict, item: Item, anchors: list[str], *, quiet: bool = False, block: set[str] = frozenset()
    ) -> None:
        for line in anchors:
            anchor = {"line": line, "norm": normalize_line(line), "at": _iso(item.at), "frame": item.id}
            if read_outcome(line).word == PROGRESS:
                anchor["step"] = True
            anchor["seen_until"] = anchor["at"]
            if quiet:
                anchor.update(quiet=True, block=sorted(block))
            span["anchors"].append(anchor)
        if len(span["anchors"]) > MAX_ANCHORS:
            span["anchors"] = span["anchors"][:4] + span["anchors"][-(MAX_ANCHORS - 4) :]

    def _start(self, item: Item, ctx: str, *, prelude: dict | None) -> dict:
        self.state["seq"] += 1
        before = []
        # A lobby is the prelude of the match that follows it; an activity that showed its own outcome (an
        # appointment cancelled, then a book on the same phone) is over, and its words are not the next one's.
        concluded = prelude is not None and any(not a.get("step") for a in prelude["anchors"])
        if prelude is not None and not concluded and item.at - parse_ts(prelude["last"]) <= PRELUDE_GAP:
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

    def _update(self, span: dict, item: Item, norm: dict[str, str], assistant: set[str], posts: set[str]) -> None:
        from screen.collector.signals import prompt_lines

        span["last"], span["last_frame"] = _iso(item.at), item.id
        span["lines"] = list(norm)[:MAX_LINES]
        span["window"] = item.window_name
        if item.url:
            span["url"] = item.url
        if item.window_name and item.window_name not in span["windows"] and len(span["windows"]) < MAX_WINDOWS:
            span["windows"].append(item.window_name)
        for anchor in span["anchors"]:
            if anchor["norm"] in norm:
                anchor["seen_until"] = _iso(item.at)
        seen = span["seen"]
        for key, line in norm.items():
            if line in assistant:
                keep = not is_assistant_header(line) and line not in span["assistant_lines"]
                if keep and len(span["assistant_lines"]) < 4:
                    span["assistant_lines"].append(line)
                continue
            if line in posts:
                continue  # another person's post says nothing of what the owner is doing
            if key not in seen and len(seen) < MAX_SEEN:
                seen[key] = line
        for command in prompt_lines(list(norm.values())):
            if command not in span["commands"] and len(span["commands"]) < 3:
                span["commands"].append(command)

    def _end(self, span: dict, reason: str) -> dict:
        if self.open.get(span["ctx"]) is span:
            self.open.pop(span["ctx"], None)
        span["reason"] = reason
        return span

    def _leave(self, now: datetime) -> list[dict]:
        ended = []
        gone = [s for s in self.open.values() if now - parse_ts(s["last"]) >= LEAVE]
        while len(self.open) - len(gone) > MAX_OPEN:
            gone.append(min((s for s in self.open.values() if s not in gone), key=lambda s: s["last"]))
        for span in gone:
            self._end(span, "left")
            if span["anchors"] or span["speech"] or span["assistant"]:
                ended.append(span)
            else:
                span["parked"] = True  # nothing to show yet: it may resume if its content comes back
                self.suspended.setdefault(span["ctx"], []).append(span)
        for ctx, waiting in list(self.suspended.items()):
            for span in [s for s in waiting if now - parse_ts(s["last"]) >= (PARK if s.get("parked") else LEAVE)]:
                waiting.remove(span)
                ended.append(self._end(span, "left"))
            if not waiting:
                del self.suspended[ctx]
        parked = sorted((s for w in self.suspended.values() for s in w), key=lambda s: s["last"])
        for span in parked[: max(0, len(parked) - MAX_PARKED)]:
            self.suspended[span["ctx"]].remove(span)
            ended.append(self._end(span, "left"))
        for ctx in [c for c, w in self.suspended.items() if not w]:
            del self.suspended[ctx]
        return ended

    # --- audio ------------------------------------------------------------------------------------------
    def audio(self, item: Item, focused_ctx: str | None) -> None:
        """Speech goes to the span still holding the conversation (its previous words within
        ``CONVERSATION_GAP``), else to the span on screen; with that span's frame at that moment."""
        if not item.text.strip():
            return
        talk = self.state.get("talk")
        span = None
        if talk and item.at - parse_ts(talk["at"]) <= CONVERSATION_GAP:
            span = next((s for s in self.open.values() if s["id"] == talk["id"]), None)
        span = span or self.open.get(focused_ctx or "")
        if span is not None and is_notification(span["app"]):
            span = None  # a banner on screen holds no conversation: the words wait for the activity's next frame
        said = {
            "at": _iso(item.at),
            "text": item.text.strip()[:300],
            "speaker": item.speaker,
            "device": item.device_type or item.device,
        }
        if span is None:
            waiting = self.state.setdefault("unheard", [])
            waiting.append(said)
            del waiting[:-MAX_UNHEARD]
            return
        span["speech"].append(dict(said, frame=span["last_frame"], frame_at=span["last"]))
        del span["speech"][:-MAX_SPEECH]
        self.state["talk"] = {"id": span["id"], "at": _iso(item.at)}
