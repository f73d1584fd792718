"""Step 6: forgotten people stay forgotten. Their turns are removed and their names redacted in everyone
else's words (and in titles), so a re-sync of provider data stores nothing about them.

``cfg.forgotten`` is a matcher built from the ledger's lasting refusals (hashes only, see
``ledger.forget.hooks.NameMatcher``); without one this step changes nothing. Pure: no Django, no I/O.
"""

from __future__ import annotations

from ledger.forget.hooks import FORGOTTEN
from wearables.pipeline.types import Convo, PipelineConfig, Turn


def is_forgotten_speaker(turn: Turn, matcher) -> bool:
    if turn.is_wearer:
        return False  # the wearer is never "someone else" to forget
    name = turn.speaker_name or ""
    if name.startswith(FORGOTTEN):
        return True  # a registry person the user forgot (renamed to a placeholder)
    return matcher.is_forgotten(name) or matcher.is_forgotten(turn.provider_speaker_name or "")


def forget_people(convos: list[Convo], cfg: PipelineConfig) -> list[Convo]:
    matcher = cfg.forgotten
    if not matcher:
        return convos
    out = []
    for c in convos:
        turns = [
            Turn(**{**t.__dict__, "text": matcher.redact(t.text)})
            for t in c.turns
            if not is_forgotten_speaker(t, matcher)
        ]
        out.append(Convo(**{**c.__dict__, "turns": turns, "title": matcher.redact(c.title)}))
    return out
