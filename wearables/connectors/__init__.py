"""Connector registry: ``kind`` → connector class, imported lazily so adding a provider is one line here.

Credentials come from the environment first, then the source's stored settings; base URLs from the source's
settings, then ``ALMANAC_<KIND>_BASE_URL``, then the provider's public host. The environment is read at call
time with ``os.environ`` (not Django settings) because connectors also run without Django: the imitation CLI
and the benchmarks use them directly.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from wearables.connectors.base import (
    CheckResult,
    Connector,
    FetchResult,
    NativeMemory,
    ProviderError,
    RawConversation,
    RawUtterance,
)

CONNECTOR_KINDS: dict[str, str] = {
    "limitless": "wearables.connectors.limitless.connector.LimitlessConnector",
    "bee": "wearables.connectors.bee.connector.BeeConnector",
    "omi": "wearables.connectors.omi.connector.OmiConnector",
}

PUBLIC_BASE_URLS: dict[str, str] = {
    "limitless": "https://api.limitless.ai",
    # Bee's direct host uses a private CA; the local `bee proxy` is the realistic target for a self-hosted server.
    "bee": "http://127.0.0.1:8787",
    "omi": "https://api.omi.me",
}

# credential field → env variables, first match wins.
CREDENTIAL_ENV: dict[str, dict[str, tuple[str, ...]]] = {
    "limitless": {"api_key": ("ALMANAC_LIMITLESS_API_KEY", "LIMITLESS_API_KEY")},
    "bee": {"api_token": ("ALMANAC_BEE_API_TOKEN", "BEE_API_TOKEN")},
    "omi": {
        "api_key": ("ALMANAC_OMI_API_KEY", "OMI_API_KEY"),
        "app_id": ("ALMANAC_OMI_APP_ID", "OMI_APP_ID"),
        "user_id": ("ALMANAC_OMI_USER_ID", "OMI_USER_ID"),
        "api": ("ALMANAC_OMI_API",),
    },
}

__all__ = [
    "CONNECTOR_KINDS",
    "CheckResult",
    "Connector",
    "FetchResult",
    "NativeMemory",
    "ProviderError",
    "RawConversation",
    "RawUtterance",
    "credentials_from_env",
    "default_base_url",
    "get_connector",
    "resolve_credentials",
]


def _require_kind(kind: str) -> None:
    if kind not in CONNECTOR_KINDS:
        raise ProviderError(
            f"Unknown source kind {kind!r}; expected one of {', '.join(CONNECTOR_KINDS)}", permanent=True
        )


def default_base_url(kind: str) -> str:
    """``ALMANAC_<KIND>_BASE_URL`` if set, else the provider's public host (Bee: the local proxy on 8787)."""
    _require_kind(kind)
    return os.environ.get(f"ALMANAC_{kind.upper()}_BASE_URL", "").strip() or PUBLIC_BASE_URLS[kind]


def credentials_from_env(kind: str) -> dict[str, str]:
    """The credential fields set in the environment for ``kind`` (empty dict when none are)."""
    _require_kind(kind)
    found: dict[str, str] = {}
    for field, names in CREDENTIAL_ENV[kind].items():
        for name in names:
            value = os.environ.get(name, "").strip()
            if value:
                found[field] = value
                break
    return found


def resolve_credentials(kind: str, stored: dict[str, Any] | None) -> dict[str, Any]:
    """Stored settings overlaid with the environment, field by field (the environment wins)."""
    return {**(stored or {}), **credentials_from_env(kind)}


def get_connector(
    kind: str,
    *,
    base_url: str | None = None,
    credentials: dict[str, Any] | None = None,
    use_env: bool = True,
    **kwargs: Any,
) -> Connector:
    """Build the connector for ``kind``.

    ``base_url`` falls back to ``default_base_url(kind)``; ``credentials`` (the source's stored settings) are
    overlaid with the environment unless ``use_env=False``. Extra ``kwargs`` (``timeout``, ``max_retries``,
    ``sleep``) go to the connector. Raises ``ProviderError(permanent=True)`` for an unknown kind. Missing or
    malformed credentials are reported by ``check()`` / raised by the fetch methods, not here.
    """
    _require_kind(kind)
    module_path, _, class_name = CONNECTOR_KINDS[kind].rpartition(".")
    connector_class = getattr(importlib.import_module(module_path), class_name)
    creds = resolve_credentials(kind, credentials) if use_env else dict(credentials or {})
    return connector_class(base_url=(base_url or "").strip() or default_base_url(kind), credentials=creds, **kwargs)
