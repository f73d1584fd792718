"""The optional LLM path: one client for any OpenAI-compatible endpoint, a daily call cap per owner in the
database, fences for data, and configuration problems reported instead of raised (docs/llm.md).

Callers use ``from ledger import llm`` and: ``llm.llm_configured()``, ``llm.ask_or_fall_back(...)`` (one call with
the deterministic path behind it: the failure or useless answer counted as a fallback, only a useful answer
cached), or its parts ``llm.ask(...)`` (raises ``llm.LLMError``), ``llm.remember(reply)`` for a useful answer and
``llm.fell_back(owner, call, reason)`` whenever the deterministic path runs instead; ``llm.CallType``. This
package is a Django app (label ``llm``) for its counters.
"""

from __future__ import annotations

import importlib

from ledger.llm.config import (
    CallType,
    daily_cap,
    llm_configured,
    model_in_use,
    model_name,
    model_work_waits_for_worker,
    offline,
)
from ledger.llm.fencing import Fence, escape

_LAZY = {  # these modules reach the models: imported on first use, after the app registry is ready
    "ask": "client", "ask_or_fall_back": "client", "Attempt": "client", "remember": "client", "embed": "client",
    "cache_key": "client", "Reply": "client",
    "LLMError": "client", "ConfigError": "client", "CapReached": "client",
    "take_call": "usage", "calls_today": "usage", "today_stats": "usage", "fell_back": "usage",
    "problems": "health", "probe": "health", "report_at_startup": "health",
}  # fmt: skip

__all__ = [
    "CallType",
    "Fence",
    "daily_cap",
    "escape",
    "llm_configured",
    "model_in_use",
    "model_name",
    "model_work_waits_for_worker",
    "offline",
    *_LAZY,
]


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(name)
    target = "record_fallback" if name == "fell_back" else name
    return getattr(importlib.import_module(f"ledger.llm.{module}"), target)
