"""Bounded evidence requests, answered deterministically from the source (ScreenPipe), each with a size budget.

Almanac does not mirror ScreenPipe: when the proposer needs more than a signal's excerpt it asks one of these,
small and specific. Every request is logged as an ``EvidenceRequest`` (kind, parameters, budget, items returned,
frames fetched). Pixels come last and are capped per 8 hours of capture (``ScreenSource.frame_budget``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction

from screen.collector.client import Item, ScreenPipeClient, rfc3339
from screen.models import EvidenceRequest, ScreenFrame, ScreenSource

OCR_CHARS = 2000
OCR_ITEMS = 40
AROUND_STEPS = (timedelta(seconds=5), timedelta(seconds=30), timedelta(seconds=120))
AROUND_ITEMS = 100
STABLE_LOOKBACK = timedelta(minutes=30)
STABLE_ITEMS = 200
ACCESS_ITEMS = 5
AUDIO_ITEMS = 10
AUDIO_CHARS = 1500
BUDGET_WINDOW = timedelta(hours=8)
ONE_MICROSECOND = timedelta(microseconds=1)


@dataclass(frozen=True)
class FrameRef:
    frame_id: int
    at: datetime
    app_name: str
    window_name: str
    text: str

    def as_dict(self) -> dict:
        return {
            "frame_id": self.frame_id,
            "at": rfc3339(self.at),
            "app_name": self.app_name,
            "window_name": self.window_name,
            "text": self.text,
        }


def _ref(item: Item, max_chars: int = 600) -> FrameRef:
    return FrameRef(item.id, item.at, item.app_name, item.window_name, item.text[:max_chars])


def _log(owner, kind, params, budget, returned, event=None, frames=0) -> None:
    EvidenceRequest.objects.create(
        owner=owner, kind=kind, params=params, budget=budget, returned=returned, event=event, frames_fetched=frames
    )


def _clipped(
    client: ScreenPipeClient, content_type: str, start: datetime, end: datetime, *, max_items: int, max_chars: int
) -> list[tuple[Item, str]]:
    """Items of ``content_type`` in [start, end], oldest first, each with its text cut to what is left of
    ``max_chars``; none once those are spent."""
    items = sorted(
        client.iter_search(content_type=content_type, start=start, end=end, max_items=max_items),
        key=lambda i: i.sort_key,
    )
    out, used = [], 0
    for item in items:
        if used >= max_chars:
            break
        text = item.text[: max_chars - used]
        used += len(text)
        out.append((item, text))
    return out


def ocr_between(
    *,
    owner,
    client: ScreenPipeClient,
    start: datetime,
    end: datetime,
    max_chars: int = OCR_CHARS,
    max_items: int = OCR_ITEMS,
    event=None,
) -> list[FrameRef]:
    """OCR of frames in [start, end], oldest first, at most ``max_items`` frames and ``max_chars`` characters."""
    clipped = _clipped(client, "ocr", start, end, max_items=max_items, max_chars=max_chars)
    out = [FrameRef(i.id, i.at, i.app_name, i.window_name, text) for i, text in clipped]
    _log(
        owner,
        EvidenceRequest.Kind.OCR_BETWEEN,
        {"start": rfc3339(start), "end": rfc3339(end)},
        max_items,
        len(out),
        event,
    )
    return out


def frames_around(*, owner, client: ScreenPipeClient, at: datetime, event=None) -> dict[str, FrameRef | None]:
    """The frame at or just before ``at`` and the first frame after it.

    Timestamps are compared exactly (microseconds, UTC): a request for 12:00:00.700 never gets the frame at
    12:00:01.400 because of rounding, whatever the capture rate.
    """
    before = after = None
    for step in AROUND_STEPS:
        if before is None:
            got = list(client.iter_search(content_type="ocr", start=at - step, end=at, max_items=AROUND_ITEMS))
            got = [i for i in got if i.at <= at]
            before = _ref(max(got, key=lambda i: i.sort_key)) if got else None
        if after is None:
            got = list(
                client.iter_search(
                    content_type="ocr", start=at + ONE_MICROSECOND, end=at + step, max_items=AROUND_ITEMS
                )
            )
            got = [i for i in got if i.at > at]
            after = _ref(min(got, key=lambda i: i.sort_key)) if got else None
        if before and after:
            break
    _log(owner, EvidenceRequest.Kind.FRAMES_AROUND, {"at": rfc3339(at)}, 2, int(bool(before)) + int(bool(after)), event)
    return {"before": before, "after": after}


def nearest_stable_title(
    *,
    owner,
    client: ScreenPipeClient,
    before: datetime,
    min_frames: int = 3,
    lookback: timedelta = STABLE_LOOKBACK,
    event=None,
) -> str:
    """The most recent window title shown for ``min_frames`` consecutive frames before ``before`` ('' if none)."""
    items = sorted(
        client.iter_search(
            content_type="ocr", start=before - lookback, end=before - ONE_MICROSECOND, max_items=STABLE_ITEMS
        ),
        key=lambda i: i.sort_key,
        reverse=True,
    )
    title, run, found = None, 0, ""
    for item in items:
        name = item.window_name or item.app_name
        run = run + 1 if name == title else 1
        title = name
        if run >= min_frames and name:
            found = name
            break
    _log(owner, EvidenceRequest.Kind.STABLE_TITLE, {"before": rfc3339(before)}, STABLE_ITEMS, int(bool(found)), event)
    return found


def accessibility_history(
    *,
    owner,
    client: ScreenPipeClient,
    at: datetime,
    window: timedelta = timedelta(minutes=10),
    max_items: int = ACCESS_ITEMS,
    event=None,
) -> list[dict]:
    """The last ``max_items`` accessibility (UI) texts before ``at``, oldest first."""
    items = list(client.iter_search(content_type="accessibility", start=at - window, end=at, max_items=50))
    items = sorted((i for i in items if i.kind == "UI"), key=lambda i: i.sort_key)[-max_items:]
    out = [
        {"at": rfc3339(i.at), "app_name": i.app_name, "window_name": i.window_name, "text": i.text[:400]} for i in items
    ]
    _log(owner, EvidenceRequest.Kind.ACCESSIBILITY, {"at": rfc3339(at)}, max_items, len(out), event)
    return out


def overlapping_audio(
    *,
    owner,
    client: ScreenPipeClient,
    start: datetime,
    end: datetime,
    max_items: int = AUDIO_ITEMS,
    max_chars: int = AUDIO_CHARS,
    event=None,
) -> list[dict]:
    """Audio transcriptions overlapping [start, end], oldest first, within the item and character budget."""
    clipped = _clipped(client, "audio", start, end, max_items=max_items, max_chars=max_chars)
    out = [{"at": rfc3339(i.at), "speaker": i.speaker, "text": text} for i, text in clipped]
    _log(owner, EvidenceRequest.Kind.AUDIO, {"start": rfc3339(start), "end": rfc3339(end)}, max_items, len(out), event)
    return out


def frames_in_budget_window(owner, at: datetime) -> int:
    return ScreenFrame.objects.filter(owner=owner, captured_at__gt=at - BUDGET_WINDOW, captured_at__lte=at).count()


def fetch_frame(
    *, owner, source: ScreenSource, client: ScreenPipeClient, ref: FrameRef, reason: str, event=None
) -> ScreenFrame | None:
    """The frame image, fetched once and kept, unless the 8-hour frame budget is spent (then None)."""
    existing = ScreenFrame.objects.filter(owner=owner, frame_id=ref.frame_id).first()
    if existing:
        return existing
    if frames_in_budget_window(owner, ref.at) >= source.frame_budget:
        return None
    got = client.frame(ref.frame_id)
    if got is None:
        return None
    data, content_type = got
    try:
        with transaction.atomic():
            frame = ScreenFrame.objects.create(
                owner=owner,
                frame_id=ref.frame_id,
                captured_at=ref.at,
                image=data,
                content_type=content_type,
                reason=reason[:100],
            )
    except IntegrityError:
        return ScreenFrame.objects.get(owner=owner, frame_id=ref.frame_id)
    if event is not None:
        EvidenceRequest.objects.filter(owner=owner, event=event, kind=EvidenceRequest.Kind.FRAMES_AROUND).update(
            frames_fetched=1
        )
    return frame
