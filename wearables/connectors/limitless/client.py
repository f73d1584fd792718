"""Limitless HTTP calls. No parsing beyond JSON: the connector reads the payloads."""

from __future__ import annotations

from typing import Any

from wearables.connectors.http import ApiClient, Params


class LimitlessClient(ApiClient):
    """``GET /v1/lifelogs`` and ``GET /v1/lifelogs/{id}`` through a ``ProviderClient`` carrying ``X-API-Key``."""

    def list_lifelogs(self, params: Params, *, retries: int | None = None) -> Any:
        return self.http.get_json("/v1/lifelogs", params, retries=retries)

    def get_lifelog(self, lifelog_id: str) -> Any:
        return self.http.get_json(f"/v1/lifelogs/{lifelog_id}", {"includeMarkdown": "false"})
