"""What the model server is like and what is wrong with it: reported once (log WARNING, system check), on the
Settings page and by ``manage.py check_llm``.

Static problems (key encoding, URL shape, half a configuration) are found without network traffic. Runtime
problems (host does not answer, model not served, key refused, context window too small, no structured-output form
accepted, answers interrupted) are noted by the client when a call meets them and by ``probe()``; they are kept in
the shared cache so the web process shows what the worker met, and cleared by the next answer that arrives.

The server's dialect (``dialects``) is learned per configuration (base URL and model): ``probe()`` at start-up
asks with a one-line request in each form until one is accepted; a call that finds none known learns it by
stepping down. It is kept in the shared cache (a new configuration has a new key, so it is probed again) and in
this process.
"""

from __future__ import annotations

import hashlib
import logging
import threading

import httpx
from django.core import checks
from django.core.cache import cache
from pydantic import BaseModel

from ledger.llm import config, dialects, transport

log = logging.getLogger("ledger.llm")
PROBLEM_KEY = "llm:runtime-problem"
PROBLEM_SECONDS = 60 * 60 * 24
DIALECT_SECONDS = 60 * 60 * 24 * 7
_dialects: dict[tuple[str, str], str] = {}  # (server root, model) → dialect, in this process


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


# --- The server's dialect ------------------------------------------------------------------------------
def _server() -> tuple[str, str]:
    return config.server_root(), config.model_name()


def _dialect_key() -> str:
    return "llm:dialect:" + hashlib.sha256("|".join(_server()).encode()).hexdigest()[:24]


def known_dialect() -> str | None:
    """The dialect this configuration's server accepted, if known (this process, else the shared cache)."""
    found = _dialects.get(_server())
    if found is None:
        found = cache.get(_dialect_key())
        if found in dialects.Dialect.values:
            _dialects[_server()] = found
    return found if found in dialects.Dialect.values else None


def remember_dialect(dialect: str) -> None:
    _dialects[_server()] = dialect
    cache.set(_dialect_key(), dialect, DIALECT_SECONDS)


def answered(dialect: str) -> None:
    """A call in ``dialect`` was answered: the server speaks it, and nothing is wrong with the connection."""
    if known_dialect() != dialect:
        remember_dialect(dialect)
    clear_problem()


def note_refusal(refused: transport.Refused) -> None:
    """Turn a refusal that every call would meet into a runtime problem (a single failure is not one)."""
    kind = dialects.Refusal
    if refused.kind == kind.MODEL:
        note_problem(f"the LLM server does not serve the model {config.model_name()!r} (HTTP {refused.status})")
    elif refused.kind == kind.AUTH:
        note_problem(f"the LLM server refused the API key (HTTP {refused.status})")
    elif refused.kind == kind.CONTEXT:
        note_problem(f"the LLM server's context window is too small for a request (HTTP {refused.status}: "
                     f"{refused.message[:120]}); start it with a larger context (llama.cpp: --n_ctx 8192)")  # fmt: skip
    elif refused.kind == kind.SHAPE:
        note_problem(f"calls will fail: the LLM server refused every structured-output form (last: HTTP "
                     f"{refused.status}: {refused.message[:120]})")  # fmt: skip


# --- Probing -------------------------------------------------------------------------------------------
class _ProbeAnswer(BaseModel):
    ok: bool


def is_ollama(timeout: float) -> bool:
    """Ollama answers ``GET /api/version`` with its version; OpenAI-compatible servers do not."""
    try:
        response = httpx.get(config.server_root() + "/api/version", timeout=timeout)
        return response.status_code == 200 and "version" in response.json()
    except (httpx.HTTPError, ValueError, AttributeError, TypeError):
        return False


def learn_dialect(timeout: float = 30.0) -> tuple[str | None, list[str]]:
    """Ask a one-line question in each form of the server's chain until one is accepted; remember it. Returns the
    dialect (None when every form was refused) and what each refused form got."""
    from ledger.llm.client import send

    chain = dialects.OLLAMA_CHAIN if is_ollama(min(timeout, 3.0)) else dialects.OPENAI_CHAIN
    messages = [{"role": "system", "content": "Answer whether this works."}, {"role": "user", "content": "{}"}]
    tried: list[str] = []
    for dialect in chain:
        try:
            send(dialect, config.CallType.RECALL_GATE, messages, _ProbeAnswer, timeout)
        except transport.Refused as exc:
            tried.append(f"{dialect}: HTTP {exc.status} {exc.message[:80]}")
            # Past the form the request names, a server may refuse with a bare 400 or 500: the next form tells.
            if exc.kind not in (dialects.Refusal.SHAPE, dialects.Refusal.SERVER):
                note_refusal(exc)
                return None, tried
            continue
        except transport.Unfinished:
            pass  # accepted: the form is right even when the short answer did not finish
        except transport.Unreachable as exc:
            note_problem(f"the LLM host at {config.base_url()} does not answer ({exc})")
            return None, tried
        remember_dialect(dialect)
        return dialect, tried
    note_problem("calls will fail: the LLM server refused every structured-output form (" + "; ".join(tried) + ")")
    return None, tried


def probe(timeout: float = 3.0, *, answer_timeout: float = 60.0) -> list[str]:
    """Ask the server which models it serves (``GET /v1/models``: no generation), then learn its dialect with
    one-line requests (``answer_timeout`` each); note what is wrong and return every known problem."""
    if not config.model_in_use():
        return config.static_problems()
    from ledger.llm.client import headers

    try:
        response = httpx.get(config.endpoint("/models"), headers=headers(), timeout=timeout)
    except httpx.HTTPError as exc:
        note_problem(f"the LLM host at {config.base_url()} does not answer ({type(exc).__name__})")
        return problems()
    if response.status_code in (401, 403):
        note_problem(f"the LLM server refused the API key (HTTP {response.status_code})")
        return problems()
    served: list[str] = []
    if response.status_code < 400:
        try:
            served = [str(m.get("id", "")) for m in response.json().get("data", [])]
        except (ValueError, AttributeError):
            served = []
    if served and config.model_name() not in served:
        note_problem(f"the LLM server does not serve the model {config.model_name()!r} (it serves "
                     f"{', '.join(served[:5])})")  # fmt: skip
        return problems()
    clear_problem()
    dialect, _ = learn_dialect(answer_timeout)
    if dialect is not None:
        log.info("LLM server at %s speaks %s", config.base_url(), dialects.Dialect(dialect).label)
    return problems()


def report_at_startup() -> None:
    """Log the static problems now and probe the server in the background (start-up never waits for it)."""
    for problem in config.static_problems():
        log.warning("LLM configuration problem: %s; the deterministic path runs instead", problem)
    if config.model_in_use():
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
