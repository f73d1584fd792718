"""Configuration problems of the LLM path, reported once (log WARNING, system check) and on the Settings page.

Static problems (key encoding, URL shape, half a configuration) are found without network traffic. Runtime
problems (host does not answer, model not served) are noted by the client when a call meets them and by
``probe()`` at start-up; they are kept in the shared cache so the web process shows what the worker met, and
cleared by the next answer that arrives.
"""

from __future__ import annotations

import logging
import threading

import httpx
from django.core import checks
from django.core.cache import cache

from ledger.llm import config

log = logging.getLogger("ledger.llm")
PROBLEM_KEY = "llm:runtime-problem"
PROBLEM_SECONDS = 60 * 60 * 24


def note_problem(problem: str) -> None:
    """Remember a runtime problem; logged as a WARNING the first time it is seen (not on every call)."""
    if cache.get(PROBLEM_KEY) != problem:
        log.warning("LLM configuration problem: %s; the deterministic path runs instead", problem)
    cache.set(PROBLEM_KEY, problem, PROBLEM_SECONDS)


def clear_problem() -> None:
    if cache.get(PROBLEM_KEY) is not None:
        cache.delete(PROBLEM_KEY)


def problems() -> list[str]:
    """Everything wrong with the configuration that is known now (no network traffic)."""
    found = config.static_problems()
    runtime = cache.get(PROBLEM_KEY) if config.base_url() else None
    return found + ([runtime] if runtime else [])


def probe(timeout: float = 3.0) -> list[str]:
    """Ask the server which models it serves (``GET /v1/models``: no generation, no cost); note what is wrong."""
    if not config.llm_configured():
        return config.static_problems()
    headers = {"Authorization": f"Bearer {config.api_key()}"} if config.api_key() else {}
    try:
        response = httpx.get(config.endpoint("/models"), headers=headers, timeout=timeout)
    except httpx.HTTPError as exc:
        note_problem(f"the LLM host at {config.base_url()} does not answer ({type(exc).__name__})")
        return problems()
    if response.status_code in (401, 403):
        note_problem(f"the LLM server refused the API key (HTTP {response.status_code})")
    elif response.status_code < 400:
        try:
            served = [str(m.get("id", "")) for m in response.json().get("data", [])]
        except (ValueError, AttributeError):
            served = []
        if served and config.model_name() not in served:
            note_problem(f"the LLM server does not serve the model {config.model_name()!r} (it serves "
                         f"{', '.join(served[:5])})")  # fmt: skip
        else:
            clear_problem()
    return problems()


def report_at_startup() -> None:
    """Log the static problems now and probe the server in the background (start-up never waits for it)."""
    for problem in config.static_problems():
        log.warning("LLM configuration problem: %s; the deterministic path runs instead", problem)
    if config.llm_configured():
        threading.Thread(target=_probe_in_background, name="llm-probe", daemon=True).start()


def _probe_in_background() -> None:
    from django.db import connection

    try:
        probe()
    finally:
        connection.close()  # this thread's own connection (the cache is in the database)


def configuration_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """System check (shown when manage.py starts): static LLM configuration problems, as warnings."""
    return [
        checks.Warning(problem, hint="The LLM path is off until this is fixed; the deterministic path runs.",
                       id="llm.W001")
        for problem in config.static_problems()
    ]  # fmt: skip
