"""Plain data the pipeline passes between steps. No Django, no I/O: every step is a pure function."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime


@dataclass
class Turn:
    """One utterance on its way through the pipeline."""

    text: str
    speaker_label: str = ""
    speaker_name: str = ""  # provider's human name, later the rendered name ("Dana (you)")
    is_wearer: bool | None = None  # provider flag in, decided flag out
    person_id: str | None = None  # provider's stable person id (Omi)
    person_pk: int | None = None  # our Person row, set by speaker labeling
    started_at: datetime | None = None
    ended_at: datetime | None = None
    # What the device said, kept unchanged so speakers can be relabeled later.
    provider_is_wearer: bool | None = None
    provider_speaker_name: str = ""


@dataclass
class Convo:
    source: str
    external_id: str
    started_at: datetime
    ended_at: datetime | None = None
    title: str = ""
    turns: list[Turn] = field(default_factory=list)
    wearer_label: str = ""
    wearer_method: str = "none"
    wearer_confidence: float = 0.0
    # (start, end or None) UTC stretches removed as off the record, shared with other devices' recordings
    elided: list[tuple] = field(default_factory=list)


@dataclass(frozen=True)
class KnownPerson:
    pk: int | None
    name: str
    is_self: bool = False


@dataclass
class PipelineConfig:
    """Everything user-specific a run needs, loaded once per sync by the service layer."""

    source: str = ""
    user_name: str = "You"  # display name, rendered as "Name (you)"
    self_names: list[str] = field(default_factory=list)  # names others call the wearer (cues)
    off_the_record: bool = True
    off_phrases: list[str] = field(default_factory=list)
    on_phrases: list[str] = field(default_factory=list)
    redaction_patterns: list[re.Pattern] = field(default_factory=list)
    corrections: list[tuple[str, str]] = field(default_factory=list)  # already filtered to this source
    # (identity_kind, key) -> person, for stable provider identities (Omi person ids, Limitless display names)
    identities: dict[tuple[str, str], KnownPerson] = field(default_factory=dict)
    # (conversation external id, speaker label) -> person, the user's per-conversation corrections
    assignments: dict[tuple[str, str], KnownPerson] = field(default_factory=dict)
    self_person: KnownPerson | None = None  # the Person marked "this is me", if the user made one
    # off-the-record stretches other devices elided that day: (start, end or None), UTC
    elided_elsewhere: list[tuple] = field(default_factory=list)
    # other devices' conversations from the same day whose wearer is known (for two-device alignment)
    reference: list[Convo] = field(default_factory=list)
    # people the user forgot (ledger.forget.hooks.NameMatcher: hashes only); None = nobody
    forgotten: object | None = None
