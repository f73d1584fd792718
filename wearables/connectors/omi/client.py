"""Omi HTTP calls for both surfaces. No parsing beyond JSON."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from wearables.connectors.http import ApiClient, Params, ProviderClient


class OmiIntegrationClient(ApiClient):
    """``/v2/integrations/{app_id}/conversations|memories?uid=…`` with the ``sk_…`` app key as Bearer."""

    def __init__(self, http: ProviderClient, *, app_id: str, user_id: str) -> None:
        super().__init__(http)
        self.prefix = f"/v2/integrations/{quote(app_id, safe='')}"
        self.user_id = user_id

    def conversations(self, params: list[tuple[str, Any]], *, retries: int | None = None) -> Any:
        return self.http.get_json(f"{self.prefix}/conversations", [("uid", self.user_id), *params], retries=retries)

    def memories(self, params: list[tuple[str, Any]]) -> Any:
        return self.http.get_json(f"{self.prefix}/memories", [("uid", self.user_id), *params])


class OmiDeveloperClient(ApiClient):
    """``/v1/dev/user/conversations|memories`` with the ``omi_dev_…`` key as Bearer (bare JSON arrays)."""

    def conversations(self, params: Params, *, retries: int | None = None) -> Any:
        return self.http.get_json("/v1/dev/user/conversations", params, retries=retries)

    def memories(self, params: Params) -> Any:
        return self.http.get_json("/v1/dev/user/memories", params)
