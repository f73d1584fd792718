"""The nightly sleep pass over lessons, and the morning report it leaves.

Steps, in order: re-embed the pinned layer and episodes; decay (strength halves after 45 idle days; archived
below 0.15); consolidate surprises seen in several sessions into lessons; merge lessons that mean the same
into one theme; verify open predictions against later episodes (confirmed, or failed when the mistake recurred
or nothing bore on it within 14 days); make one prediction per strong lesson; write the report.
"""

from __future__ import annotations

import logging
from datetime import date, datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from chats.models import Lesson, Prediction, SleepReport
from chats.services import lessons as lesson_services
from chats.text import content_words, jaccard
from ledger.models import Episode

logger = logging.getLogger(__name__)

MERGE_SIMILARITY = 0.5
STRONG = 0.7


def _cfg(name: str, default: float) -> float:
    return float(getattr(settings, name, default))


def decay(*, owner, now: datetime) -> list[Lesson]:
    """Multiply each idle lesson's strength by 0.5^(idle days / half-life) since the last decay; archive weak ones."""
    half_life = _cfg("ALMANAC_CHATS_LESSON_HALF_LIFE_DAYS", 45)
    archived = []
    for lesson in Lesson.objects.owned_by(owner).active():
        start = max(lesson.last_seen_at, lesson.decayed_at or lesson.last_seen_at)
        days = (now - start).total_seconds() / 86400
        if days <= 0:
            continue
        before = lesson.status
        lesson.decayed_at = now
        lesson_services.set_strength(owner=owner, lesson=lesson, strength=lesson.strength * 0.5 ** (days / half_life),
                                     event="decayed", now=now)  # fmt: skip
        if before == Lesson.Status.ACTIVE and lesson.status == Lesson.Status.ARCHIVED:
            archived.append(lesson)
    return archived


def _same_project(a: Lesson, b: Lesson) -> bool:
    if a.agent_project_id or b.agent_project_id:
        return a.agent_project_id == b.agent_project_id
    return a.project == b.project


def _groups(rows: list[Lesson], threshold: float) -> list[list[Lesson]]:
    groups: list[list[Lesson]] = []
    for row in rows:
        for g in groups:
            # Only lessons of one kind and one project can mean the same; failures are keyed by what failed
            # (tool, error class, command shape), so two different failure keys are never one lesson.
            if g[0].kind != row.kind or not _same_project(g[0], row) or row.kind == Lesson.Kind.ERROR:
                continue
            if jaccard(g[0].text, row.text) >= threshold:
                g.append(row)
                break
        else:
            groups.append([row])
    return groups


def consolidate_surprises(*, owner, now: datetime) -> list[Lesson]:
    """Surprises told in different words in different sessions add up to one lesson."""
    rows = list(
        Lesson.objects.owned_by(owner).filter(kind=Lesson.Kind.SURPRISE, fact_public_id__isnull=True, seen_count__gte=1)
    )
    learned = []
    for group in _groups(rows, MERGE_SIMILARITY):
        if sum(r.seen_count for r in group) < 2 or len(group) < 2:
            continue
        head, rest = group[0], group[1:]
        head.status, head.strength, head.last_seen_at = Lesson.Status.ACTIVE, lesson_services.START_STRENGTH, now
        head.save()
        lesson_services.write_fact_for(owner=owner, lesson=head, quote=" / ".join(r.text for r in group)[:2000])
        lesson_services.merge(owner=owner, theme=head, others=rest, now=now)
        learned.append(head)
    return learned


def merge_similar(*, owner, now: datetime) -> list[Lesson]:
    """Lessons that mean the same (same content words, mostly) become one theme; the others its aliases."""
    rows = sorted(Lesson.objects.owned_by(owner).active(), key=lambda r: (-r.strength, r.pk))
    themes = []
    for group in _groups(rows, MERGE_SIMILARITY):
        if len(group) > 1:
            themes.append(lesson_services.merge(owner=owner, theme=group[0], others=group[1:], now=now))
    return themes


def _bears_on(lesson: Lesson, episode: Episode) -> bool:
    words = set(content_words(lesson.text))
    text = set(content_words(f"{episode.title} {episode.summary} {' '.join(map(str, episode.topics))}"))
    return bool(words) and len(words & text) / len(words) >= 0.5


def verify_predictions(*, owner, now: datetime) -> tuple[list[Prediction], list[Prediction]]:
    window = timedelta(days=_cfg("ALMANAC_CHATS_PREDICTION_DAYS", 14))
    confirmed, failed = [], []
    for p in Prediction.objects.filter(owner=owner, status=Prediction.Status.OPEN).select_related("lesson"):
        lesson = p.lesson
        recurred = any(
            h.get("event") == "reinforced" and h.get("at", "") > p.created_at.isoformat() for h in lesson.history
        )
        later = Episode.objects.owned_by(owner).filter(started_at__gt=p.created_at, source_type="chat")
        later = later.exclude(key__in=lesson.episode_keys)
        if recurred:
            p.status = Prediction.Status.FAILED
        elif any(_bears_on(lesson, ep) for ep in later.filter(kind=Episode.Kind.SESSION)[:200]):
            p.status = Prediction.Status.CONFIRMED
        elif now - p.created_at >= window:
            p.status = Prediction.Status.FAILED
        else:
            continue
        p.decided_at = now
        p.save(update_fields=["status", "decided_at"])
        (confirmed if p.status == Prediction.Status.CONFIRMED else failed).append(p)
        delta = 0.1 if p.status == Prediction.Status.CONFIRMED else -0.1
        lesson_services.set_strength(owner=owner, lesson=lesson, strength=lesson.strength + delta,
                                     event=f"prediction {p.status}", now=now)  # fmt: skip
    return confirmed, failed


def make_predictions(*, owner, now: datetime) -> list[Prediction]:
    made = []
    for lesson in Lesson.objects.owned_by(owner).active().filter(strength__gte=STRONG):
        if lesson.predictions.filter(status=Prediction.Status.OPEN).exists():
            continue
        made.append(
            Prediction.objects.create(
                owner=owner,
                lesson=lesson,
                created_at=now,
                text=f"With this lesson applied, the next sessions on it go without the same {lesson.kind}: "
                f"{lesson.text[:200]}",
            )  # fmt: skip
        )
    return made


def _reembed(owner) -> None:
    try:
        from ledger.recall.services import reembed_owner

        reembed_owner(owner=owner, scope="pinned")
        reembed_owner(owner=owner, scope="episodes")
    except Exception:  # embeddings are an optimisation; the sleep pass goes on without them
        logger.exception("re-embedding during sleep failed")


def sleep(*, owner, now: datetime | None = None) -> SleepReport:
    now = now or timezone.now()
    _reembed(owner)
    last = SleepReport.objects.filter(owner=owner).order_by("-created_at").first()
    since = last.created_at if last else now - timedelta(days=1)
    archived = decay(owner=owner, now=now)
    consolidated = consolidate_surprises(owner=owner, now=now)
    themes = merge_similar(owner=owner, now=now)
    confirmed, failed = verify_predictions(owner=owner, now=now)
    make_predictions(owner=owner, now=now)
    learned = list(Lesson.objects.owned_by(owner).filter(created_at__gte=since, fact_public_id__isnull=False))
    learned += [c for c in consolidated if c not in learned]
    with transaction.atomic():
        report, _ = SleepReport.objects.update_or_create(
            owner=owner,
            day=now.date(),
            defaults={
                "learned": [_brief(x) for x in learned],
                "merged": [{**_brief(t), "aliases": t.aliases} for t in themes],
                "confirmed": [_brief(p.lesson, p.text) for p in confirmed],
                "failed": [_brief(p.lesson, p.text) for p in failed],
                "archived": [_brief(x) for x in archived],
            },
        )
    return report


def _brief(lesson: Lesson, note: str = "") -> dict:
    out = {"id": str(lesson.public_id), "text": lesson.text, "kind": lesson.kind, "strength": round(lesson.strength, 2)}
    if note:
        out["note"] = note
    return out


def sleep_all(now: datetime | None = None) -> int:
    owners = get_user_model().objects.filter(pk__in=Lesson.objects.values("owner_id").distinct())
    n = 0
    for owner in owners:
        sleep(owner=owner, now=now)
        n += 1
    return n


def report_markdown(report: SleepReport) -> str:
    """The morning report as markdown (the page shows the same sections)."""
    lines = [f"# Morning report, {report.day.isoformat() if isinstance(report.day, date) else report.day}", ""]
    for title, rows in (
        ("Learned", report.learned), ("Merged into themes", report.merged), ("Confirmed", report.confirmed),
        ("Failed", report.failed), ("Archived (faded)", report.archived),
    ):  # fmt: skip
        lines.append(f"## {title}")
        if not rows:
            lines.append("- nothing")
        for row in rows:
            extra = f" (aliases: {'; '.join(row['aliases'])})" if row.get("aliases") else ""
            lines.append(f"- [{row['kind']}] {row['text']} — strength {row['strength']}{extra}")
        lines.append("")
    return "\n".join(lines)
