"""Sources and the per-user feature settings: the only writers of Source and WearablesSettings."""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.utils import timezone

from wearables.connectors import ProviderError, get_connector
from wearables.models import Source, SourceKind, WearablesSettings
from wearables.services.errors import WearablesError, WearablesValidationError

logger = logging.getLogger(__name__)

# Credential fields each provider accepts (anything else is refused so typos don't vanish silently).
CREDENTIAL_FIELDS = {
    "limitless": {"api_key"},
    "bee": {"api_token"},
    "omi": {"api_key", "app_id", "user_id", "api"},
}
TRUST_FIELDS = ("source_trust", "auto_approve_trust", "review_trust", "min_confidence")


def get_wearables_settings(owner) -> WearablesSettings:
    obj, _ = WearablesSettings.objects.get_or_create(owner=owner)
    return obj


def update_wearables_settings(
    *,
    owner,
    enabled: bool | None = None,
    export_markdown: bool | None = None,
    off_the_record: bool | None = None,
    off_phrases: list[str] | None = None,
    on_phrases: list[str] | None = None,
) -> WearablesSettings:
    obj = get_wearables_settings(owner)
    for name, value in (("enabled", enabled), ("export_markdown", export_markdown), ("off_the_record", off_the_record)):
        if value is not None:
            setattr(obj, name, bool(value))
    for name, value in (("off_phrases", off_phrases), ("on_phrases", on_phrases)):
        if value is not None:
            phrases = [p.strip() for p in value if p and p.strip()]
            if any(len(p) > 100 or len(p.split()) < 2 for p in phrases):
                raise WearablesValidationError(f"{name}: each phrase needs 2 to 100 characters and at least two words")
            setattr(obj, name, phrases)
    obj.save()
    return obj


def parse_kind(kind: str) -> str:
    kind = (kind or "").strip().lower()
    if kind not in SourceKind.values:
        raise WearablesError(f"Unknown source {kind!r}: expected one of {', '.join(SourceKind.values)}")
    return kind


def ensure_sources(owner) -> list[Source]:
    """One (disabled) Source row per provider kind, so pages and the API always list all three."""
    existing = {s.kind: s for s in Source.objects.owned_by(owner)}
    for kind in SourceKind.values:
        if kind not in existing:
            existing[kind], _ = Source.objects.get_or_create(owner=owner, kind=kind)
    return [existing[k] for k in SourceKind.values]


def get_source(owner, kind: str) -> Source:
    kind = parse_kind(kind)
    source, _ = Source.objects.get_or_create(owner=owner, kind=kind)
    return source


def _validate_trust(values: dict[str, Any]) -> None:
    for name in TRUST_FIELDS:
        value = values.get(name)
        if value is not None and not (0.0 <= float(value) <= 1.0):
            raise WearablesValidationError(f"{name} must be between 0 and 1")


@transaction.atomic
def update_source(*, owner, kind: str, **changes: Any) -> Source:
    """Change a source's settings. ``credentials`` replaces stored fields given (empty string clears one).

    Raises WearablesValidationError (422) for values that cannot be saved. Never logs credential values.
    """
    source = Source.objects.select_for_update().get(pk=get_source(owner, kind).pk)
    changes = {k: v for k, v in changes.items() if v is not None}
    credentials = changes.pop("credentials", None)
    if credentials is not None:
        allowed = CREDENTIAL_FIELDS[source.kind]
        unknown = sorted(set(credentials) - allowed)
        if unknown:
            raise WearablesValidationError(
                f"credentials: unknown field(s) {', '.join(unknown)} for {source.kind}; expected {', '.join(sorted(allowed))}"
            )
        merged = dict(source.credentials or {})
        for key, value in credentials.items():
            value = (str(value) if value is not None else "").strip()
            if value:
                merged[key] = value
            else:
                merged.pop(key, None)
        source.credentials = merged
    if "base_url" in changes:
        url = str(changes["base_url"]).strip()
        if url and not url.startswith(("http://", "https://")):
            raise WearablesValidationError("base_url must start with http:// or https://")
        changes["base_url"] = url.rstrip("/")
    if "memory_mode" in changes and changes["memory_mode"] not in Source.MemoryMode.values:
        raise WearablesValidationError(f"memory_mode must be one of {', '.join(Source.MemoryMode.values)}")
    if "import_native_memories" in changes and changes["import_native_memories"] not in Source.NativeMode.values:
        raise WearablesValidationError(f"import_native_memories must be one of {', '.join(Source.NativeMode.values)}")
    if "min_importance" in changes and changes["min_importance"] not in Source.Importance.values:
        raise WearablesValidationError(f"min_importance must be one of {', '.join(Source.Importance.values)}")
    if "max_memories_per_day" in changes and int(changes["max_memories_per_day"]) < 0:
        raise WearablesValidationError("max_memories_per_day must be 0 (no limit) or more")
    _validate_trust(changes)
    merged_trust = {name: changes.get(name, getattr(source, name)) for name in TRUST_FIELDS}
    if float(merged_trust["review_trust"]) > float(merged_trust["auto_approve_trust"]):
        raise WearablesValidationError("review_trust must not be above auto_approve_trust")
    editable = {
        "enabled",
        "base_url",
        "memory_mode",
        "source_trust",
        "auto_approve_trust",
        "review_trust",
        "min_importance",
        "max_memories_per_day",
        "min_confidence",
        "import_native_memories",
    }
    for name, value in changes.items():
        if name not in editable:
            raise WearablesValidationError(f"{name} cannot be changed")
        setattr(source, name, value)
    source.save()
    if source.enabled:
        # Turning a source on turns the feature on: nothing else would ever sync it.
        update_wearables_settings(owner=owner, enabled=True)
    return source


def connector_for(source: Source, **kwargs):
    return get_connector(source.kind, base_url=source.base_url, credentials=source.credentials, **kwargs)


def check_source(*, owner, kind: str) -> Source:
    """One cheap authenticated provider call; stores and returns the outcome (message is key-free)."""
    source = get_source(owner, kind)
    try:
        result = connector_for(source, max_retries=1).check()
        ok, message = result.ok, result.message
    except ProviderError as exc:
        ok, message = False, exc.message
    source.last_check_ok = ok
    source.last_check_message = message[:500]
    source.last_checked_at = timezone.now()
    source.save(update_fields=["last_check_ok", "last_check_message", "last_checked_at", "updated_at"])
    return source
