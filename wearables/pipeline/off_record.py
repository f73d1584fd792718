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
    return re.sub(r"\s+", " ", text).strip(" ,;:-–—")


def elide_conversation(convo: Convo, off_re: re.Pattern, on_re: re.Pattern) -> Convo:
    """Return ``convo`` with off-the-record spans removed (turns left empty are dropped)."""
    inside = False
    kept: list[Turn] = []
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
            else:
                m = on_re.search(text, pos)
                if not m:
                    break
                inside, pos = False, m.end()
        new_text = _tidy(" ".join(part for part in out if part.strip()))
        if re.search(r"\w", new_text):
            kept.append(Turn(**{**turn.__dict__, "text": new_text}))
    return Convo(**{**convo.__dict__, "turns": kept})


def elide_off_record(
    convos: list[Convo], *, enabled: bool = True, off_phrases=None, on_phrases=None
) -> list[Convo]:
    if not enabled:
        return convos
    off_re, on_re = compile_markers(off_phrases, on_phrases)
    return [elide_conversation(c, off_re, on_re) for c in convos]
