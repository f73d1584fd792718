"""Hooks sources register at ``AppConfig.ready()`` so the gate can use what only they know, without importing them.

Corroboration: ``register_corroboration(source_prefix, fn)``. ``fn(*, owner, source_key, day_key, scope_key)``
returns ``list[Sighting]``: what OTHER captures of the same day heard (another device's record of the talk). The gate
uses them to raise the trust of a claim another capture also heard, or to doubt one another capture heard
differently. The longest registered prefix of the pass's ``source_key`` wins.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from distill.conversation import Sighting

log = logging.getLogger(__name__)

CorroborationHook = Callable[..., list[Sighting]]
_CORROBORATION: dict[str, CorroborationHook] = {}


def register_corroboration(source_prefix: str, fn: CorroborationHook) -> None:
    _CORROBORATION[source_prefix] = fn


def corroboration_for(source_key: str) -> CorroborationHook | None:
    matches = [p for p in _CORROBORATION if source_key.startswith(p)]
    return _CORROBORATION[max(matches, key=len)] if matches else None


def sightings(*, owner, source_key: str, day_key: str, scope_key: str, hook=None) -> list[Sighting]:
    """Call the pass's corroboration hook (explicit ``hook`` first, else the registered one); never raises."""
    fn = hook or corroboration_for(source_key)
    if fn is None:
        return []
    try:
        return list(fn(owner=owner, source_key=source_key, day_key=day_key, scope_key=scope_key) or [])
    except Exception:  # a source's hook failing must not lose the pass: no corroboration then
        log.exception("corroboration hook for %s failed", source_key)
        return []


# --- the owner's daily review budget ----------------------------------------------------------------------
# ``review`` owns the setting (the Review page); it registers a reader here so the gate can keep the queue
# within it without importing an upper layer. Without a registration the default holds.
DEFAULT_REVIEW_BUDGET = 20
_REVIEW_BUDGET: list[Callable[..., int]] = []


def register_review_budget(fn: Callable[..., int]) -> None:
    _REVIEW_BUDGET[:] = [fn]


def review_budget(owner) -> int:
    """How many items a day the gate may put into ``owner``'s review queue; never raises."""
    if not _REVIEW_BUDGET:
        return DEFAULT_REVIEW_BUDGET
    try:
        return max(int(_REVIEW_BUDGET[0](owner)), 0)
    except Exception:  # a broken reader must not lose the pass: the default budget then
        log.exception("review budget reader failed")
        return DEFAULT_REVIEW_BUDGET
