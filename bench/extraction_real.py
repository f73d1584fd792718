"""Database run for bench/extraction.py: the real transcript pipeline, storage and memory pass, in a separate
embedded database (ALMANAC_HOME=/tmp/almanac-bench by default), for one fresh user."""

from __future__ import annotations

import json
from datetime import date, datetime
from unittest import mock
from zoneinfo import ZoneInfo

BENCH_USER = "bench-extraction"


def _dt(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def raw_conversations(recording: dict):
    from wearables.connectors.base import RawConversation, RawUtterance

    out = []
    for c in recording["conversations"]:
        utts = [
            RawUtterance(
                text=u["text"],
                speaker_label=u["speaker"],
                speaker_name=u["speaker"]
                if recording["source"] == "limitless" and u["speaker"] not in ("user", "Unknown")
                else None,
                is_wearer=u["is_wearer"] if recording["source"] != "bee" else None,
                started_at=_dt(u["start"]),
                ended_at=_dt(u["end"]),
            )
            for u in c["utterances"]
        ]
        out.append(
            RawConversation(
                source=recording["source"],
                external_id=c["id"],
                started_at=_dt(c["started_at"]),
                ended_at=_dt(c["ended_at"]),
                utterances=utts,
            )
        )
    return out


def fresh_user(day: dict):
    from django.contrib.auth import get_user_model

    from accounts.services import update_settings

    User = get_user_model()
    User.objects.filter(username=BENCH_USER).delete()
    user = User.objects.create(username=BENCH_USER)
    update_settings(user=user, display_name=day["wearer"], timezone_name=day["timezone"])
    return user


def run(days: list[dict], _pipeline_convos=None):
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from ledger.models import Commit, Episode, Evidence, Fact
    from wearables.models import DayTranscript, Source, Utterance
    from wearables.services import memories as memory_services
    from wearables.services import transcripts as transcript_services
    from wearables.services.sync import process_day

    user = fresh_user(days[0])
    queued: list[int] = []
    with mock.patch.object(transcript_services, "enqueue_memory_pass", queued.append):
        for day in days:
            local_date, tz = date.fromisoformat(day["date"]), ZoneInfo(day["timezone"])
            for recording in day["recordings"]:
                source, _ = Source.objects.get_or_create(owner=user, kind=recording["source"])
                Source.objects.filter(pk=source.pk).update(enabled=True)
                convos = process_day(user, source, local_date, raw_conversations(recording), tz=tz)
                transcript, _ = transcript_services.write_day(
                    owner=user, source=source, local_date=local_date, tz_name=day["timezone"], convos=convos
                )
                queued.clear()
                if transcript is not None:
                    # What the queued task does: the pass for this day, then the siblings' re-scoring.
                    memory_services.run_memory_pass(transcript=transcript)

    from bench.extraction import Memory

    memories = []
    for fact in Fact.objects.owned_by(user).filter(tags__contains=["wearable"]).select_related("subject_entity"):
        day_tag = next((t for t in fact.tags if t.startswith("wearable-day:")), "")
        evidence = list(fact.evidence.order_by("recorded_at"))
        details = (evidence[0].details if evidence else {}) or {}
        agreed = set(details.get("corroborating_sources") or [])
        agreed |= {e.source_label for e in evidence[1:] if e.source_label != fact.source_label}
        subject = (
            "wearer" if fact.subject_kind == "user" else (fact.subject_entity.name if fact.subject_entity_id else "")
        )
        status = fact.status
        decision = status if status in ("accepted", "pending_review") else status
        if status == "superseded":
            decision = "accepted"
        memories.append(
            Memory(
                day=day_tag.removeprefix("wearable-day:"),
                decision=decision,
                subject=subject,
                content=fact.content,
                source=fact.source_label.removeprefix("wearable:"),
                corroborated_by=sorted(agreed),
                memory_id=str(fact.public_id),
                current=status in ("accepted", "pending_review") and fact.superseded_by is None,
            )
        )
    stored = []
    stored += list(Utterance.objects.owned_by(user).values_list("text", flat=True))
    stored += list(DayTranscript.objects.owned_by(user).values_list("markdown", flat=True))
    stored += list(Fact.objects.owned_by(user).values_list("content", flat=True))
    stored += list(Evidence.objects.owned_by(user).values_list("quote", flat=True))
    stored += [json.dumps(m) for m in Commit.objects.owned_by(user).values_list("mutations", flat=True)]
    stored += list(Episode.objects.owned_by(user).values_list("summary", flat=True))
    try:
        from django_q.models import OrmQ

        stored += [str(p) for p in OrmQ.objects.values_list("payload", flat=True)]
    except Exception:  # noqa: BLE001 - the ORM broker table may not exist with a Redis broker
        pass
    return memories, "\n".join(stored)
