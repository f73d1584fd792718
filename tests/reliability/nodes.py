"""An Almanac node as production runs it: gunicorn (``memory_site/gunicorn_conf.py``) and ``manage.py qcluster``,
each in its own process group, with the node's own ``ALMANAC_HOME`` and a shared ``DATABASE_URL``.

Used by the second-node test (two nodes on one PostgreSQL) and by ``bench/soak.py`` (one node under load and
faults): start and stop the web server and the worker, SIGKILL the worker or one gunicorn worker process, and read
how much memory the node's processes hold.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.reliability.pgcluster import REPO, kill_group


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Node:
    """One node: ``env`` carries DATABASE_URL, ALMANAC_HOME and the rest; ``port`` is its web port on loopback."""

    name: str
    env: dict[str, str]
    port: int = field(default_factory=free_port)
    web: subprocess.Popen | None = None
    worker: subprocess.Popen | None = None
    logs: Path | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _spawn(self, role: str, argv: list[str]) -> subprocess.Popen:
        out = subprocess.DEVNULL
        if self.logs is not None:
            self.logs.mkdir(parents=True, exist_ok=True)
            out = open(self.logs / f"{self.name}-{role}.log", "ab")  # noqa: SIM115 - the child owns it
        return subprocess.Popen(
            argv, cwd=REPO, env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )

    def start_web(self) -> None:
        conf = str(REPO / "memory_site" / "gunicorn_conf.py")
        argv = [sys.executable, "-m", "gunicorn", "-c", conf, "--bind", f"127.0.0.1:{self.port}"]
        self.web = self._spawn("web", argv)

    def start_worker(self) -> None:
        self.worker = self._spawn("worker", [sys.executable, "manage.py", "qcluster"])

    def start(self) -> Node:
        self.start_web()
        self.start_worker()
        return self

    def wait_until_serving(self, seconds: float = 120) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.web is not None and self.web.poll() is not None:
                raise RuntimeError(f"{self.name}: the web server exited with {self.web.returncode}")
            try:
                if httpx.get(self.url + "/api/v1/health", timeout=5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"{self.name}: not serving after {seconds:.0f} s")

    # --- faults -------------------------------------------------------------------------------------------
    def kill_worker(self) -> None:
        """SIGKILL the whole qcluster (its guard, pusher, workers and monitor): what an OOM kill or a power cut does."""
        if self.worker is not None:
            kill_group(self.worker, signal.SIGKILL)

    def web_worker_pids(self) -> list[int]:
        import psutil

        if self.web is None or self.web.poll() is not None:
            return []
        return [child.pid for child in psutil.Process(self.web.pid).children()]

    def kill_one_web_worker(self) -> int:
        """SIGKILL one gunicorn worker process (its in-flight requests die with it); the master starts another."""
        pids = self.web_worker_pids()
        if not pids:
            raise RuntimeError(f"{self.name}: no gunicorn worker to kill")
        os.kill(pids[0], signal.SIGKILL)
        return pids[0]

    def kill(self) -> None:
        """The node dies at once: every process of the web server and the worker, SIGKILL."""
        for proc in (self.web, self.worker):
            if proc is not None:
                kill_group(proc, signal.SIGKILL)

    def stop(self) -> None:
        """A graceful stop (SIGTERM), then SIGKILL for whatever is still running after the grace time."""
        for proc, grace in ((self.web, 40), (self.worker, 60)):
            if proc is None or proc.poll() is not None:
                continue
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=grace)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
            kill_group(proc, signal.SIGKILL)

    # --- measures -----------------------------------------------------------------------------------------
    def memory(self) -> dict[str, float]:
        """Resident memory (MB) of the web server and the worker, each summed over its whole process tree."""
        import psutil

        out = {}
        for role, proc in (("web", self.web), ("worker", self.worker)):
            total = 0
            if proc is not None and proc.poll() is None:
                try:
                    root = psutil.Process(proc.pid)
                    for p in [root, *root.children(recursive=True)]:
                        try:
                            total += p.memory_info().rss
                        except psutil.Error:
                            pass
                except psutil.Error:
                    pass
            out[role] = total / 2**20
        return out
