"""/api/v1/wearables/: sources, status, sync, transcripts, search, memories, fix-ups. Handlers call services."""

from __future__ import annotations

from django.http import Http404
from ninja import Query, Router, Status

from accounts.owned import get_owned_or_404
from accounts.schemas import ErrorOut, IsoDate
from accounts.services import user_timezone
from wearables import queries, services
from wearables.connectors import ProviderError
from wearables.models import Correction, DayTranscript, RedactionRule, SyncRun
from wearables.schemas import (
    ConversationOut,
    CorrectionIn,
    CorrectionOut,
    RedactionRuleIn,
    RedactionRuleOut,
    SourceIn,
    SourceOut,
    SourceStatusOut,
    SpeakerIn,
    StatusOut,
    SyncIn,
    SyncRunOut,
    TranscriptOut,
    TranscriptSearchOut,
    UtteranceOut,
    WearablesSettingsIn,
    WearablesSettingsOut,
)
from wearables.services.sources import policy_view

router = Router(tags=["wearables"])
ERRORS = {400: ErrorOut, 404: ErrorOut, 422: ErrorOut, 502: ErrorOut}


def source_out(s) -> dict:
    return {
        **{f: getattr(s, f) for f in SourceOut.model_fields if hasattr(s, f)},
        **policy_view(s),
        "has_credentials": s.has_credentials,
        "credential_fields": sorted(k for k, v in (s.credentials or {}).items() if v),
    }


def run_out(run) -> dict:
    return {**{f: getattr(run, f) for f in SyncRunOut.model_fields if f != "source"}, "source": run.source.kind}


@router.get("/sources", response=list[SourceOut])
def list_sources(request):
    return [source_out(s) for s in services.ensure_sources(request.auth)]


@router.put("/sources/{source}", response={200: SourceOut, **ERRORS})
def update_source(request, source: str, payload: SourceIn):
    obj = services.update_source(owner=request.auth, kind=source, **payload.model_dump(exclude_unset=True))
    return source_out(obj)


@router.post("/sources/{source}/check", response={200: SourceOut, **ERRORS})
def check_source(request, source: str):
    return source_out(services.check_source(owner=request.auth, kind=source))


@router.get("/settings", response=WearablesSettingsOut)
def get_settings(request):
    return services.get_wearables_settings(request.auth)


@router.put("/settings", response={200: WearablesSettingsOut, **ERRORS})
def put_settings(request, payload: WearablesSettingsIn):
    return services.update_wearables_settings(owner=request.auth, **payload.model_dump(exclude_unset=True))


@router.get("/status", response=StatusOut)
def status(request):
    services.ensure_sources(request.auth)
    rows = queries.source_status(request.auth)
    return {
        "enabled": services.get_wearables_settings(request.auth).enabled,
        "timezone": str(user_timezone(request.auth).key),
        "sources": [
            SourceStatusOut(
                kind=r["source"].kind,
                enabled=r["source"].enabled,
                days=r["days"],
                latest_day=r["latest_day"],
                last_run=run_out(r["last_run"]) if r["last_run"] else None,
            )
            for r in rows
        ],
    }


@router.post("/sync", response={200: list[SyncRunOut], **ERRORS})
def sync(request, payload: SyncIn):
    """Sync now (in the request): one source or every enabled one, ``days`` ending at ``date`` (default today)."""
    owner = request.auth
    dates = services.recent_dates(owner, payload.days, end=payload.date)
    if payload.source:
        runs = [
            services.sync(
                owner=owner,
                source=services.parse_kind(payload.source),
                dates=dates,
                force_memories=payload.force_memories,
                interactive=True,
            )
        ]
    else:
        runs = services.sync_enabled_sources(
            owner=owner, dates=dates, force_memories=payload.force_memories, interactive=True
        )
        if not runs:
            raise services.WearablesError(
                "No source is enabled: enable one with PUT /api/v1/wearables/sources/{source}"
            )
    failed = [r for r in runs if r.status == SyncRun.Status.FAILED]
    if failed and len(failed) == len(runs):
        raise ProviderError(f"{failed[0].source.kind}: {failed[0].errors[0] if failed[0].errors else 'sync failed'}")
    return [run_out(r) for r in runs]


def _parse_source(source: str | None) -> str | None:
    return services.parse_kind(source) if source else None


def transcript_out(owner, t: DayTranscript) -> dict:
    convs = []
    for item in queries.day_detail(owner, t):
        c = item["conversation"]
        convs.append(
            ConversationOut(
                id=str(c.public_id),
                external_id=c.external_id,
                started_at=c.started_at,
                ended_at=c.ended_at,
                title=c.title,
                wearer_label=c.wearer_label,
                wearer_method=c.wearer_method,
                wearer_confidence=c.wearer_confidence,
                also_recorded_by=sorted({o.transcript.source.kind for o in item["overlaps"]}),
                utterances=[
                    UtteranceOut(
                        index=u.index,
                        speaker=u.speaker_name,
                        speaker_label=u.speaker_label,
                        is_wearer=u.is_wearer,
                        text=u.text,
                        started_at=u.started_at,
                    )
                    for u in item["utterances"]
                ],
            )
        )
    return {
        "source": t.source.kind,
        "date": t.local_date,
        "timezone": t.timezone,
        "content_hash": t.content_hash,
        "conversation_count": t.conversation_count,
        "utterance_count": t.utterance_count,
        "updated_at": t.updated_at,
        "markdown": t.markdown,
        "conversations": convs,
    }


@router.get("/transcript", response={200: list[TranscriptOut], **ERRORS})
def transcript(request, date: IsoDate, source: str | None = None):
    """The day transcripts of one local date (one per source; ``source`` narrows to one)."""
    found = queries.transcripts_for_day(request.auth, date, _parse_source(source))
    if not found:
        raise Http404(f"No transcript for {date}" + (f" from {source}" if source else ""))
    return [transcript_out(request.auth, t) for t in found]


@router.get("/transcripts/search", response={200: TranscriptSearchOut, **ERRORS})
def search(
    request,
    q: str = Query(..., min_length=1, max_length=500),
    source: str | None = None,
    date_from: IsoDate | None = Query(None, alias="from"),
    date_to: IsoDate | None = Query(None, alias="to"),
    speaker: str | None = None,
    limit: int = Query(20, ge=1, le=100),
):
    if date_from and date_to and date_from > date_to:
        raise services.WearablesError("'from' must not be after 'to'")
    result = queries.search_utterances(
        request.auth,
        q,
        source=_parse_source(source),
        date_from=date_from,
        date_to=date_to,
        speaker=speaker,
        limit=limit,
    )
    return {"query": result.query, "mode": result.mode, "hits": result.hits}


@router.get("/memories", response={200: list[dict], **ERRORS})
def memories(request, source: str | None = None, date: IsoDate | None = None, limit: int = Query(50, ge=1, le=500)):
    """Memories taken from wearable transcripts (read from what the trust gate wrote)."""
    from wearables.services.memories import memories_for_day

    src = services.get_source(request.auth, source) if source else None
    return memories_for_day(request.auth, src, date, limit)


@router.post("/conversations/{conversation_id}/speakers", response={200: dict, **ERRORS})
def set_speaker(request, conversation_id: str, payload: SpeakerIn):
    """Name one speaker of one conversation ("this is me" with ``is_self``); wins over inferred labels."""
    if not payload.is_self and not payload.name.strip():
        raise services.WearablesValidationError("name is required unless is_self is true")
    services.set_speaker_for_conversation(
        owner=request.auth,
        conversation_public_id=conversation_id,
        label=payload.label,
        name=payload.name,
        is_self=payload.is_self,
    )
    return {"detail": "saved"}


def correction_out(c: Correction) -> dict:
    return {"id": c.pk, "wrong": c.wrong, "right": c.right, "source": c.source.kind if c.source_id else None}


@router.get("/corrections", response=list[CorrectionOut])
def list_corrections(request):
    return [correction_out(c) for c in Correction.objects.owned_by(request.auth).select_related("source")]


@router.post("/corrections", response={201: CorrectionOut, **ERRORS})
def add_correction(request, payload: CorrectionIn):
    c = services.add_correction(
        owner=request.auth, wrong=payload.wrong, right=payload.right, kind=_parse_source(payload.source)
    )
    return Status(201, correction_out(c))


@router.delete("/corrections/{correction_id}", response={204: None, **ERRORS})
def remove_correction(request, correction_id: int):
    services.remove_correction(owner=request.auth, correction_id=correction_id)
    return Status(204, None)


@router.get("/redaction-rules", response=list[RedactionRuleOut])
def list_redaction_rules(request):
    return [
        {"id": r.pk, "pattern": r.pattern, "description": r.description}
        for r in RedactionRule.objects.owned_by(request.auth)
    ]


@router.post("/redaction-rules", response={201: RedactionRuleOut, **ERRORS})
def add_redaction_rule(request, payload: RedactionRuleIn):
    r = services.add_redaction_rule(owner=request.auth, pattern=payload.pattern, description=payload.description)
    return Status(201, {"id": r.pk, "pattern": r.pattern, "description": r.description})


@router.delete("/redaction-rules/{rule_id}", response={204: None, **ERRORS})
def remove_redaction_rule(request, rule_id: int):
    get_owned_or_404(RedactionRule, request.auth, pk=rule_id)
    services.remove_redaction_rule(owner=request.auth, rule_id=rule_id)
    return Status(204, None)
