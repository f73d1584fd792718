"""A threaded HTTP server on loopback, the lifecycle shared by the imitation servers (a provider's API in
``wearables/imitation``, ScreenPipe in ``screen/imitation``): start, the URL it answers on, stop, and use as a
context manager. The subclass gives the request handler class (``handler_base``, given ``imitation=self``) and
keeps the requests it recorded in ``requests``."""

from __future__ import annotations

import threading
from http.server import ThreadingHTTPServer


class LoopbackServer:
    handler_base: type
    thread_name = "imitation"

    host: str
    port: int
    requests: list
    _httpd: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError(f"{type(self).__name__} is not running; call start() first")
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self):
        handler = type("Handler", (self.handler_base,), {"imitation": self})
        self._httpd = ThreadingHTTPServer((self.host, self.port), handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        threading.Thread(target=self._httpd.serve_forever, args=(0.05,), name=self.thread_name, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self):
        return self.start() if self._httpd is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def requests_to(self, path_prefix: str) -> list:
        return [r for r in self.requests if r.path.startswith(path_prefix)]
