"""Screen services: every write of the app goes through one of these modules, each named for its verb.

- sources: the owner's source settings and preferences, running a collect (``run_collect``, ``collect_enabled``)
- collect: one collect run (ScreenPipe items → signals → spans), then ``propose``
- propose: signals → proposed events with assertions and outcome evidence; ``close_stale``
- store: creating and revising events (the only writer of events, assertions and revisions)
- evidence: frames asked of ScreenPipe around an event's outcome
- curate: proposed events → day notes, entity notes or memories through ``distill``
- rollup: the day's rollup lines
- corrections: the owner's corrections of an event

Views, the API, ``manage.py screen``, tasks and the demo call the names below (or a module's verb).
"""

from screen.services.corrections import CORRECTIONS, Correction, CorrectionError, correct_event
from screen.services.sources import (
    SourceError,
    add_preference,
    collect_enabled,
    get_source,
    peek_source,
    remove_preference,
    run_collect,
    set_preferences,
    source_url,
    update_source,
)

__all__ = [
    "CORRECTIONS",
    "Correction",
    "CorrectionError",
    "SourceError",
    "add_preference",
    "collect_enabled",
    "correct_event",
    "get_source",
    "peek_source",
    "remove_preference",
    "run_collect",
    "set_preferences",
    "source_url",
    "update_source",
]
