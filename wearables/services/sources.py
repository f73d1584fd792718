"""Sources and the per-user feature settings: the only writers of Source and WearablesSettings."""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.utils import timezone

from distill import policies
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
# The device's memory settings live in the trust gate's policy (distill.GatePolicy); page/API name -> field.
POLICY_FIELDS = {
    "memory_mode": "mode",
    "source_trust": "source_trust",
    "auto_approve_trust": "auto_approve_trust",
    "review_trust": "review_trust",
    "min_importance": "min_importance",
    "max_memories_per_day": "max_memories_per_day",
    "min_confidence": "min_confidence",
    "import_native_memories": "native_mode",
}


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


def memory_source_key(kind: str) -> str:
    """The trust gate's key for a device: its gate policy and the source label of its memories."""
    return f"wearable:{kind}"


def gate_policy(source: Source):
    """The device's gate policy (``distill.GatePolicy``), created with the defaults on first use."""
    return policies.get_policy(source.owner, memory_source_key(source.kind))


def policy_view(source: Source) -> dict[str, Any]:
    """The gate policy under the names the Sources page and the sources API have always used."""
    gate = gate_policy(source)
    return {name: getattr(gate, field) for name, field in POLICY_FIELDS.items()}


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
        # One limit for the form and the API: the column's own (SourceIn declares the same number).
        limit = Source._meta.get_field("base_url").max_length
        if len(url) > limit:
            raise WearablesValidationError(f"base_url is too long ({len(url)} characters, at most {limit})")
        changes["base_url"] = url.rstrip("/")
    policy_changes = {POLICY_FIELDS[k]: changes.pop(k) for k in list(changes) if k in POLICY_FIELDS}
    editable = {"enabled", "base_url"}
    for name, value in changes.items():
        if name not in editable:
            raise WearablesValidationError(f"{name} cannot be changed")
        setattr(source, name, value)
    if policy_changes:
        # The gate validates (422 PolicyError, messages in this page's names); the transaction keeps both or none.
        labels = {field: name for name, field in POLICY_FIELDS.items()}
        policies.update_policy(owner=owner, source_key=memory_source_key(source.kind), labels=labels, **policy_changes)
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
