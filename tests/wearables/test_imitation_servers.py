"""The imitation servers speak each provider's wire format and misbehave on request (plain httpx, no connector)."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from tests.wearables.connector_support import conversation, day, many
from wearables.imitation import BeeServer, LimitlessServer, OmiServer, load_days, start_servers

MORNING = datetime(2026, 3, 10, 15, 0, tzinfo=UTC)


def test_limitless_requires_its_key_and_caps_pages_at_ten():
    with LimitlessServer(
        [day("2026-03-10", "America/Chicago", "limitless", many("limitless", 14, MORNING))], api_key="k1"
    ) as srv:
        assert httpx.get(f"{srv.base_url}/v1/lifelogs").status_code == 401
        body = httpx.get(
            f"{srv.base_url}/v1/lifelogs", params={"limit": 50, "direction": "asc"}, headers={"X-API-Key": "k1"}
        ).json()
        assert body["meta"]["lifelogs"]["count"] == 10 and body["meta"]["lifelogs"]["nextCursor"]
        lifelog = body["data"]["lifelogs"][0]
        assert lifelog["startTime"] == "2026-03-10T15:00:00.000+00:00"
        assert [n["type"] for n in lifelog["contents"]][:3] == ["heading1", "heading2", "blockquote"]
        assert lifelog["contents"][2]["speakerIdentifier"] == "user" and lifelog["contents"][2]["speakerName"] == "You"


def test_limitless_cursor_keeps_the_original_query():
    with LimitlessServer(
        [day("2026-03-10", "America/Chicago", "limitless", many("limitless", 14, MORNING))], api_key="k1"
    ) as srv:
        headers = {"X-API-Key": "k1"}
        first = httpx.get(
            f"{srv.base_url}/v1/lifelogs", params={"limit": 10, "timezone": "America/Chicago"}, headers=headers
        ).json()
        cursor = first["meta"]["lifelogs"]["nextCursor"]
        second = httpx.get(f"{srv.base_url}/v1/lifelogs", params={"cursor": cursor, "limit": 1}, headers=headers).json()
        assert second["meta"]["lifelogs"] == {"nextCursor": None, "count": 4}
        assert second["data"]["lifelogs"][0]["startTime"].endswith("-05:00")


def test_limitless_rate_limit_body_carries_retry_after_as_a_string():
    with LimitlessServer(api_key="k1") as srv:
        srv.fail_next(429, retry_after=17)
        reply = httpx.get(f"{srv.base_url}/v1/lifelogs", headers={"X-API-Key": "k1"})
        assert reply.status_code == 429 and reply.json() == {"error": "Rate limit exceeded", "retryAfter": "17"}
        assert httpx.get(f"{srv.base_url}/v1/lifelogs", headers={"X-API-Key": "k1"}).status_code == 200


def test_limitless_drops_contents_on_pages_over_25():
    with LimitlessServer(
        [day("2026-03-10", "UTC", "limitless", many("limitless", 30, MORNING))], api_key="k1", max_limit=100
    ) as srv:
        body = httpx.get(f"{srv.base_url}/v1/lifelogs", params={"limit": 30}, headers={"X-API-Key": "k1"}).json()
        assert all(lifelog["contents"] == [] for lifelog in body["data"]["lifelogs"])


def test_bee_proxy_forwards_only_v1_paths_and_wraps_details():
    with BeeServer([day("2026-03-10", "UTC", "bee", [conversation("talk", MORNING, source="bee")])]) as srv:
        other = httpx.get(f"{srv.base_url}/health")
        assert (other.status_code, other.text) == (404, "Not Found")
        listing = httpx.get(f"{srv.base_url}/v1/conversations").json()
        item = listing["conversations"][0]
        assert item["start_time"] == 1773154800000 and item["state"] == "COMPLETED" and listing["next_cursor"] is None
        detail = httpx.get(f"{srv.base_url}/v1/conversations/{item['id']}").json()
        assert set(detail) == {"conversation", "timezone"}
        assert [t["realtime"] for t in detail["conversation"]["transcriptions"]] == [True, False]


@pytest.mark.parametrize(
    ("style", "labels"),
    [("0", {"0", "1"}), ("SPEAKER_1", {"SPEAKER_0", "SPEAKER_1"}), ("speaker_1", {"speaker_0", "speaker_1"})],
)
def test_bee_label_styles(style, labels):
    with BeeServer(
        [day("2026-03-10", "UTC", "bee", [conversation("talk", MORNING, source="bee")])], label_style=style
    ) as srv:
        item = httpx.get(f"{srv.base_url}/v1/conversations").json()["conversations"][0]
        final = httpx.get(f"{srv.base_url}/v1/conversations/{item['id']}").json()["conversation"]["transcriptions"][1]
        assert {u["speaker"] for u in final["utterances"]} == labels


def test_omi_integration_auth_errors_match_the_real_api():
    with OmiServer(app_key="sk_a", app_id="app", user_id="u") as srv:
        url = f"{srv.base_url}/v2/integrations/app/conversations"
        assert httpx.get(url, params={"uid": "u"}).status_code == 401
        assert httpx.get(url, params={"uid": "u"}, headers={"Authorization": "Bearer sk_b"}).status_code == 403
        assert httpx.get(url, params={"uid": "x"}, headers={"Authorization": "Bearer sk_a"}).json() == {
            "detail": "App is not enabled for this user"
        }
        bad_date = httpx.get(
            url, params={"uid": "u", "start_date": "yesterday"}, headers={"Authorization": "Bearer sk_a"}
        )
        assert bad_date.status_code == 400


def test_omi_omits_nulls_on_integration_and_keeps_them_on_developer():
    with OmiServer(
        [day("2026-03-10", "UTC", "omi", [conversation("talk", MORNING, source="omi")])], datetime_style="+00:00"
    ) as srv:
        item = httpx.get(
            f"{srv.base_url}/v2/integrations/{srv.app_id}/conversations",
            params={"uid": srv.user_id},
            headers={"Authorization": f"Bearer {srv.app_key}"},
        ).json()["conversations"][0]
        assert "person_id" not in item["transcript_segments"][0] and item["started_at"] == "2026-03-10T15:00:00+00:00"
        dev = httpx.get(
            f"{srv.base_url}/v1/dev/user/conversations", headers={"Authorization": f"Bearer {srv.dev_key}"}
        ).json()
        assert isinstance(dev, list) and dev[0]["geolocation"] is None and "transcript_segments" not in dev[0]


def test_requests_are_logged_and_failures_run_out():
    with BeeServer() as srv:
        srv.fail_next(503, count=2)
        statuses = [httpx.get(f"{srv.base_url}/v1/facts").status_code for _ in range(3)]
        assert statuses == [503, 503, 200]
        assert [r.status for r in srv.requests] == statuses and srv.requests[0].path == "/v1/facts"


def test_start_servers_runs_all_three_on_distinct_ports(tmp_path):
    (tmp_path / "2026-03-10.json").write_text(
        '{"date": "2026-03-10", "timezone": "UTC", "recordings": [{"source": "omi", "conversations": []}]}'
    )
    servers = start_servers(load_days(tmp_path))
    try:
        assert len(set(servers.base_urls.values())) == 3
        assert servers.credentials["bee"] == {} and servers.credentials["limitless"]["api_key"]
    finally:
        servers.stop()
    with pytest.raises(RuntimeError):
        _ = servers.omi.base_url


def test_load_days_rejects_broken_json(tmp_path):
    (tmp_path / "bad.json").write_text("{nope")
    with pytest.raises(ValueError, match="bad.json is not valid JSON"):
        load_days(tmp_path)
