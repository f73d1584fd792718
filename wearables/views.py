"""Sources and Transcripts pages (HTMX). Thin: access → one service → render the page or its partial."""

from __future__ import annotations

from datetime import date

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_q.tasks import async_task

from accounts.exceptions import DomainError
from accounts.http import HtmxHttpRequest
from accounts.owned import get_owned_or_404
from accounts.services import user_timezone
from distill.models import MinImportance, Mode, NativeMode
from ledger.models import Status
from wearables import queries, services, tasks
from wearables.models import Conversation, Source, SourceKind
from wearables.services.sources import CREDENTIAL_FIELDS, policy_view

# Theme variables from static/css/almanac.css: each meets WCAG AA contrast in the light and the dark theme.
SPEAKER_COLOURS = [f"var(--speaker-{n})" for n in range(1, 9)]


# --- Sources --------------------------------------------------------------------------------------------
def _source_context(request, source: Source, **extra) -> dict:
    return {
        "source": source,
        "policy": policy_view(source),
        "credential_fields": sorted(CREDENTIAL_FIELDS[source.kind]),
        "stored_fields": {k for k, v in (source.credentials or {}).items() if v},
        "runs": queries.recent_runs(request.user, source, limit=5),
        "memory_modes": Mode.values,
        "native_modes": NativeMode.values,
        "importances": MinImportance.values,
        **extra,
    }


@require_GET
@login_required
def sources(request: HtmxHttpRequest):
    owner = request.user
    context = {
        "cards": [_source_context(request, s) for s in services.ensure_sources(owner)],
        "settings": services.get_wearables_settings(owner),
        "timezone": user_timezone(owner).key,
    }
    return render(request, "wearables/sources.html", context)


def _own_source(request, kind: str) -> Source:
    if kind not in SourceKind.values:
        raise Http404("Unknown source")
    return services.get_source(request.user, kind)


def _bool(request, name: str) -> bool:
    return request.POST.get(name) in {"on", "true", "1"}


@require_POST
@login_required
def source_update(request: HtmxHttpRequest, kind: str):
    source = _own_source(request, kind)
    post = request.POST
    changes: dict = {"enabled": _bool(request, "enabled"), "base_url": post.get("base_url", "")}
    creds = {f: post.get(f"cred_{f}", "") for f in CREDENTIAL_FIELDS[kind] if post.get(f"cred_{f}", "").strip()}
    if creds:
        changes["credentials"] = creds
    if post.get("clear_credentials"):
        changes["credentials"] = {f: "" for f in CREDENTIAL_FIELDS[kind]}
    try:
        for name in ("source_trust", "auto_approve_trust", "review_trust", "min_confidence"):
            if post.get(name, "") != "":
                changes[name] = float(post[name])
        if post.get("max_memories_per_day", "") != "":
            changes["max_memories_per_day"] = int(post["max_memories_per_day"])
        for name in ("memory_mode", "import_native_memories", "min_importance"):
            if post.get(name):
                changes[name] = post[name]
        source = services.update_source(owner=request.user, kind=kind, **changes)
    except ValueError:
        ctx = _source_context(request, source, error="Trust values must be numbers between 0 and 1")
        return render(request, "wearables/partials/_source_card.html", ctx, status=422)
    except DomainError as exc:
        source.refresh_from_db()
        return render(
            request,
            "wearables/partials/_source_card.html",
            _source_context(request, source, error=exc.message),
            status=422,
        )
    if not request.htmx:
        return redirect("wearables:sources")
    return render(request, "wearables/partials/_source_card.html", _source_context(request, source, saved=True))


@require_POST
@login_required
def source_check(request: HtmxHttpRequest, kind: str):
    _own_source(request, kind)
    source = services.check_source(owner=request.user, kind=kind)
    if not request.htmx:
        return redirect("wearables:sources")
    return render(request, "wearables/partials/_source_card.html", _source_context(request, source))


@require_POST
@login_required
def source_sync(request: HtmxHttpRequest, kind: str):
    source = _own_source(request, kind)
    error = ""
    requested_at = timezone.now()
    if not source.enabled:
        error = f"{source.get_kind_display()} is disabled: enable it and save first"
    else:
        # The worker runs the sync; the runs list polls until a run newer than this request shows up.
        async_task(tasks.sync_now, source.pk, 2, group="wearables-sync")
    if not request.htmx:
        return redirect("wearables:sources")
    ctx = _source_context(request, source, error=error, sync_requested=not error, since=requested_at.isoformat())
    return render(request, "wearables/partials/_source_runs.html", ctx, status=422 if error else 200)


@require_GET
@login_required
@vary_on_headers("HX-Request")
def source_runs(request: HtmxHttpRequest, kind: str):
    source = _own_source(request, kind)
    ctx = _source_context(request, source)
    since = parse_datetime(request.GET.get("since") or "")
    if since is not None:
        # Keep polling until the requested sync has started and finished.
        newer = [r for r in ctx["runs"] if r.started_at >= since]
        ctx["sync_requested"] = not newer or newer[0].status == "running"
        ctx["since"] = request.GET["since"]
    return render(request, "wearables/partials/_source_runs.html", ctx)


@require_POST
@login_required
def settings_update(request: HtmxHttpRequest):
    try:
        ws = services.update_wearables_settings(
            owner=request.user,
            enabled=_bool(request, "enabled"),
            export_markdown=_bool(request, "export_markdown"),
            off_the_record=_bool(request, "off_the_record"),
        )
    except DomainError as exc:
        ws = services.get_wearables_settings(request.user)
        return render(
            request, "wearables/partials/_feature_settings.html", {"settings": ws, "error": exc.message}, status=422
        )
    if not request.htmx:
        return redirect("wearables:sources")
    return render(request, "wearables/partials/_feature_settings.html", {"settings": ws, "saved": True})


# --- Transcripts ----------------------------------------------------------------------------------------
def _parse_day(value: str | None, owner) -> date:
    if value:
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    days = queries.days_with_transcripts(owner, limit=1)
    return days[0] if days else timezone.now().astimezone(user_timezone(owner)).date()


def _day_context(request, day: date, kind: str | None) -> dict:
    owner = request.user
    transcripts = queries.transcripts_for_day(owner, day)
    kinds = [t.source.kind for t in transcripts]
    if kind not in kinds:
        kind = kinds[0] if kinds else None
    current = next((t for t in transcripts if t.source.kind == kind), None)
    conversations = queries.day_detail(owner, current) if current else []
    for item in conversations:
        colours = {}
        for n, sp in enumerate(item["speakers"]):
            colours[sp["label"]] = (
                "var(--accent)" if sp["is_wearer"] else SPEAKER_COLOURS[(n + 1) % len(SPEAKER_COLOURS)]
            )
        item["colours"] = colours
        item["turns"] = [(u, colours.get(u.speaker_label, "var(--line)")) for u in item["utterances"]]
    return {
        "day": day,
        "kind": kind,
        "transcripts": transcripts,
        "transcript": current,
        "conversations": conversations,
        "recent_days": queries.days_with_transcripts(owner, limit=14),
        "tzname": str(user_timezone(owner).key),  # times on the page read in the user's timezone
    }


@require_GET
@login_required
@vary_on_headers("HX-Request")
def transcripts(request: HtmxHttpRequest):
    kind = request.GET.get("source") or None
    if kind and kind.isdigit():
        # Evidence links may name the source by id ("/transcripts/?date=…&source=3#u-7").
        kind = Source.objects.owned_by(request.user).filter(pk=int(kind)).values_list("kind", flat=True).first()
    context = _day_context(request, _parse_day(request.GET.get("date"), request.user), kind)
    template = (
        "wearables/partials/_day.html" if request.htmx and not request.htmx.boosted else "wearables/transcripts.html"
    )
    return render(request, template, context)


@require_GET
@login_required
def transcript_search(request: HtmxHttpRequest):
    q = (request.GET.get("q") or "").strip()
    kind = request.GET.get("source") or None
    result = None
    error = ""
    if q:
        try:
            kind = services.parse_kind(kind) if kind else None
            result = queries.search_utterances(request.user, q, source=kind, limit=30)
        except DomainError as exc:
            error = exc.message
    return render(request, "wearables/partials/_search_results.html", {"q": q, "result": result, "error": error})


@require_POST
@login_required
def conversation_speaker(request: HtmxHttpRequest, public_id):
    conv = get_owned_or_404(
        Conversation.objects.select_related("transcript__source"), request.user, public_id=public_id
    )
    label = request.POST.get("label", "")
    is_self = request.POST.get("is_self") == "1"
    name = request.POST.get("name", "").strip()
    error = ""
    try:
        if not is_self and not name:
            raise services.WearablesValidationError("Type a name, or press “this is me”")
        services.set_speaker_for_conversation(
            owner=request.user, conversation_public_id=conv.public_id, label=label, name=name, is_self=is_self
        )
    except Http404:
        raise
    except DomainError as exc:
        error = exc.message
    conv.refresh_from_db()
    if not request.htmx:
        return redirect(f"/transcripts/?date={conv.transcript.local_date}&source={conv.transcript.source.kind}")
    ctx = _day_context(request, conv.transcript.local_date, conv.transcript.source.kind)
    item = next(i for i in ctx["conversations"] if i["conversation"].pk == conv.pk)
    return render(
        request,
        "wearables/partials/_conversation.html",
        {**ctx, "item": item, "error": error},
        status=422 if error else 200,
    )


# --- Memories (what the trust gate made of the transcripts) ---------------------------------------------


def _memory_day(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


@require_GET
@login_required
@vary_on_headers("HX-Request")
def memories_page(request: HtmxHttpRequest):
    """The per-day Memories page: each memory with its trust bar, decision badge and transcript link."""
    from distill.queries import bar_segments
    from wearables.models import DayTranscript
    from wearables.services.memories import memories_for_day

    days = list(
        DayTranscript.objects.owned_by(request.user)
        .order_by("-local_date")
        .values_list("local_date", flat=True)
        .distinct()[:60]
    )
    day = _memory_day(request.GET.get("date")) or (days[0] if days else None)
    kind = request.GET.get("source") or ""
    if kind not in SourceKind.values:
        kind = ""
    source = Source.objects.owned_by(request.user).filter(kind=kind).first() if kind else None
    if kind and source is None:
        items = []
    else:
        items = memories_for_day(request.user, source, day, 500) if day else []
    for item in items:
        item["segments"] = bar_segments(item)
        item["score_pct"] = round(min(float(item["trust_score"] or 0), 1.0) * 100)
        item["status_label"] = item["status"].replace("_", " ")
    context = {
        "day": day,
        "days": days,
        "source": kind,
        "sources": SourceKind.choices,
        "items": items,
        "counts": {
            s: sum(1 for i in items if i["status"] == s) for s in (Status.ACCEPTED, Status.PENDING_REVIEW, Status.REJECTED, Status.DROPPED)
        },
    }
    template = "wearables/partials/_memories.html" if request.htmx else "wearables/memories.html"
    return render(request, template, context)
