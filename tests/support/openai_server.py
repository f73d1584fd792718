"""A local imitation of an OpenAI-compatible endpoint, for tests and benches (never a real model).

    server = OpenAIImitation().start()
    settings.ALMANAC_LLM_BASE_URL = server.base_url        # http://127.0.0.1:<port>/v1
    server.chat_handler = lambda messages: '{"candidates": []}'
    server.mode = "timeout"
    server.stop()

Modes (injected behaviours of real servers and models):

- ``ok``: the handler's content; SSE chunks for ``"stream": true`` (one per word, cut at ``max_tokens`` words
  with ``finish_reason: "length"``), one JSON body otherwise;
- ``invalid_json``: a content that is not JSON; ``timeout``: stalls ``timeout_seconds`` before any byte, then 504;
- ``error``: HTTP 500; ``cut``: the connection closes in the middle of the answer;
- ``runaway``: a model that never stops: words keep coming until ``max_tokens`` is reached or the client goes
  away (``active`` counts generations still running, so a test can see that giving up stopped the work);
- ``refuse_schema``: HTTP 400 for ``response_format: json_schema`` (older servers), normal otherwise;
- ``stall``: one chunk of the answer after ``word_delay``, then nothing for ``timeout_seconds`` (a stream that
  stalls mid-answer).

``mode_for`` (a callable taking the request body) chooses the mode per request instead of ``mode``.

``dialect`` is the server being imitated, with its structured-output forms and its error shapes:

- ``openai`` (default): ``response_format`` ``json_schema``, ``json_object`` and ``text`` (OpenAI, vLLM);
- ``llama-cpp-python``: its ``response_format`` takes only ``text`` and ``json_object`` (with its own ``schema``
  key); ``json_schema`` is answered with HTTP 500 and the pydantic validation error, as llama-cpp-python 0.3.36
  does. ``interrupt_requests`` (its default, True) ends a streamed answer with ``[DONE]`` and no
  ``finish_reason`` when another request arrives;
- ``ollama``: ``GET /api/version`` and ``POST /api/chat`` (``format``: a schema or ``"json"``,
  ``options.num_predict``, an NDJSON stream ending with ``done``, ``done_reason`` and token counts); errors are
  ``{"error": "..."}``.

``schema_of(body)`` tells what schema a request carried and where (``response_format``, ``format``, the prompt or
nowhere). With ``echo_without_schema`` the imitated model is a small one: it follows a schema only when the server
enforces it (``response_format`` or ``format``) and otherwise echoes the data it was given, as a 270M model did
when plain ``json_object`` dropped the schema.

``models`` (if set) is what ``GET /v1/models`` lists; a chat request for another model gets 404.
``requests`` records every request body received (for asserting what was sent, e.g. that turns stay fenced).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def default_embedding(texts: list[str], dims: int = 16) -> list[list[float]]:
    """Deterministic bag-of-words vectors: texts sharing words get similar vectors."""
    out = []
    for text in texts:
        vec = [0.0] * dims
        for word in text.lower().split():
            h = int(hashlib.sha256(word.encode()).hexdigest(), 16)
            vec[h % dims] += 1.0
        norm = sum(x * x for x in vec) ** 0.5 or 1.0
        out.append([x / norm for x in vec])
    return out


class OpenAIImitation:
    def __init__(self, *, timeout_seconds: float = 5.0, word_delay: float = 0.0) -> None:
        self.chat_handler = lambda messages: "{}"
        self.embedding_handler = default_embedding
        self.mode = "ok"
        self.timeout_seconds = timeout_seconds  # how long "timeout" mode stalls before answering
        self.word_delay = word_delay  # seconds between streamed words (a slow model)
        self.mode_for = None  # optional callable(body) -> mode, chosen per request (benches mixing faults)
        self.models: list[str] = []
        self.dialect = "openai"
        self.interrupt_requests = True  # llama-cpp-python's default
        self.echo_without_schema = False  # answer with the data unless the server enforces the schema
        self.requests: list[dict] = []
        self.streaming = 0  # answers being streamed now
        self.active = 0  # generations still running (runaway mode)
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "call start() first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def chat_requests(self) -> list[dict]:
        return [r["body"] for r in self.requests if r["path"].rstrip("/").endswith("/chat/completions")]

    def _generation(self, delta: int) -> None:
        with self._lock:
            self.active += delta

    def _streaming(self, delta: int) -> None:
        with self._lock:
            self.streaming += delta

    def start(self) -> OpenAIImitation:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


def schema_of(body: dict) -> str:
    """Where a chat request carried the answer's schema: "response_format", "format", "prompt" or ""."""
    rf = body.get("response_format") or {}
    if rf.get("type") == "json_schema" and (rf.get("json_schema") or {}).get("schema"):
        return "response_format"
    if rf.get("type") == "json_object" and rf.get("schema"):
        return "response_format"
    if isinstance(body.get("format"), dict):
        return "format"
    system = next((m.get("content", "") for m in body.get("messages") or [] if m.get("role") == "system"), "")
    return "prompt" if "JSON schema" in system else ""


def _data_of(body: dict) -> str:
    user = next((m.get("content", "") for m in body.get("messages") or [] if m.get("role") == "user"), "")
    lines = user.split("\n")
    return lines[1] if len(lines) >= 3 else user


_LLAMA_CPP_PYTHON_500 = (  # llama-cpp-python 0.3.36's answer to response_format json_schema, as a real server sent it
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input "
    "should be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or 'json_object'\"}}"
    '\n\n  File "llama_cpp/server/app.py", line 376, in create_chat_completion\n    POST /v1/chat/completions'
)


def _chunk(body: dict, delta: dict, finish=None) -> dict:
    return {"id": "chatcmpl-imitation", "object": "chat.completion.chunk", "created": 1767225600,
            "model": body.get("model", "imitation"), "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip


def _handler_for(imitation: OpenAIImitation):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # keep test output quiet
            pass

        def _send(self, status: int, body: str, content_type: str = "application/json") -> None:
            data = body.encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _event(self, event) -> None:
            payload = event if isinstance(event, str) else json.dumps(event)
            self.wfile.write(f"data: {payload}\n\n".encode())
            self.wfile.flush()

        def _start_stream(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            self.wfile.write(b": keep-alive\n\n")

        def _stream(self, body: dict, content: str) -> None:
            """OpenAI streaming: role chunk, one chunk per word (cut at max_tokens), finish, usage, [DONE]."""
            words = content.split(" ")
            limit = body.get("max_tokens")
            finish = "stop"
            if limit is not None and len(words) > int(limit):
                words, finish = words[: int(limit)], "length"
            imitation._streaming(+1)
            seen = len(imitation.requests)
            try:
                self._start_stream()
                self._event(_chunk(body, {"role": "assistant", "content": ""}))
                for i, w in enumerate(words):
                    if imitation.word_delay:
                        time.sleep(imitation.word_delay)
                    if self._interrupted(seen):
                        self._event("[DONE]")  # llama-cpp-python: another request arrived, this answer ends here
                        return
                    self._event(_chunk(body, {"content": w if i == 0 else " " + w}))
                self._event(_chunk(body, {}, finish))
                if (body.get("stream_options") or {}).get("include_usage"):
                    self._event({**_chunk(body, {}), "choices": [], "usage": {
                        "prompt_tokens": 5, "completion_tokens": len(words), "total_tokens": 5 + len(words)}})  # fmt: skip
                self._event("[DONE]")
            except (BrokenPipeError, ConnectionResetError):
                pass
            finally:
                imitation._streaming(-1)

        def _interrupted(self, seen: int) -> bool:
            return (imitation.dialect == "llama-cpp-python" and imitation.interrupt_requests
                    and len(imitation.requests) > seen)  # fmt: skip

        def _content(self, body: dict, mode: str) -> str:
            if mode == "invalid_json":
                return "this is { not json"
            if imitation.echo_without_schema and schema_of(body) in ("", "prompt"):
                return _data_of(body)  # no schema reached the model: it echoes the data back
            return imitation.chat_handler(body["messages"])

        def _refusal(self, body: dict) -> tuple[int, str] | None:
            """The error a real server of ``imitation.dialect`` gives for this request's shape, if any."""
            rf_type = (body.get("response_format") or {}).get("type")
            if imitation.dialect == "llama-cpp-python" and rf_type not in (None, "text", "json_object"):
                return 500, json.dumps({"error": {"message": _LLAMA_CPP_PYTHON_500, "type": "internal_server_error",
                                                  "param": None, "code": None}})  # fmt: skip
            return None

        def _stall(self, body: dict, content: str) -> None:
            """The first word of the answer (after ``word_delay``), a stall of ``timeout_seconds``, then the rest."""
            words = content.split(" ")
            try:
                self._start_stream()
                time.sleep(imitation.word_delay)
                self._event(_chunk(body, {"role": "assistant", "content": words[0]}))
                time.sleep(imitation.timeout_seconds)
                self._event(_chunk(body, {"content": " " + " ".join(words[1:])}, "stop"))
                self._event("[DONE]")
            except (BrokenPipeError, ConnectionResetError, OSError):
                pass

        def _ollama_chat(self, body: dict) -> None:
            """Ollama's /api/chat: NDJSON lines of ``message.content``, the last with ``done`` and the counts."""
            if imitation.models and body.get("model") not in imitation.models:
                return self._send(404, json.dumps({"error": f"model '{body.get('model')}' not found"}))
            fmt = body.get("format")
            if fmt is not None and fmt != "json" and not isinstance(fmt, dict):
                return self._send(400, json.dumps({"error": 'invalid format: expected "json" or a JSON schema'}))
            if imitation.mode == "error":
                return self._send(500, json.dumps({"error": "llama runner process has terminated"}))
            words = self._content(body, imitation.mode).split(" ")
            limit = int((body.get("options") or {}).get("num_predict") or 0)
            reason = "stop"
            if limit and len(words) > limit:
                words, reason = words[:limit], "length"
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.end_headers()
                for i, w in enumerate(words):
                    line = {"model": body.get("model"), "message": {"role": "assistant",
                                                                     "content": w if i == 0 else " " + w}, "done": False}  # fmt: skip
                    self.wfile.write((json.dumps(line) + "\n").encode())
                self.wfile.write((json.dumps({"model": body.get("model"), "message": {"role": "assistant", "content": ""},
                                              "done": True, "done_reason": reason, "prompt_eval_count": 5,
                                              "eval_count": len(words)}) + "\n").encode())  # fmt: skip
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _runaway(self, body: dict) -> None:
            """A model that never stops on its own: only max_tokens or a client that goes away ends it."""
            limit = body.get("max_tokens")
            imitation._generation(+1)
            try:
                if not body.get("stream"):
                    deadline = time.monotonic() + 60
                    while (limit is None or limit > 0) and time.monotonic() < deadline:
                        time.sleep(0.01)  # generating; a non-streaming server cannot notice the client left
                        limit = None if limit is None else limit - 1
                    return self._send(200, json.dumps({"choices": [{"index": 0, "finish_reason": "length",
                        "message": {"role": "assistant", "content": '{"candidates": [{"turn_index": 0'}}]}))  # fmt: skip
                self._start_stream()
                self._event(_chunk(body, {"role": "assistant", "content": '{"candidates": ['}))
                n = 0
                while limit is None or n < int(limit):
                    time.sleep(0.005)
                    self._event(_chunk(body, {"content": ' {"turn_index": 0,'}))
                    n += 1
                self._event(_chunk(body, {}, "length"))
                self._event("[DONE]")
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client went away: stop generating
            finally:
                imitation._generation(-1)

        def _cut(self, body: dict, content: str) -> None:
            try:
                if body.get("stream"):
                    self._start_stream()
                    self._event(_chunk(body, {"role": "assistant", "content": content[: len(content) // 2]}))
                else:
                    data = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                                    "finish_reason": "stop"}]}).encode()  # fmt: skip
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data[: len(data) // 2])
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
            self.connection.shutdown(2)

        def do_GET(self):  # noqa: N802 (http.server API)
            imitation.requests.append({"path": self.path, "body": {}})
            if imitation.dialect == "ollama" and self.path.rstrip("/").endswith("/api/version"):
                return self._send(200, json.dumps({"version": "0.12.3"}))
            if self.path.rstrip("/").endswith("/models"):
                listed = imitation.models or ["imitation-1"]
                return self._send(200, json.dumps({"object": "list", "data": [{"id": m, "object": "model"}
                                                                              for m in listed]}))  # fmt: skip
            return self._send(404, json.dumps({"error": {"message": "not found"}}))

        def do_POST(self):  # noqa: N802 (http.server API)
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                return self._send(400, json.dumps({"error": {"message": "bad json"}}))
            imitation.requests.append({"path": self.path, "body": body})
            ollama_chat = imitation.dialect == "ollama" and self.path.rstrip("/").endswith("/api/chat")
            if ollama_chat:
                return self._ollama_chat(body)
            chat = self.path.rstrip("/").endswith("/chat/completions")
            if chat:
                refused = self._refusal(body)
                if refused:
                    return self._send(*refused)
            mode = imitation.mode_for(body) if imitation.mode_for and chat else imitation.mode
            if chat and imitation.models and body.get("model") not in imitation.models:
                return self._send(404, json.dumps({"error": {"message": f"model {body.get('model')!r} not found"}}))
            if mode == "timeout":
                time.sleep(imitation.timeout_seconds)
                return self._send(504, json.dumps({"error": {"message": "slow"}}))
            if mode == "error":
                return self._send(500, json.dumps({"error": {"message": "internal error"}}))
            if chat and mode == "refuse_schema" and (body.get("response_format") or {}).get("type") == "json_schema":
                return self._send(400, json.dumps({"error": {"message": "response_format json_schema unsupported"}}))
            if chat and mode == "runaway":
                return self._runaway(body)
            if chat:
                content = self._content(body, mode)
                if mode == "stall":
                    return self._stall(body, content)
                if mode == "cut":
                    return self._cut(body, content)
                if body.get("stream"):
                    return self._stream(body, content)
                answer = {
                    "id": "chatcmpl-imitation",
                    "object": "chat.completion",
                    "model": body.get("model", "imitation"),
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                    ],
                    "usage": {"prompt_tokens": 5, "completion_tokens": len(content.split()),
                              "total_tokens": 5 + len(content.split())},
                }  # fmt: skip
                return self._send(200, json.dumps(answer))
            if self.path.rstrip("/").endswith("/embeddings"):
                texts = body.get("input") or []
                texts = [texts] if isinstance(texts, str) else texts
                vectors = imitation.embedding_handler(texts)
                data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
                return self._send(200, json.dumps({"object": "list", "data": data, "model": body.get("model", "")}))
            return self._send(404, json.dumps({"error": {"message": "not found"}}))

    return Handler
