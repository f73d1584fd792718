"""Wearables services: every write of the app goes through one of these functions.

Public (used by views, the API, the CLI, tasks, and the trust and recall areas):
- sources: ``ensure_sources``, ``get_source``, ``update_source``, ``check_source``, ``get_wearables_settings``,
  ``update_wearables_settings``
- sync: ``sync``, ``sync_enabled_sources``, ``recent_dates``, ``reprocess_stored_days``
- transcripts: ``write_day``, ``content_hash``, ``render_markdown``
- speakers: ``set_self_name``, ``set_speaker``, ``set_speaker_for_conversation``
- fix-ups: ``add_correction``, ``remove_correction``, ``add_redaction_rule``, ``remove_redaction_rule``
"""

from wearables.services.errors import WearablesError, WearablesValidationError
from wearables.services.fixups import add_correction, add_redaction_rule, remove_correction, remove_redaction_rule
from wearables.services.sources import (
    check_source,
    ensure_sources,
    get_source,
    get_wearables_settings,
    parse_kind,
    update_source,
    update_wearables_settings,
)
from wearables.services.speakers import set_self_name, set_speaker, set_speaker_for_conversation
from wearables.services.sync import recent_dates, reprocess_stored_days, sync, sync_enabled_sources
from wearables.services.transcripts import content_hash, render_markdown, write_day

__all__ = [
    "WearablesError",
    "WearablesValidationError",
    "add_correction",
    "add_redaction_rule",
    "check_source",
    "content_hash",
    "ensure_sources",
    "get_source",
    "get_wearables_settings",
    "parse_kind",
    "recent_dates",
    "remove_correction",
    "remove_redaction_rule",
    "render_markdown",
    "reprocess_stored_days",
    "set_self_name",
    "set_speaker",
    "set_speaker_for_conversation",
    "sync",
    "sync_enabled_sources",
    "update_source",
    "update_wearables_settings",
    "write_day",
]
