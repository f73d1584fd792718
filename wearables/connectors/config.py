"""Validating a source's stored settings into a connector's pydantic config without leaking secrets."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from wearables.connectors.base import ProviderError

ConfT = TypeVar("ConfT", bound=BaseModel)


def validate_conf(model: type[ConfT], data: dict[str, Any], provider: str) -> ConfT:
    """``model.model_validate(data)``; on failure a permanent ``ProviderError`` naming the fields.

    pydantic's own message quotes the input values, which may be keys, so only field names and reasons are kept.
    """
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = []
        for error in exc.errors(include_input=False, include_url=False):
            field = ".".join(str(part) for part in error.get("loc", ())) or "settings"
            message = "missing" if error.get("type") == "missing" else error.get("msg", "invalid")
            problems.append(f"{field} is missing" if message == "missing" else f"{field}: {message}")
        raise ProviderError(f"{provider} settings are incomplete: " + "; ".join(problems), permanent=True) from None
