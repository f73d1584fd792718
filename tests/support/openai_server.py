"""A local imitation of an OpenAI-compatible endpoint, for tests and benches (never a real model).

    server = OpenAIImitation().start()
    settings.ALMANAC_LLM_BASE_URL = server.base_url        # http://127.0.0.1:<port>/v1
    server.chat_handler = lambda messages: '{"candidates": []}'
    server.mode = "timeout"    # or "invalid_json", "error", "ok"; a body with "stream": true gets SSE chunks
    server.stop()

``requests`` records every request body received (for asserting what was sent, e.g. fenced transcript text).
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
    def __init__(self, *, timeout_seconds: float = 5.0) -> None:
        self.chat_handler = lambda messages: "{}"
        self.embedding_handler = default_embedding
        self.mode = "ok"
        self.timeout_seconds = timeout_seconds  # how long "timeout" mode stalls before answering
        self.requests: list[dict] = []
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "call start() first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> OpenAIImitation:
        imitation = self

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

            def _stream(self, body: dict, content: str) -> None:
                """OpenAI streaming: role chunk, one chunk per word, finish chunk, usage chunk, [DONE]."""
                base = {"id": "chatcmpl-imitation", "object": "chat.completion.chunk", "created": 1767225600,
                        "model": body.get("model", "imitation")}  # fmt: skip
                words = content.split(" ")
                deltas = [{"role": "assistant", "content": ""}] + [
                    {"content": w if i == 0 else " " + w} for i, w in enumerate(words)
                ]
                events = [{**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
                events.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
                if (body.get("stream_options") or {}).get("include_usage"):
                    events.append({**base, "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": len(words),
                                                                   "total_tokens": 5 + len(words)}})  # fmt: skip
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Cache-Control", "no-cache")
                    self.end_headers()
                    self.wfile.write(b": keep-alive\n\n")
                    for event in events:
                        self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                        self.wfile.flush()
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_POST(self):  # noqa: N802 (http.server API)
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    return self._send(400, json.dumps({"error": {"message": "bad json"}}))
                imitation.requests.append({"path": self.path, "body": body})
                mode = imitation.mode
                if mode == "timeout":
                    time.sleep(imitation.timeout_seconds)
                    return self._send(504, json.dumps({"error": {"message": "slow"}}))
                if mode == "error":
                    return self._send(500, json.dumps({"error": {"message": "internal error"}}))
                if self.path.rstrip("/").endswith("/chat/completions") and body.get("stream"):
                    return self._stream(body, imitation.chat_handler(body["messages"]))
                if self.path.rstrip("/").endswith("/chat/completions"):
                    content = (
                        "this is { not json" if mode == "invalid_json" else imitation.chat_handler(body["messages"])
                    )
                    answer = {
                        "id": "chatcmpl-imitation",
                        "object": "chat.completion",
                        "model": body.get("model", "imitation"),
                        "choices": [
                            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                        ],
                    }
                    return self._send(200, json.dumps(answer))
                if self.path.rstrip("/").endswith("/embeddings"):
                    texts = body.get("input") or []
                    texts = [texts] if isinstance(texts, str) else texts
                    vectors = imitation.embedding_handler(texts)
                    data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
                    return self._send(200, json.dumps({"object": "list", "data": data, "model": body.get("model", "")}))
                return self._send(404, json.dumps({"error": {"message": "not found"}}))

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
