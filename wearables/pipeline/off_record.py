"""Step 1: remove everything said between "off the record" and "back on the record".

Spans are per conversation and cross speakers and turns. The marker utterances keep only what lies outside the
span. A span that never closes removes the rest of the conversation: when in doubt, store less.
"""

from __future__ import annotations

import re

from wearables.pipeline.types import Convo, Turn

# Words ASR sprinkles inside a spoken phrase ("off the, uh, record").
_GAP = r"(?:[\s,.;:!?\-–—]+(?:(?:um+|uh+|er|erm|uhm)[\s,.;:!?\-–—]+)*)"


def _phrase_regex(phrase: str) -> str:
    words = [re.escape(w) for w in re.findall(r"[\w']+", phrase.lower())]
    return r"\b" + _GAP.join(words) + r"\b" if words else r"(?!x)x"


DEFAULT_OFF = ["off the record"]
# Inside a span, any "on the record" (not preceded by "off") ends it: "back on the record", "we're on the record".
DEFAULT_ON = ["on the record"]


def compile_markers(off_phrases: list[str] | None = None, on_phrases: list[str] | None = None):
    off = "|".join(_phrase_regex(p) for p in DEFAULT_OFF + list(off_phrases or []))
    on = "|".join(_phrase_regex(p) for p in DEFAULT_ON + list(on_phrases or []))
    return re.compile(off, re.IGNORECASE), re.compile(on, re.IGNORECASE)


def _tidy(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip(" ,;:-–—").lstrip(".!?… ")


def elide_conversation(convo: Convo, off_re: re.Pattern, on_re: re.Pattern) -> Convo:
    """Return ``convo`` with off-the-record spans removed (turns left empty are dropped).

    The elided stretches of time are kept on ``convo.elided`` so another device's recording of the same
    conversation can drop them too, even where it mis-heard the marker phrase.
    """
    inside = False
    kept: list[Turn] = []
    windows: list[tuple] = []
    span_start = None
    for turn in convo.turns:
        text, out, pos = turn.text, [], 0
        while pos <= len(text):
            if not inside:
                m = off_re.search(text, pos)
                if not m:
                    out.append(text[pos:])
                    break
                out.append(text[pos : m.start()])
                inside, pos = True, m.end()
                span_start = turn.started_at or turn.ended_at or convo.started_at
            else:
                m = on_re.search(text, pos)
                if not m:
                    break
                inside, pos = False, m.end()
                windows.append((span_start, turn.ended_at or turn.started_at))
        new_text = _tidy(" ".join(part for part in out if part.strip()))
        if re.search(r"\w", new_text):
            kept.append(Turn(**{**turn.__dict__, "text": new_text}))
    if inside:
        windows.append((span_start, None))  # never closed: to the end of the conversation
    # A provider's title is written from the raw talk and may quote the elided span: drop it.
    title = "" if windows else convo.title
    return Convo(**{**convo.__dict__, "turns": kept, "title": title, "elided": convo.elided + windows})


def elide_windows(convo: Convo, windows: list[tuple]) -> Convo:
    """Drop turns that overlap a span another device elided (``windows``: (start, end or None) in UTC).

    Devices' clocks differ by a few seconds, so a turn goes when a real part of it (2 s, or 30% of a short
    turn) lies inside the span, not when it merely touches an edge.
    """
    if not windows or not convo.turns:
        return convo
    conv_end = convo.ended_at or max((t.ended_at or t.started_at or convo.started_at) for t in convo.turns)

    def hidden(turn: Turn) -> bool:
        start = turn.started_at or turn.ended_at
        if start is None:
            return False
        end = turn.ended_at or start
        duration = (end - start).total_seconds()
        for w_start, w_end in windows:
            w_end = w_end or max(conv_end, w_start)
            overlap = (min(end, w_end) - max(start, w_start)).total_seconds()
            if duration <= 0 and w_start <= start <= w_end:
                return True
            if duration > 0 and overlap > 0 and overlap >= min(2.0, 0.3 * duration):
                return True
        return False

    kept = [t for t in convo.turns if not hidden(t)]
    if len(kept) == len(convo.turns):
        return convo
    return Convo(**{**convo.__dict__, "turns": kept, "title": ""})


def elide_off_record(convos: list[Convo], *, enabled: bool = True, off_phrases=None, on_phrases=None) -> list[Convo]:
    if not enabled:
        return convos
    off_re, on_re = compile_markers(off_phrases, on_phrases)
    return [elide_conversation(c, off_re, on_re) for c in convos]
