from __future__ import annotations

from django import template

register = template.Library()

BAND_CLASS = {"certain": "ok", "high": "ok", "medium": "warn", "low": "bad"}


@register.filter
def band_class(band: str) -> str:
    """CSS badge class for a confidence band."""
    return BAND_CLASS.get(band, "")


@register.filter
def label(value: str) -> str:
    """Human label for a snake_case status or use: "pending_review" -> "pending review"."""
    return str(value).replace("_", " ")
