"""What the Settings page shows about the LLM path: configuration, problems, today's figures per call type."""

from __future__ import annotations

import httpx

from ledger.llm import config, health, usage


def settings_summary(owner) -> dict:
    """No network traffic: static problems plus the last runtime problem a call or the start-up probe met."""
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
    return {
        "configured": bool(url or config.model_name()),
        "usable": config.llm_configured(),
        "model": config.model_name(),
        "host": host,
        "problems": health.problems(),
        "cap": config.daily_cap(),
        "calls_today": usage.calls_today(owner),
        "rows": rows,
        "active": any(r["calls"] or r["fallbacks"] for r in rows),
    }
