"""Review page: bands as tabs, cards with HTMX actions (each a ledger commit), undo, bulk, budget, nav badge."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import trigger_client_event

from accounts.exceptions import DomainError
from accounts.http import HtmxHttpRequest
from accounts.owned import get_owned_or_404
from distill import learning
from ledger import queries as ledger_queries
from ledger.models import Fact, Status
from review import cards, queries, services
from review.forms import ActionForm, BudgetForm, BulkForm, FilterForm

CHANGED = "reviewQueueChanged"


def _panel_context(request, filters: dict, **extra) -> dict:
    plan = queries.queue_plan(request.user)
    args = {"source": filters["source"], "subject": filters["subject"], "show_all": filters["show_all"], "plan": plan}
    try:
        page = queries.band_page(request.user, filters["band"], cursor=filters["cursor"], **args)
    except DomainError:  # a stale or hand-edited cursor: start from the top
        page = queries.band_page(request.user, filters["band"], **args)
    return {
        "page": page,
        "items": page.items,
        "plan": plan,
        "filters": filters,
        "band": filters["band"],
        "bands": queries.Band,
        "bulk_actions": [a for a in services.BULK_ACTIONS[filters["band"]]],
        **extra,
    }


def _stats_context(request, filters: dict, plan=None) -> dict:
    stats = queries.stats(request.user, plan=plan)
    tabs = [(b, queries.Band.LABELS[b], stats.by_band.get(b, 0)) for b in queries.Band.ALL]
    return {"stats": stats, "tabs": tabs, "band": filters["band"], "filters": filters}


@require_GET
@login_required
@vary_on_headers("HX-Request")
def queue(request: HtmxHttpRequest):
    filters = FilterForm(request.GET).filters()
    context = _panel_context(request, filters)
    if request.htmx and request.htmx.target == "review-panel":
        return render(request, "review/partials/_panel.html", context)
    context.update(_stats_context(request, filters, plan=context["plan"]))
    context.update(
        sources=queries.queue_sources(owner=request.user),
        subjects=queries.queue_subjects(owner=request.user),
        budget_form=BudgetForm(initial={"daily_budget": context["plan"].budget}),
        learned=learning.learned(request.user),
    )
    return render(request, "review/queue.html", context)


@require_GET
@login_required
def stats(request: HtmxHttpRequest):
    filters = FilterForm(request.GET).filters()
    return render(request, "review/partials/_stats.html", _stats_context(request, filters))


@require_POST
@login_required
def item_action(request: HtmxHttpRequest, public_id):
    fact = get_owned_or_404(Fact, request.user, public_id=public_id)
    form = ActionForm(request.POST)
    if not form.is_valid():
        return _card_error(request, fact, "; ".join(f"{k}: {', '.join(v)}" for k, v in form.errors.items()))
    data = form.cleaned_data
    try:
        outcome = services.act(
            owner=request.user,
            fact=fact,
            action=data["action"],
            edit=data["edit"],
            subject=data["subject"],
            merge_into=data["merge_into"],
            snooze_until=data["snooze_until"],
        )
    except DomainError as exc:
        return _card_error(request, fact, exc.message)
    if not request.htmx:
        return redirect("review:queue")
    if outcome.action.kind == services.Action.NOT_ABOUT_ME:
        item = cards.card(request.user, outcome.fact)
        response = render(request, "review/partials/_card.html", {"item": item, "notice": "Subject changed"})
    else:
        response = render(request, "review/partials/_decided.html", {"outcome": outcome, "fact": outcome.fact})
    return trigger_client_event(response, CHANGED, after="settle")


def _card_error(request, fact: Fact, message: str):
    fact = Fact.objects.get(pk=fact.pk)
    item = cards.card(request.user, fact)
    return render(request, "review/partials/_card.html", {"item": item, "error": message}, status=422)


@require_POST
@login_required
def undo(request: HtmxHttpRequest):
    """Revert the last action. The answer is a status line plus the restored cards, swapped out of band over
    their "decided" strips when those are on the page (a small answer, not the whole panel)."""
    try:
        reverted = services.undo(owner=request.user)
        message = f"Undone: {len(reverted)} memor{'y' if len(reverted) == 1 else 'ies'} restored"
    except DomainError as exc:
        reverted, message = [], exc.message
    if not request.htmx:
        return redirect("review:queue")
    items = cards.cards_for(request.user, [f.pk for f in reverted[:50]])
    response = render(request, "review/partials/_undone.html", {"message": message, "items": items})
    return trigger_client_event(response, CHANGED, after="settle")


@require_POST
@login_required
def bulk(request: HtmxHttpRequest):
    form = BulkForm(request.POST)
    filters = FilterForm(request.POST).filters()
    status = 200
    if not form.is_valid():
        message, status = "Choose a band, an action and confirm the count", 422
    else:
        data = form.cleaned_data
        try:
            done = services.bulk(
                owner=request.user,
                band=data["band"],
                action=data["action"],
                source=data["source"] or None,
                subject=data["subject"] or None,
                expected=data["expected"],
            )
            message = f"{data['action'].capitalize()}: {len(done)} memories (u undoes it)"
        except DomainError as exc:
            message, status = exc.message, 422
    if not request.htmx:
        return redirect("review:queue")
    context = _panel_context(request, filters, message=message)
    response = render(request, "review/partials/_panel.html", context, status=status)
    return trigger_client_event(response, CHANGED, after="settle")


@require_POST
@login_required
def budget(request: HtmxHttpRequest):
    form = BudgetForm(request.POST)
    if form.is_valid():
        services.set_daily_budget(owner=request.user, daily_budget=form.cleaned_data["daily_budget"])
    return redirect("review:queue")


@require_POST
@login_required
def learning_refit(request: HtmxHttpRequest):
    """Refit what the gate learned from this person's decisions, now."""
    learned = services.refit_learning(owner=request.user)
    if not request.htmx:
        return redirect("review:queue")
    return render(request, "review/partials/_learned.html", {"learned": learned})


@require_GET
@login_required
def badge(request: HtmxHttpRequest):
    return render(request, "review/partials/_badge.html", {"count": queries.queue_size(owner=request.user)})


count = badge  # the old route name; the page header uses the badge too


@require_GET
@login_required
def merge_options(request: HtmxHttpRequest, public_id):
    fact = get_owned_or_404(Fact, request.user, public_id=public_id)
    similar = ledger_queries.find_similar(
        owner=request.user, content=fact.content, threshold=0.2, statuses=(Status.ACCEPTED,), limit=8
    )
    options = [f for f, _ in similar if f.pk != fact.pk]
    return render(request, "review/partials/_merge_options.html", {"fact": fact, "options": options})


@require_GET
@login_required
def refused(request: HtmxHttpRequest):
    events = queries.refused_this_week(request.user)
    ids = {e.fact_id for e in events if e.fact_id}
    facts = {str(f.public_id): f for f in Fact.objects.owned_by(request.user).filter(public_id__in=ids)}
    rows = [{"event": e, "fact": facts.get(e.fact_id or "")} for e in events]
    return render(request, "review/refused.html", {"rows": rows})
