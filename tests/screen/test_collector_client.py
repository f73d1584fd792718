"""The ScreenPipe client's retries: which answers are retried, how often, and how long it waits between tries."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from screen.collector import client as client_module
from screen.collector.client import ScreenPipeClient, ScreenPipeError
from screen.imitation import scripts
from tests.screen.conftest import serve


@pytest.fixture
def server():
    """A short ScreenPipe session on a free loopback port."""
    s = serve([scripts.Segment(app="Editor", window="notes.md", text="line {n}", seconds=10, every=5)])
    yield s
    s.stop()


@pytest.fixture
def sleeps(monkeypatch):
    """The waits the client asked for, recorded instead of slept."""
    waited: list[float] = []
    monkeypatch.setattr(client_module, "time", SimpleNamespace(sleep=waited.append))
    return waited


def test_retryable_answers_are_retried_until_one_succeeds(server, sleeps):
    server.fail_next(503, count=2)
    with ScreenPipeClient(server.base_url) as client:
        assert client.health()["status"] == "healthy"
        assert client.requests == 3
    assert sleeps == [1.0, 2.0]


def test_it_gives_up_after_the_retries_with_the_last_answer(server, sleeps):
    server.fail_next(429, count=10)
    with ScreenPipeClient(server.base_url, retries=3, backoff=20.0) as client, pytest.raises(ScreenPipeError) as err:
        client.health()
    assert client.requests == 4
    assert str(err.value) == "ScreenPipe answered 429 on /health"
    assert sleeps == [20.0, 30.0, 30.0]  # doubling, capped at 30 s


def test_other_client_errors_are_not_retried(server, sleeps):
    server.fail_next(400, count=3)
    with ScreenPipeClient(server.base_url) as client, pytest.raises(ScreenPipeError, match="answered 400"):
        client.health()
    assert client.requests == 1
    assert sleeps == []


def test_a_missing_frame_is_an_answer_not_a_failure(server, sleeps):
    with ScreenPipeClient(server.base_url) as client:
        assert client.frame(999_999) is None
        assert client.requests == 1
    assert sleeps == []


def test_an_unreachable_screenpipe_is_retried_then_reported(sleeps):
    with ScreenPipeClient("http://127.0.0.1:9", retries=2, timeout=2) as client, pytest.raises(ScreenPipeError) as err:
        client.health()
    assert client.requests == 3
    assert "unreachable (ConnectError)" in str(err.value)
    assert sleeps == [1.0, 2.0]
