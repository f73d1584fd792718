"""Shared connector behaviour: the registry, env credentials, retry timing, timeouts and secret hygiene."""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime, timedelta
from email.utils import format_datetime
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accounts.timestamps import parse_iso_utc as parse_iso
from tests.wearables.connector_support import (
    Sleeps,
    no_credential_env,  # noqa: F401 - autouse fixture
)
from wearables.connectors import (
    CONNECTOR_KINDS,
    ProviderError,
    credentials_from_env,
    default_base_url,
    get_connector,
    resolve_credentials,
)
from wearables.connectors.dates import local_day_bounds
from wearables.connectors.http import ProviderClient, parse_retry_after, scrub
from wearables.imitation import LimitlessServer, Reply


def test_registry_knows_the_three_providers_and_rejects_others():
    assert set(CONNECTOR_KINDS) == {"limitless", "bee", "omi"}
    assert {get_connector(kind).kind for kind in CONNECTOR_KINDS} == {"limitless", "bee", "omi"}
    with pytest.raises(ProviderError, match="Unknown source kind 'fitbit'"):
        get_connector("fitbit")


def test_base_urls_come_from_settings_then_env_then_the_public_host(monkeypatch):
    assert default_base_url("limitless") == "https://api.limitless.ai"
    assert default_base_url("omi") == "https://api.omi.me"
    assert default_base_url("bee") == "http://127.0.0.1:8787"
    monkeypatch.setenv("ALMANAC_OMI_BASE_URL", "http://127.0.0.1:9999/")
    assert get_connector("omi").base_url == "http://127.0.0.1:9999"
    assert get_connector("omi", base_url="http://10.0.0.2:1").base_url == "http://10.0.0.2:1"


def test_env_credentials_win_over_stored_settings(monkeypatch):
    monkeypatch.setenv("LIMITLESS_API_KEY", "plain-env-key")
    assert credentials_from_env("limitless") == {"api_key": "plain-env-key"}
    monkeypatch.setenv("ALMANAC_LIMITLESS_API_KEY", "almanac-env-key")
    assert credentials_from_env("limitless") == {"api_key": "almanac-env-key"}
    monkeypatch.setenv("OMI_APP_ID", "env-app")
    assert resolve_credentials("omi", {"api_key": "sk_stored", "app_id": "stored-app", "user_id": "u1"}) == {
        "api_key": "sk_stored",
        "app_id": "env-app",
        "user_id": "u1",
    }
    assert get_connector("limitless", credentials={"api_key": "stored"}).credentials["api_key"] == "almanac-env-key"
    assert (
        get_connector("limitless", credentials={"api_key": "stored"}, use_env=False).credentials["api_key"] == "stored"
    )


def test_env_key_reaches_the_provider(monkeypatch):
    monkeypatch.setenv("ALMANAC_LIMITLESS_API_KEY", "from-the-env-1")
    with LimitlessServer(api_key="from-the-env-1") as srv:
        assert get_connector("limitless", base_url=srv.base_url, credentials={}).check().ok


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("17", 17.0), (17, 17.0), ("2.5", 2.5), ("-3", 0.0), ("soon", None), (None, None), (True, None)],
)
def test_retry_after_reads_numbers_and_strings(value, seconds):
    assert parse_retry_after(value) == seconds


def test_retry_after_reads_http_dates():
    when = datetime.now(UTC) + timedelta(seconds=60)
    assert 55 <= parse_retry_after(format_datetime(when, usegmt=True)) <= 61


@given(attempt=st.integers(min_value=0, max_value=40), hint=st.none() | st.floats(min_value=0, max_value=1e6))
def test_backoff_grows_but_never_passes_the_cap(attempt, hint):
    client = ProviderClient(provider="X", base_url="http://127.0.0.1:1")
    delay = client.backoff(attempt, hint)
    assert 0 <= delay <= 30.0
    if hint is None and attempt < 4:
        assert delay == 2**attempt


def test_a_slow_provider_times_out_and_is_retried_then_reported():
    with LimitlessServer(api_key="k-123456") as srv:
        srv.slow_seconds = 0.5
        sleeps = Sleeps()
        conn = get_connector(
            "limitless",
            base_url=srv.base_url,
            credentials={"api_key": "k-123456"},
            timeout=0.1,
            max_retries=1,
            sleep=sleeps,
        )
        with pytest.raises(ProviderError) as caught:
            conn.fetch_day(date(2026, 3, 10), ZoneInfo("UTC"))
        url = srv.base_url
        srv.slow_seconds = 0
    assert caught.value.permanent is False
    assert caught.value.message == f"Could not reach {url}: timed out after 0.1s (gave up after 2 attempts)"
    assert sleeps == [1.0]


def test_a_provider_echoing_the_key_cannot_leak_it(caplog):
    caplog.set_level(logging.DEBUG)
    secret = "ll-ECHOED-secret-abcdef"
    with LimitlessServer(api_key="other-key-000") as srv:
        srv.failure_reply = lambda status, retry_after: Reply(status, {"error": f"bad key {secret} rejected"})
        srv.fail_next(500, count=2)
        srv.fail_next(400)
        conn = get_connector("limitless", base_url=srv.base_url, credentials={"api_key": secret}, sleep=lambda s: None)
        srv.api_key = secret
        with pytest.raises(ProviderError) as caught:
            conn.fetch_day(date(2026, 3, 10), ZoneInfo("UTC"))
    assert caught.value.status == 400 and "bad key *** rejected" in caught.value.message
    assert secret not in caplog.text + str(caught.value) + repr(conn)
    assert "bad key *** rejected" in caplog.text  # the retry warnings were logged, scrubbed


def test_settings_errors_name_fields_but_never_values():
    conn = get_connector("omi", credentials={"api_key": "sk_VALUE_abcdef", "page_limit": "sk_VALUE_abcdef"})
    result = conn.check()
    assert result.ok is False and "page_limit" in result.message and "sk_VALUE_abcdef" not in result.message


def test_scrub_replaces_every_secret():
    assert scrub("a KEY1234 b KEY1234", ["KEY1234", None, "x"]) == "a *** b ***"


@pytest.mark.parametrize("text", ["2026-03-12T16:14:05Z", "2026-03-12T16:14:05+00:00", "2026-03-12T10:14:05-06:00"])
def test_iso_datetimes_in_any_utc_spelling_parse_to_the_same_instant(text):
    assert parse_iso(text) == datetime(2026, 3, 12, 16, 14, 5, tzinfo=UTC)


def test_local_day_bounds_follow_daylight_saving():
    start, end = local_day_bounds(date(2026, 3, 8), ZoneInfo("America/Chicago"))  # spring forward
    assert end.astimezone(UTC) - start.astimezone(UTC) == timedelta(hours=23)
    assert start.isoformat() == "2026-03-08T00:00:00-06:00" and end.isoformat() == "2026-03-09T00:00:00-05:00"
