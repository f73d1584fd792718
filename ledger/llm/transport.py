"""One streamed request to a model server under one deadline for the whole answer.

``send(request, timeout)`` returns the ``Answer`` (content, tokens, why it finished) or raises:

- ``Refused`` when the server answered with an error status (its ``Refusal`` kind says why: the form, the context
  window, the model, the key, busy, or a failure);
- ``Unfinished`` when the answer did not finish: the deadline passed, the connection was cut, the server stopped
  early (llama-cpp-python's ``interrupt_requests`` ends an answer with ``[DONE]`` when another request arrives) or
  the answer reached ``max_tokens``. ``Unfinished.answer`` keeps what arrived, so its tokens are counted.

The deadline is a timer, not a check made when a line arrives: when it fires, the socket is shut down, so a read
blocked on a stalled stream returns at once, and a server that notices the closed connection (llama.cpp does, for
streamed requests) stops generating. Errors never carry the API key or the prompt.
"""

from __future__ import annotations

import json
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from functools import cache

import httpx

from ledger.llm.dialects import Refusal, Request, classify, error_text


@dataclass
class Answer:
    parts: list[str] = field(default_factory=list)
    tokens: int = 0  # as the server reported them (prompt + completion); 0 when it did not
    finish: str | None = None  # "stop", "length", ... as the server said; None until it says

    @property
    def content(self) -> str:
        return "".join(self.parts)


class TransportError(Exception):
    pass


class Refused(TransportError):
    def __init__(self, kind: Refusal, status: int, message: str) -> None:
        super().__init__(f"HTTP {status}: {message[:200]}")
        self.kind, self.status, self.message = kind, status, message


class Unfinished(TransportError):
    """``interrupted``: the server itself ended the answer early (not the deadline, not ``max_tokens``)."""

    def __init__(self, why: str, answer: Answer, *, interrupted: bool = False) -> None:
        super().__init__(why)
        self.answer, self.interrupted = answer, interrupted


class Unreachable(TransportError):
    pass


class _Deadline:
    """Shuts the response's socket down when the time is up (from a timer thread)."""

    def __init__(self, seconds: float) -> None:
        self.fired = threading.Event()
        self._socket: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(max(0.0, seconds), self._fire)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._timer.cancel()

    def watch(self, response: httpx.Response) -> None:
        stream = response.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        with self._lock:
            self._socket = sock
        if self.fired.is_set():
            self._shut()

    def _fire(self) -> None:
        self.fired.set()
        self._shut()

    def _shut(self) -> None:
        with self._lock:
            if self._socket is not None:
                try:
                    self._socket.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass  # already closed


@cache
def _tls() -> ssl.SSLContext:
    """Made once: building a TLS context (loading the CA bundle) takes a quarter of a second on a busy machine,
    longer than the recall gate's whole budget allows."""
    return httpx.create_ssl_context()


def send(url: str, request: Request, *, headers: dict, timeout: float, asked_for_a_form: bool) -> Answer:
    """POST ``request`` to ``url`` and read the streamed answer within ``timeout`` seconds overall."""
    answer = Answer()
    limits = httpx.Timeout(timeout, connect=min(timeout, 5.0))
    verify = _tls() if url.startswith("https:") else False  # plain HTTP needs no TLS context
    started = time.monotonic()
    with _Deadline(timeout) as deadline:
        try:
            with httpx.Client(timeout=limits, verify=verify) as client:
                with client.stream("POST", url, json=request.body, headers=headers) as response:
                    deadline.watch(response)
                    if response.status_code >= 400:
                        message = error_text(response.read())
                        kind = classify(response.status_code, message, asked_for_a_form=asked_for_a_form)
                        raise Refused(kind, response.status_code, message)
                    try:
                        _read(request, response, answer)
                    except Unfinished:
                        if deadline.fired.is_set():  # the stream was closed under the reader: that is the deadline
                            raise Unfinished(_late(timeout), answer) from None
                        raise
        except httpx.ConnectError as exc:
            raise Unreachable(type(exc).__name__) from exc
        except (httpx.HTTPError, OSError) as exc:
            if deadline.fired.is_set() or time.monotonic() - started >= timeout:
                raise Unfinished(_late(timeout), answer) from exc
            raise Unfinished(f"the connection broke mid-answer ({type(exc).__name__})", answer) from exc
    if deadline.fired.is_set():
        raise Unfinished(_late(timeout), answer)
    if answer.finish == "length":
        raise Unfinished("the answer was cut at max_tokens", answer)
    return answer


def _late(timeout: float) -> str:
    return f"the answer did not finish within {timeout:g}s (connection closed)"


def _read(request: Request, response: httpx.Response, answer: Answer) -> None:
    if request.ndjson:
        _read_ndjson(response, answer)
    elif "text/event-stream" in response.headers.get("content-type", ""):
        _read_events(response, answer)
    else:
        _read_whole(response, answer)


def _read_events(response: httpx.Response, answer: Answer) -> None:
    """OpenAI server-sent events: ``data: {chunk}`` lines, then ``data: [DONE]``."""
    for line in response.iter_lines():
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            if answer.finish is None:
                # llama-cpp-python ends an interrupted answer this way (``interrupt_requests``, its default).
                raise Unfinished(
                    "the server ended the answer before it finished (interrupted)", answer, interrupted=True
                )
            return
        event = _json(data, answer)
        if "error" in event:
            raise Unfinished(f"the server reported an error mid-answer: {error_text(data.encode())[:200]}", answer)
        answer.tokens = int((event.get("usage") or {}).get("total_tokens") or answer.tokens)
        for choice in event.get("choices") or []:
            answer.parts.append((choice.get("delta") or {}).get("content") or "")
            answer.finish = choice.get("finish_reason") or answer.finish
    if answer.finish is None:
        raise Unfinished("the stream ended before the answer was complete", answer)


def _read_ndjson(response: httpx.Response, answer: Answer) -> None:
    """Ollama: one JSON object per line, the last with ``"done": true`` and the token counts."""
    for line in response.iter_lines():
        if not line.strip():
            continue
        event = _json(line, answer)
        if event.get("error"):
            raise Unfinished(f"the server reported an error mid-answer: {str(event['error'])[:200]}", answer)
        answer.parts.append((event.get("message") or {}).get("content") or "")
        if event.get("done"):
            answer.finish = event.get("done_reason") or "stop"
            answer.tokens = int(event.get("prompt_eval_count") or 0) + int(event.get("eval_count") or 0)
            return
    raise Unfinished("the stream ended before the answer was complete", answer)


def _read_whole(response: httpx.Response, answer: Answer) -> None:
    """A server that ignores ``"stream": true`` and sends one JSON body."""
    body = _json(response.read().decode("utf-8", "replace"), answer)
    try:
        choice = body["choices"][0]
        answer.parts.append(choice["message"]["content"] or "")
    except (KeyError, IndexError, TypeError) as exc:
        raise Unfinished("the answer has no message content", answer) from exc
    answer.finish = choice.get("finish_reason") or "stop"
    answer.tokens = int((body.get("usage") or {}).get("total_tokens") or 0)


def _json(text: str, answer: Answer) -> dict:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise Unfinished("the stream has an unreadable event", answer) from exc
    if not isinstance(value, dict):
        raise Unfinished("the stream has an unreadable event", answer)
    return value
