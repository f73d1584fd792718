"""A local imitation of the Anthropic Messages API (``POST /v1/messages``, streamed or not), enough for the real
Claude Code CLI to run a session offline: every request is answered with ``reply`` and recorded in
``requests``."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class AnthropicImitation:
    def __init__(self, reply: str = "Done: I looked at the project. Nothing to change.") -> None:
        self.reply = reply
        self.requests: list[dict] = []
        self._server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "call start() first"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> AnthropicImitation:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()


def _handler_for(imitation: AnthropicImitation):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _json(self, status: int, obj: dict) -> None:
            data = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self._json(200, {"data": [], "has_more": False})

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            imitation.requests.append({"path": self.path, "body": body})
            if "count_tokens" in self.path:
                return self._json(200, {"input_tokens": 10})
            message = {"id": "msg_local", "type": "message", "role": "assistant", "model": body.get("model", "m"),
                       "content": [], "stop_reason": None, "stop_sequence": None,
                       "usage": {"input_tokens": 10, "output_tokens": 1}}  # fmt: skip
            if not body.get("stream"):
                return self._json(200, {**message, "content": [{"type": "text", "text": imitation.reply}],
                                        "stop_reason": "end_turn"})  # fmt: skip
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for name, event in (
                ("message_start", {"type": "message_start", "message": message}),
                ("content_block_start", {"type": "content_block_start", "index": 0,
                                         "content_block": {"type": "text", "text": ""}}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                         "delta": {"type": "text_delta", "text": imitation.reply}}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn",
                                                                      "stop_sequence": None},
                                   "usage": {"output_tokens": 12}}),
                ("message_stop", {"type": "message_stop"}),
            ):  # fmt: skip
                self.wfile.write(f"event: {name}\ndata: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
            return None

    return Handler
