"""What the Settings page shows about the LLM path: configuration, problems, today's figures per call type."""

from __future__ import annotations

import httpx

from ledger.llm import config, dialects, health, usage


def settings_summary(owner) -> dict:
    """No network traffic: static problems plus the last runtime problem a call or the start-up probe met, and
    whether the worker uses the model (a page itself never calls it)."""
    url = config.base_url()
    try:
        host = httpx.URL(url).host if url else ""
    except (httpx.InvalidURL, ValueError, TypeError):
        host = ""
    rows = [
        {"label": config.CallType(s.call_type).label, "calls": s.calls, "valid": s.valid, "fallbacks": s.fallbacks,
         "average_ms": s.average_latency_ms, "tokens": s.tokens}
        for s in usage.today_stats(owner)
    ]  # fmt: skip
    problems = health.problems()
    dialect = health.known_dialect() if config.model_in_use() else None
    return {
        "configured": bool(url or config.model_name()),
        # The worker's view, not this request's: pages never call the model, the worker does (``offline``).
        "usable": config.model_in_use(),
        "failing": any(p.startswith("calls will fail") for p in problems),
        "dialect": dialects.Dialect(dialect).label if dialect else "",
        "model": config.model_name(),
        "host": host,
        "problems": problems,
        "cap": config.daily_cap(),
        "calls_today": usage.calls_today(owner),
        "rows": rows,
        "active": any(r["calls"] or r["fallbacks"] for r in rows),
    }
