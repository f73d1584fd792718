"""The Timeline page: one local day of screen events, with corrections, the source panel and preferences."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

from accounts.exceptions import DomainError
from accounts.http import HtmxHttpRequest
from accounts.owned import get_owned_or_404
from screen import queries, services
from screen.forms import CorrectForm, FilterForm, PreferenceForm, SourceForm
from screen.models import DayNote, ScreenEvent, ScreenFrame
from screen.services import curate
from screen.services.rollup import day_rollup, rollup_lines


def _timeline_context(request, form: FilterForm) -> dict:
    owner = request.user
    data = form.cleaned_data if form.is_valid() else {}
    day = data.get("date") or queries.opening_day(owner)
    event_type, status = data.get("type") or "", data.get("status") or ""
    events = queries.decorate(list(queries.events_for_day(owner, day, event_type=event_type, status=status)), owner)
    return {
        "form": form,
        "day": day,
        "prev_day": day - timedelta(days=1),
        "next_day": day + timedelta(days=1),
        "events": events,
        "types": queries.event_types_on(owner, day),
        "type": event_type,
        "status": status,
        "statuses": ScreenEvent.Status.choices,
        "rollup": rollup_lines(day_rollup(owner=owner, local_date=day)),
        "note": DayNote.objects.owned_by(owner).filter(local_date=day).first(),
    }


@require_GET
@login_required
def timeline(request: HtmxHttpRequest):
    ctx = _timeline_context(request, FilterForm(request.GET or None))
    if request.htmx and request.htmx.target == "screen-events":
        return render(request, "screen/partials/_events.html", ctx)
    ctx.update(queries.source_panel(request.user))
    ctx["stats"] = queries.signal_stats(request.user)
    return render(request, "screen/timeline.html", ctx)


@require_POST
@login_required
def event_correct(request: HtmxHttpRequest, public_id):
    event = get_owned_or_404(ScreenEvent, request.user, public_id=public_id)
    form = CorrectForm(request.POST)
    error = ""
    if form.is_valid():
        try:
            event = services.correct_event(
                owner=request.user,
                event=event,
                correction=services.Correction(form.cleaned_data["action"], form.cleaned_data.get("title") or ""),
            )
        except DomainError as exc:
            error = exc.message
    else:
        error = "; ".join(m for msgs in form.errors.values() for m in msgs)
    event = queries.events_for_day(request.user, event.local_date, status=event.status).get(pk=event.pk)
    queries.decorate([event], request.user)
    return render(
        request, "screen/partials/_event_card.html", {"e": event, "error": error}, status=422 if error else 200
    )


@require_GET
@login_required
def frame_image(request, pk: int):
    frame = get_owned_or_404(ScreenFrame, request.user, pk=pk)
    response = HttpResponse(bytes(frame.image), content_type=frame.content_type)
    response["Cache-Control"] = "private, max-age=86400"
    return response


def _panel(request, *, notice: str = "", error: str = "", form=None, pref_form=None, status: int = 200):
    ctx = queries.source_panel(request.user)
    ctx.update(
        {
            "stats": queries.signal_stats(request.user),
            "notice": notice,
            "error": error,
            "source_form": form,
            "pref_form": pref_form,
        }
    )
    return render(request, "screen/partials/_source_panel.html", ctx, status=status)


@require_GET
@login_required
def source_panel(request: HtmxHttpRequest):
    """The ScreenPipe source panel alone (status, cursor, gaps and restarts), also shown on the Sources page."""
    return _panel(request)


@require_POST
@login_required
def collect_now(request: HtmxHttpRequest):
    run = services.run_collect(owner=request.user, trigger="page")
    if run.status == run.Status.FAILED:
        return _panel(request, error=run.error)
    curated = sum(1 for r in curate.curate_pending(owner=request.user) if r.outcome == "curated")
    return _panel(
        request,
        notice=f"Collected {run.items} items: {run.signals} signals, {run.events_created} new "
        f"and {run.events_revised} revised events, {curated} curated.",
    )


@require_POST
@login_required
def source_update(request: HtmxHttpRequest):
    form = SourceForm(request.POST)
    if not form.is_valid():
        return _panel(request, form=form, error="Check the source settings.", status=422)
    try:
        services.update_source(owner=request.user, **form.cleaned_data)
    except DomainError as exc:
        return _panel(request, form=form, error=exc.message, status=422)
    return _panel(request, notice="Source saved.")


@require_POST
@login_required
def preference_add(request: HtmxHttpRequest):
    form = PreferenceForm(request.POST)
    if form.is_valid():
        try:
            services.add_preference(owner=request.user, text=form.cleaned_data["text"])
            return _panel(request, notice="Preference saved.")
        except DomainError as exc:
            form.add_error("text", exc.message)
    return _panel(request, pref_form=form, error="; ".join(form.errors.get("text", [])), status=422)


@require_POST
@login_required
def preference_remove(request: HtmxHttpRequest, index: int):
    try:
        services.remove_preference(owner=request.user, index=index)
    except DomainError as exc:
        return _panel(request, error=exc.message, status=422)
    return _panel(request, notice="Preference removed.")
