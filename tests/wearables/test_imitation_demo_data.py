"""The demo week: shape, the cases it must show, and that the real connectors read all of it back."""

from __future__ import annotations

import io
import re
import threading
from contextlib import redirect_stdout
from datetime import date
from zoneinfo import ZoneInfo

from accounts.timestamps import parse_iso_utc as parse_iso
from tests.wearables.connector_support import no_credential_env  # noqa: F401 - autouse fixture
from wearables.connectors import get_connector
from wearables.imitation import __main__ as cli
from wearables.imitation import start_servers
from wearables.imitation.demo_data import DEMO_CARD, DEMO_SSN, build_demo_days, demo_bee_facts, demo_omi_memories

END = date(2026, 11, 29)


def luhn_valid(number: str) -> bool:
    digits = [int(d) for d in re.sub(r"\D", "", number)][::-1]
    total = sum(d if i % 2 == 0 else (d * 2 - 9 if d * 2 > 9 else d * 2) for i, d in enumerate(digits))
    return total % 10 == 0


def all_text(days: list[dict]) -> str:
    return "\n".join(
        u["text"] for d in days for r in d["recordings"] for c in r["conversations"] for u in c["utterances"]
    )


def test_demo_is_seven_consecutive_days_across_three_sources():
    days = build_demo_days(END)
    assert [d["date"] for d in days] == [f"2026-11-{n}" for n in range(23, 30)]
    assert {r["source"] for d in days for r in d["recordings"]} == {"limitless", "bee", "omi"}
    assert all(d["recordings"] for d in days)


def test_every_demo_conversation_starts_on_its_local_date():
    for d in build_demo_days(END):
        tz = ZoneInfo(d["timezone"])
        for r in d["recordings"]:
            for c in r["conversations"]:
                assert parse_iso(c["started_at"]).astimezone(tz).date() == date.fromisoformat(d["date"])


def test_one_conversation_is_recorded_by_two_devices_differently():
    days = build_demo_days(END)
    pairs = [
        (a, b)
        for d in days
        for ra in d["recordings"]
        for rb in d["recordings"]
        if ra["source"] < rb["source"]
        for a in ra["conversations"]
        for b in rb["conversations"]
        if abs((parse_iso(a["started_at"]) - parse_iso(b["started_at"])).total_seconds()) < 10
    ]
    assert len(pairs) == 1
    a, b = pairs[0]
    assert len(a["utterances"]) != len(b["utterances"])  # different segmentation
    assert {u["text"] for u in a["utterances"]} != {u["text"] for u in b["utterances"]}


def test_demo_speech_has_what_the_pipeline_must_clean_and_redact():
    text = all_text(build_demo_days(END))
    assert DEMO_SSN in text and re.fullmatch(r"\d{3}-\d{2}-\d{4}", DEMO_SSN)
    assert DEMO_CARD in text and luhn_valid(DEMO_CARD)
    assert re.search(r"off the record", text, re.I) and re.search(r"back on the record", text, re.I)
    assert re.search(r"\b(um|uh)\b", text) and re.search(r"\b(\w+) \1\b", text)  # fillers and stutters


def test_the_real_connectors_read_back_every_demo_conversation():
    days = build_demo_days(END)
    servers = start_servers(days, bee_facts=demo_bee_facts(END), omi_memories=demo_omi_memories(END))
    try:
        for kind in ("limitless", "bee", "omi"):
            conn = get_connector(kind, base_url=servers.base_urls[kind], credentials=servers.credentials[kind])
            for d in days:
                expected = [c for r in d["recordings"] if r["source"] == kind for c in r["conversations"]]
                got = conn.fetch_day(date.fromisoformat(d["date"]), ZoneInfo(d["timezone"])).conversations
                assert [len(c.utterances) for c in got] == [len(c["utterances"]) for c in expected], (kind, d["date"])
        assert (
            len(get_connector("bee", base_url=servers.base_urls["bee"]).fetch_native_memories()) == 3
        )  # confirmed only
        omi = get_connector("omi", base_url=servers.base_urls["omi"], credentials=servers.credentials["omi"])
        assert len(omi.fetch_native_memories()) == 2
    finally:
        servers.stop()


def test_cli_serves_the_demo_and_prints_base_urls():
    stop = threading.Event()
    out = io.StringIO()
    result: list[int] = []
    with redirect_stdout(out):
        worker = threading.Thread(
            target=lambda: result.append(cli.main(["--demo", "--end-date", "2026-11-29"], stop=stop))
        )
        worker.start()
        for _ in range(100):
            if "Ctrl-C" in out.getvalue():
                break
            stop.wait(0.05)
        stop.set()
        worker.join(5)
    assert result == [0]
    assert re.search(r"limitless +http://127\.0\.0\.1:\d+", out.getvalue())
    assert "bee" in out.getvalue() and "omi" in out.getvalue()


def test_cli_rejects_an_empty_directory(tmp_path, capsys):
    assert cli.main(["--days", str(tmp_path)]) == 2
    assert "no *.json day files" in capsys.readouterr().err
