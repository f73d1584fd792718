"""Pure signal derivation: OCR items in time order -> compact generic signals. No database, no network.

``SignalDeriver(state)`` keeps everything it needs in ``state`` (a JSON-able dict the collector saves with the
cursor), so feeding the items of one window, saving, and feeding the next window later gives exactly the
signals one long run would have given. Signal keys are deterministic (kind, frame, time): re-deriving the same
moment after a crash collides on the database's unique key instead of duplicating.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from screen.collector.client import Item, parse_ts
from screen.collector.spans import SpanTracker, span_context
from screen.text import diff_lines, fingerprint, line_hash, lines_of, normalize_line

IDLE_AFTER = timedelta(minutes=5)  # no new frame for this long: the screen did not change (ScreenPipe skips dupes)
GAP_MIN_MISSING = 3  # this many frame ids missing between two frames: the source lost data
RECENT_WINDOW = timedelta(minutes=30)  # "novel" = not seen on screen within this window
RECENT_MAX = 4000
STABLE_FRAMES = 3
STABLE_SECONDS = 45
STABLE_MAX = 64
CONTEXTS_MAX = 64
MAX_LINES = 80
MAX_DIFF_LINES = 12
MAX_NOVEL = 5


@dataclass
class SignalDraft:
    kind: str
    occurred_at: datetime
    app_name: str = ""
    window_name: str = ""
    url: str = ""
    before_frame: int | None = None
    before_at: datetime | None = None
    after_frame: int | None = None
    after_at: datetime | None = None
    fingerprint: str = ""
    data: dict = field(default_factory=dict)

    @property
    def key(self) -> str:
        stamp = self.occurred_at.strftime("%Y%m%dT%H%M%S.%f")
        return f"{self.kind}:{self.after_frame if self.after_frame is not None else self.before_frame}:{stamp}"


def prompt_lines(lines: list[str]) -> list[str]:
    """Lines typed at a prompt ("$ make test"): what the user asked the program to do (at most 3)."""
    return [line.lstrip()[2:].strip() for line in lines if line.lstrip().startswith(("$ ", "% ", "> "))][:3]


def context_key(app: str, window: str, url: str) -> str:
    return hashlib.blake2b(f"{app}\x1f{window}\x1f{url}".encode(), digest_size=6).hexdigest()


def _iso(dt: datetime | None) -> str | None:
    return dt.isoformat() if dt else None


class SignalDeriver:
    """Feed OCR ``Item``s in time order with ``feed``; read the updated ``state`` afterwards."""

    def __init__(self, state: dict | None = None):
        self.state = state if state is not None else {}
        self.state.setdefault("recent", {})  # line hash -> epoch seconds last seen
        self.state.setdefault("stable", {})  # fingerprint -> {first, last, title, frames}
        self.state.setdefault("contexts", [])  # recent context keys, newest last
        self.missing = 0
        self.gaps = 0
        self.restarts = 0
        self.spans = SpanTracker(self.state)

    def open_spans(self) -> list[dict]:
        """Spans still unfolding (their context is on screen or was within ``spans.LEAVE``)."""
        return self.spans.open_spans()

    def settle(self, now: datetime) -> list[SignalDraft]:
        """``span_ended`` signals of the spans nothing has been captured for since ``spans.LEAVE`` before
        ``now`` (the screen went idle, ScreenPipe stopped): the end of a day ends its last activities."""
        return [self._span_signal(span) for span in self.spans.settle(now)]

    # --- main entry -------------------------------------------------------------------------------------
    def feed(self, item: Item) -> list[SignalDraft]:
        if item.kind == "Audio":
            last = self.state.get("last")
            self.spans.audio(item, span_context(last["app"], last["url"]) if last else None)
            return []
        if item.kind != "OCR":
            return []
        st = self.state
        last = st.get("last")
        lines = lines_of(item.text)[:MAX_LINES]
        norm = {normalize_line(line): line for line in lines}
        fp = fingerprint(set(norm))
        ctx = context_key(item.app_name, item.window_name, item.url)
        out: list[SignalDraft] = []
        if last is None:
            data = {"added": lines[:MAX_DIFF_LINES], "commands": prompt_lines(lines)}
            out.append(self._draft("context_appeared", item, None, fp, data))
        else:
            out.extend(self._continuity(last, item))
            before = {k: v for k, v in last["lines"]}
            diff = diff_lines(before, norm)
            if ctx != last["ctx"]:
                kind = "context_changed" if ctx in st["contexts"] else "context_appeared"
                out.append(self._draft(kind, item, last, fp, self._diff_data(diff, last)))
            elif diff.material:
                out.append(self._draft("text_changed", item, last, fp, self._diff_data(diff, last)))
            if out and out[-1].kind in ("context_changed", "context_appeared", "text_changed"):
                out[-1].data["commands"] = prompt_lines(lines)
            returned = self._returning(fp, last)
            if returned:
                out.append(self._draft("state_returned", item, last, fp, returned))
        out.extend(self._span_signal(span) for span in self.spans.frame(item, lines, norm))
        novel = self._novel(norm, item.at)
        if novel:
            out.append(self._draft("novel_anchor", item, last, fp, {"lines": novel}))
        self._track_run(fp, item, last)
        self._remember(norm, item.at, ctx)
        st["last"] = {
            "frame": item.id,
            "at": _iso(item.at),
            "ctx": ctx,
            "fp": fp,
            "app": item.app_name,
            "window": item.window_name,
            "url": item.url,
            "lines": [[k, v] for k, v in norm.items()],
        }
        return out

    # --- pieces -----------------------------------------------------------------------------------------
    def _draft(self, kind: str, item: Item, last: dict | None, fp: str, data: dict) -> SignalDraft:
        return SignalDraft(
            kind=kind,
            occurred_at=item.at,
            app_name=item.app_name,
            window_name=item.window_name,
            url=item.url,
            before_frame=last["frame"] if last else None,
            before_at=parse_ts(last["at"]) if last else None,
            after_frame=item.id,
            after_at=item.at,
            fingerprint=fp,
            data=data,
        )

    def _span_signal(self, span: dict) -> SignalDraft:
        return SignalDraft(
            kind="span_ended",
            occurred_at=parse_ts(span["last"]),
            app_name=span["app"],
            window_name=(span["windows"] or [""])[0],
            url=span["url"],
            before_frame=span["start_frame"],
            before_at=parse_ts(span["start"]),
            after_frame=span["last_frame"],
            after_at=parse_ts(span["last"]),
            data={"span": span},
        )

    def _diff_data(self, diff, last: dict) -> dict:
        return {
            "added": diff.added[:MAX_DIFF_LINES],
            "removed": diff.removed[:MAX_DIFF_LINES],
            "ratio": round(diff.ratio, 3),
            "from_app": last.get("app", ""),
            "from_window": last.get("window", ""),
        }

    def _continuity(self, last: dict, item: Item) -> list[SignalDraft]:
        """Idle/resume, source gaps (missing frame ids) and restarts (frame ids going backwards)."""
        out = []
        last_at, last_frame = parse_ts(last["at"]), int(last["frame"])
        ctx = {"app_name": last.get("app", ""), "window_name": last.get("window", ""), "url": last.get("url", "")}
        seconds = int((item.at - last_at).total_seconds())

        def spanning(kind: str, data: dict, **context: str) -> SignalDraft:
            """From the last frame to this one, in the last frame's context unless ``context`` names another."""
            return SignalDraft(
                kind,
                item.at,
                before_frame=last_frame,
                before_at=last_at,
                after_frame=item.id,
                after_at=item.at,
                data=data,
                **(ctx | context),
            )

        def at_last(kind: str, data: dict | None = None) -> SignalDraft:
            return SignalDraft(kind, last_at, before_frame=last_frame, before_at=last_at, data=data or {}, **ctx)

        if item.id < last_frame:
            self.restarts += 1
            out.append(spanning("source_restart", {"from_frame": last_frame}))
            return out
        missing = item.id - last_frame - 1
        idle = item.at - last_at >= IDLE_AFTER
        if missing > 0:
            self.missing += missing
        if missing >= GAP_MIN_MISSING or (missing > 0 and idle):
            self.gaps += 1
            out.append(at_last("context_disappeared", {"reason": "gap"}))
            out.append(spanning("source_gap", {"missing": missing, "seconds": seconds}))
        elif idle:
            out.append(at_last("context_disappeared", {"reason": "idle"}))
            out.append(at_last("idle"))
            context = {"app_name": item.app_name, "window_name": item.window_name, "url": item.url}
            out.append(spanning("resume", {"seconds": seconds}, **context))
        return out

    def _novel(self, norm: dict[str, str], at: datetime) -> list[str]:
        recent, now = self.state["recent"], at.timestamp()
        horizon = now - RECENT_WINDOW.total_seconds()
        out = []
        for key, line in norm.items():
            if len(key) < 6 or " " not in key:
                continue
            seen = recent.get(line_hash(key))
            if seen is None or seen < horizon:
                out.append(line)
        # The first frame ever seen is all "novel": that is the baseline, not an anchor.
        return out[:MAX_NOVEL] if recent else []

    def _remember(self, norm: dict[str, str], at: datetime, ctx: str) -> None:
        recent, now = self.state["recent"], at.timestamp()
        for key in norm:
            recent[line_hash(key)] = now
        if len(recent) > RECENT_MAX:
            keep = sorted(recent.items(), key=lambda kv: kv[1])[-RECENT_MAX // 2 :]
            self.state["recent"] = dict(keep)
        contexts = self.state["contexts"]
        if ctx in contexts:
            contexts.remove(ctx)
        contexts.append(ctx)
        del contexts[:-CONTEXTS_MAX]

    def _track_run(self, fp: str, item: Item, last: dict | None) -> None:
        """A run is consecutive frames with one fingerprint; a long enough run becomes a stable state."""
        st = self.state
        run = st.get("run")
        if run and run["fp"] == fp:
            run["frames"] += 1
            run["last"] = _iso(item.at)
        else:
            st["run"] = {
                "fp": fp,
                "first": _iso(item.at),
                "last": _iso(item.at),
                "frames": 1,
                "title": item.window_name or item.app_name,
            }
            run = st["run"]
        span = (item.at - parse_ts(run["first"])).total_seconds()
        if run["frames"] >= STABLE_FRAMES or span >= STABLE_SECONDS:
            stable = st["stable"]
            entry = stable.pop(fp, None) or {"first": run["first"], "title": run["title"]}
            entry["last"] = run["last"]
            stable[fp] = entry  # re-inserted: dict order is recency
            if len(stable) > STABLE_MAX:
                for old in list(stable)[: len(stable) - STABLE_MAX]:
                    del stable[old]

    def _returning(self, fp: str, last: dict) -> dict | None:
        """This frame shows a state that was stable earlier and is not simply continuing."""
        if fp == last["fp"]:
            return None
        entry = self.state["stable"].get(fp)
        if not entry:
            return None
        return {"since": entry["first"], "last_seen": entry["last"], "title": entry.get("title", "")}
