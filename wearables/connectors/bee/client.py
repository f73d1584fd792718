"""Bee HTTP calls (``/v1/conversations``, ``/v1/conversations/{id}``, ``/v1/facts``). No parsing beyond JSON."""

from __future__ import annotations

from typing import Any

from wearables.connectors.http import ApiClient, Params


class BeeClient(ApiClient):
    """Thin wrapper over a ``ProviderClient`` that carries the Bearer token when there is one."""

    def list_conversations(self, params: Params, *, retries: int | None = None) -> Any:
        return self.http.get_json("/v1/conversations", params, retries=retries)

    def get_conversation(self, conversation_id: int | str) -> Any:
        return self.http.get_json(f"/v1/conversations/{conversation_id}")

    def list_facts(self, params: Params) -> Any:
        return self.http.get_json("/v1/facts", params)
