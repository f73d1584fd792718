"""Memory page: facts with status and confidence badges, fact detail (evidence, validity timeline, history),
identity overrides. Full pages and their HTMX partials come from the same views."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from accounts.exceptions import DomainError
from accounts.http import HtmxHttpRequest, render_page
from accounts.owned import get_owned_or_404
from ledger import permitted_uses, queries, services
from ledger.forget import services as forget_services
from ledger.forms import ForgetPersonForm, LiftRefusalForm
from ledger.models import Entity, Fact, IdentityNarrative, IdentityOverride, Refusal, Status
from ledger.services import layers

MEMORY_TABS = [
    ("active", "Active", list(permitted_uses.ACTIVE_STATUSES)),
    ("pending", "Needs review", list(permitted_uses.PENDING_STATUSES)),
    ("history", "History", [Status.CONTRADICTED, Status.SUPERSEDED]),
    ("rejected", "Rejected", [Status.REJECTED, Status.RETRACTED, Status.DROPPED]),
    ("all", "All", None),
]
DECISIONS = {Status.ACCEPTED: "Accept", Status.REJECTED: "Reject"}
PAGE_SIZE = 50


def _list_context(request) -> dict:
    tab = request.GET.get("tab", "active")
    tabs = {key: statuses for key, _, statuses in MEMORY_TABS}
    if tab not in tabs:
        tab = "active"
    q = request.GET.get("q", "").strip()[:200]
    qs = queries.facts(owner=request.user, status=tabs[tab], q=q or None)
    page = Paginator(qs, PAGE_SIZE).get_page(request.GET.get("page"))
    now = timezone.now()
    return {
        "tab": tab,
        "tabs": [(key, label) for key, label, _ in MEMORY_TABS],
        "fact_q": q,
        "page_obj": page,
        "facts": [queries.fact_view(f, now=now) for f in page.object_list],
        "counts": queries.pending_counts(owner=request.user),
    }


def _identity_context(request, **extra) -> dict:
    return {
        "overrides": IdentityOverride.objects.owned_by(request.user),
        "narrative": IdentityNarrative.objects.owned_by(request.user).first(),
        **extra,
    }


@require_GET
@login_required
@vary_on_headers("HX-Request")
def memory(request: HtmxHttpRequest):
    ctx = _list_context(request)
    if request.htmx and request.htmx.target == "ledger-facts":
        return render(request, "ledger/partials/_fact_list.html", ctx)
    ctx.update(_identity_context(request))
    return render(request, "ledger/memory.html", ctx)


def _timeline(fact: Fact, versions) -> dict:
    """Positions (percent) of the validity interval and record-time versions on one shared axis."""
    now = timezone.now()
    points = [fact.recorded_at, now]
    points += [t for t in (fact.valid_from, fact.valid_to) if t]
    points += [v.recorded_from for v in versions]
    start, end = min(points), max(points)
    span = max((end - start).total_seconds(), 1.0)

    def pos(t):
        return round(100 * (t - start).total_seconds() / span, 1)

    valid_left = pos(fact.valid_from) if fact.valid_from else 0.0
    valid_right = pos(fact.valid_to) if fact.valid_to else 100.0
    rows = []
    for v in versions:
        left = pos(v.recorded_from)
        right = pos(v.recorded_to) if v.recorded_to else 100.0
        rows.append({"v": v, "left": left, "width": max(right - left, 1.0)})
    return {
        "start": start,
        "end": end,
        "valid_left": valid_left,
        "valid_width": max(valid_right - valid_left, 1.0),
        "versions": rows,
    }


def _previous_rejection(fact: Fact) -> dict | None:
    """The earlier rejection a claim came back past (a change stated after it), shown beside it."""
    if not fact.previously_rejected:
        return None
    for details in fact.evidence.values_list("details", flat=True):
        if isinstance(details, dict) and isinstance(details.get("previous_rejection"), dict):
            return details["previous_rejection"]
    return {
        "kind": Refusal.Kind.REJECTED,
        "decided_at": "",
        "decision_commit_id": fact.refusal_commit_id,
        "fact_id": None,
    }


def _detail_context(request, fact: Fact, **extra) -> dict:
    view = queries.fact_view(fact)
    visible = bool(view["permitted_uses"])
    versions = list(fact.versions.order_by("version"))
    return {
        "fact": fact,
        "view": view,
        "visible": visible,
        "evidence": list(fact.evidence.all()) if visible else [],
        "evidence_count": fact.evidence.count(),
        "timeline": _timeline(fact, versions),
        "history": queries.fact_history(fact),
        "decisions": DECISIONS,
        "previous_rejection": _previous_rejection(fact),
        **extra,
    }


@require_GET
@login_required
@vary_on_headers("HX-Request")
def fact_detail(request: HtmxHttpRequest, fact_id):
    fact = get_owned_or_404(Fact.objects.select_related("subject_entity"), request.user, public_id=fact_id)
    return render_page(request, "ledger/fact.html", "ledger/partials/_fact_detail.html", _detail_context(request, fact))


@require_POST
@login_required
def fact_decision(request: HtmxHttpRequest, fact_id):
    fact = get_owned_or_404(Fact.objects.select_related("subject_entity"), request.user, public_id=fact_id)
    action = request.POST.get("action", "")
    try:
        if action == "retract":
            fact = services.retract(owner=request.user, fact=fact, reason="retracted on the Memory page")
        elif action in DECISIONS:
            fact = services.decide(
                owner=request.user, fact=fact, status=action, reason="decided on the Memory page", author="user"
            )
        else:
            raise DomainError("Choose accept, reject or retract")
    except DomainError as exc:
        ctx = _detail_context(request, fact, error=exc.message)
        return render(request, "ledger/partials/_fact_detail.html", ctx, status=422)
    if request.htmx:
        return render(request, "ledger/partials/_fact_detail.html", _detail_context(request, fact, saved=True))
    return redirect("ledger:fact", fact_id=fact.public_id)


@require_POST
@login_required
def fact_forget(request: HtmxHttpRequest, fact_id):
    fact = get_owned_or_404(Fact, request.user, public_id=fact_id)
    forget_services.forget(owner=request.user, fact=fact)
    if request.htmx:
        return HttpResponseClientRedirect("/memory/")
    return redirect("ledger:memory")


@require_POST
@login_required
def identity_save(request: HtmxHttpRequest):
    try:
        layers.set_identity_override(
            owner=request.user, key=request.POST.get("key", ""), value=request.POST.get("value", "")
        )
    except DomainError as exc:
        ctx = _identity_context(request, error=exc.message, form=request.POST)
        return render(request, "ledger/partials/_identity.html", ctx, status=422)
    if request.htmx:
        return render(request, "ledger/partials/_identity.html", _identity_context(request, saved=True))
    return redirect("ledger:memory")


@require_POST
@login_required
def identity_delete(request: HtmxHttpRequest, key: str):
    get_owned_or_404(IdentityOverride, request.user, key=key)
    layers.delete_identity_override(owner=request.user, key=key)
    if request.htmx:
        return render(request, "ledger/partials/_identity.html", _identity_context(request))
    return redirect("ledger:memory")


@require_POST
@login_required
def identity_narrative(request: HtmxHttpRequest):
    layers.derive_identity_narrative(owner=request.user)
    if request.htmx:
        return render(request, "ledger/partials/_identity.html", _identity_context(request))
    return redirect("ledger:memory")


# --- Refusals and people ----------------------------------------------------------------------------------
def _refusal_context(request, **extra) -> dict:
    include_lifted = request.GET.get("lifted") == "1"
    week = timezone.now() - timedelta(days=7)
    return {
        "refusals": list(queries.refusals(owner=request.user, include_lifted=include_lifted)[:200]),
        "include_lifted": include_lifted,
        "refused_this_week": queries.refusal_event_count(owner=request.user, since=week),
        "events": queries.refusal_events(owner=request.user, since=week, limit=20),
        **extra,
    }


@require_GET
@login_required
def refusals(request: HtmxHttpRequest):
    return render_page(request, "ledger/refusals.html", "ledger/partials/_refusal_list.html", _refusal_context(request))


@require_POST
@login_required
def refusal_lift(request: HtmxHttpRequest, refusal_id):
    refusal = get_owned_or_404(Refusal, request.user, public_id=refusal_id)
    form = LiftRefusalForm(request.POST)
    try:
        if not form.is_valid():
            raise DomainError("The reason is too long")
        services.lift_refusal(owner=request.user, refusal=refusal, reason=form.cleaned_data["reason"])
    except DomainError as exc:
        ctx = _refusal_context(request, error=exc.message)
        return render(request, "ledger/partials/_refusal_list.html", ctx, status=422)
    if request.htmx:
        return render(request, "ledger/partials/_refusal_list.html", _refusal_context(request, lifted=True))
    return redirect("ledger:refusals")


def _people_context(request, **extra) -> dict:
    from django.db.models import Count, Q

    qs = queries.entities(owner=request.user).annotate(
        n=Count("facts_as_subject", filter=Q(facts_as_subject__owner=request.user))
    )
    return {"people": list(qs), **extra}


@require_GET
@login_required
def people(request: HtmxHttpRequest):
    return render_page(request, "ledger/people.html", "ledger/partials/_people_list.html", _people_context(request))


@require_POST
@login_required
def person_forget(request: HtmxHttpRequest, entity_id):
    entity = get_owned_or_404(Entity, request.user, public_id=entity_id)
    form = ForgetPersonForm(request.POST)
    if not form.is_valid():
        ctx = _people_context(request, error=form.errors["confirm"][0])
        return render(request, "ledger/partials/_people_list.html", ctx, status=422)
    report = forget_services.forget_entity(owner=request.user, entity=entity)
    ctx = _people_context(request, forgotten=report)
    return render_page(request, "ledger/people.html", "ledger/partials/_people_list.html", ctx)
