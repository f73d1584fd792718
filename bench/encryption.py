"""Encryption at rest: write and read overhead, transcript search latency, encrypt-existing and rotation cost.

    .venv/bin/python bench/encryption.py [--utterances 20000]

Runs in its own database ``almanac_bench_encryption`` (created and dropped here; never user data). The same
utterances are written with no key and with ALMANAC_ENCRYPTION_KEY set, then read back and searched.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
os.environ["ALMANAC_TEST_DATABASE"] = "almanac_bench_encryption"
os.environ.pop("ALMANAC_ENCRYPTION_KEY", None)

WORDS = ("kayak lesson thursday garden tomato invoice approved sister dinner porto lisbon meeting budget "
         "doctor appointment window repair train ticket coffee morning project deadline review").split()  # fmt: skip
QUERIES = ["kayak lesson", "invoice approved", "sister dinner", "train ticket", "project deadline", "tomato garden"]


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 30))).capitalize() + "."


def write(user, n: int, tag: str) -> float:
    from wearables.models import Conversation, DayTranscript, Source, Utterance

    rng = random.Random(7)
    source, _ = Source.objects.get_or_create(owner=user, kind="limitless")
    day = DayTranscript.objects.create(owner=user, source=source, local_date=date(2026, 1, 1 + len(tag)))
    from django.utils import timezone

    conv = Conversation.objects.create(owner=user, transcript=day, external_id=tag, started_at=timezone.now())
    rows = [
        Utterance(owner=user, transcript=day, conversation=conv, index=i, speaker_label="0", text=sentence(rng))
        for i in range(n)
    ]
    t = time.perf_counter()
    Utterance.objects.bulk_create(rows, batch_size=1000)
    return time.perf_counter() - t


def read(user, tag: str) -> float:
    from wearables.models import Utterance

    t = time.perf_counter()
    texts = list(Utterance.objects.filter(owner=user, conversation__external_id=tag).values_list("text", flat=True))
    elapsed = time.perf_counter() - t
    assert all(not x.startswith("enc1:") for x in texts)
    return elapsed


def search(user) -> list[float]:
    from wearables.queries import search_utterances

    out = []
    for _ in range(3):
        for q in QUERIES:
            t = time.perf_counter()
            assert search_utterances(user, q, limit=20).hits
            out.append(time.perf_counter() - t)
    return out


def column_bytes(tag: str) -> int:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute(
            "SELECT sum(pg_column_size(u.text)) FROM wearables_utterance u JOIN wearables_conversation c "
            "ON c.id = u.conversation_id WHERE c.external_id = %s",
            [tag],
        )
        return int(cur.fetchone()[0] or 0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--utterances", type=int, default=20000)
    args = parser.parse_args()

    import django

    django.setup()
    from cryptography.fernet import Fernet
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import override_settings

    from accounts import crypto, encryption

    creation = connection.creation
    bench_db = creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False, serialize=False)
    n = args.utterances
    try:
        user = get_user_model().objects.create(username="bench-enc")
        key, new_key = Fernet.generate_key().decode(), Fernet.generate_key().decode()
        w_off = write(user, n, "off")
        r_off = read(user, "off")
        s_off = search(user)
        with override_settings(ALMANAC_ENCRYPTION_KEY=[key]):
            w_on = write(user, n, "on")
            r_on = read(user, "on")
            s_on = search(user)
            bytes_off, bytes_on = column_bytes("off"), column_bytes("on")
            t = time.perf_counter()
            counts = encryption.encrypt_existing()
            enc_s = time.perf_counter() - t
            migrated = counts["wearables.Utterance.text"]
        with override_settings(ALMANAC_ENCRYPTION_KEY=[new_key, key]):
            t = time.perf_counter()
            crypto.rotate()
            rot_ms = (time.perf_counter() - t) * 1000
        print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python "
              f"{platform.python_version()}; database {bench_db}; {n} utterances of 8-30 words")  # fmt: skip
        print(f"write (bulk_create): off {n / w_off:,.0f} rows/s, on {n / w_on:,.0f} rows/s "
              f"(+{(w_on / w_off - 1) * 100:.0f}% time)")  # fmt: skip
        print(f"read (values_list): off {n / r_off:,.0f} rows/s, on {n / r_on:,.0f} rows/s "
              f"(+{(r_on / r_off - 1) * 100:.0f}% time)")  # fmt: skip
        print(f"transcript search p50: off {statistics.median(s_off) * 1000:.1f} ms, "
              f"on {statistics.median(s_on) * 1000:.1f} ms (both halves indexed; 20 hits each)")  # fmt: skip
        print(f"stored text: off {bytes_off / n:.0f} B/row, on {bytes_on / n:.0f} B/row")
        print(f"encrypt-existing: {migrated} plaintext rows in {enc_s:.1f} s = {migrated / enc_s:,.0f} rows/s")
        print(f"rotate (re-wrap the data key): {rot_ms:.0f} ms, independent of the amount of data")
    finally:
        creation.destroy_test_db(bench_db, verbosity=0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
