"""Recall panel views (on the Memory page): live search by layer, context preview, consolidation stats.

Each view returns its partial for HTMX requests and the standalone recall page otherwise.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from accounts.http import HtmxHttpRequest
from ledger.recall import consolidation, services
from ledger.recall.lexical import redact_for_display
from ledger.recall.models import ConsolidationRun, Embedding
from ledger.recall.planner import BUDGET_DEFAULT, BUDGET_MAX, BUDGET_MIN
from ledger.recall.providers import SCOPES
from ledger.recall.search import search_memory

LAYER_TITLES = {
    "pinned": "Pinned facts",
    "fact": "Facts",
    "episode": "Episodes",
    "utterance": "Transcript",
    "event": "Screen events",
}
SEARCH_SCOPES = ["all", *SCOPES]


def _page(request, **context):
    return render(request, "ledger/recall.html", {**_stats_context(request.user), **context})


def _stats_context(user) -> dict:
    runs = list(ConsolidationRun.objects.owned_by(user)[:5])
    return {
        "runs": runs,
        "last_run": runs[0] if runs else None,
        "last_counts": [(k, k.replace("_", " ").capitalize(), v) for k, v in (runs[0].counts.items() if runs else [])],
        "vector_count": Embedding.objects.owned_by(user).count(),
        "budget_min": BUDGET_MIN,
        "budget_max": BUDGET_MAX,
        "budget_default": BUDGET_DEFAULT,
        "search_scopes": SEARCH_SCOPES,
    }


@require_GET
@login_required
@vary_on_headers("HX-Request")
def page(request: HtmxHttpRequest):
    return _page(request)


@require_GET
@login_required
@vary_on_headers("HX-Request")
def search(request: HtmxHttpRequest):
    q = request.GET.get("q", "").strip()[:2000]
    scope = request.GET.get("scope", "all")
    if scope not in SEARCH_SCOPES:
        scope = "all"
    groups: list[tuple[str, list]] = []
    if q:
        by_kind: dict[str, list] = {}
        for item in search_memory(request.user, scope, q, 20):
            item.text = redact_for_display(item.text)
            by_kind.setdefault(item.kind, []).append(item)
        groups = [(LAYER_TITLES.get(k, k), items) for k, items in by_kind.items()]
    context = {"q": q, "scope": scope, "groups": groups}
    if request.htmx:
        return render(request, "ledger/partials/_recall_results.html", context)
    return _page(request, **context)


@require_POST
@login_required
def preview(request: HtmxHttpRequest):
    question = request.POST.get("question", "").strip()
    error = ""
    try:
        budget = int(request.POST.get("budget_tokens") or BUDGET_DEFAULT)
    except ValueError:
        budget, error = BUDGET_DEFAULT, "The budget must be a whole number of tokens."
    if not error and not BUDGET_MIN <= budget <= BUDGET_MAX:
        error = f"The budget must be between {BUDGET_MIN} and {BUDGET_MAX} tokens."
    if not question and not error:
        error = "Type a question to preview its context block."
    context = {
        "question": question,
        "budget": budget,
        "error": error,
        "budget_min": BUDGET_MIN,
        "budget_max": BUDGET_MAX,
    }
    if error:
        return render(request, "ledger/partials/_recall_preview.html", context, status=422)
    result = services.recall_context(owner=request.user, query=question, budget_tokens=budget, feedback=False)
    context["result"] = result
    context["block"] = redact_for_display(result.block)
    tpl = "ledger/partials/_recall_preview.html" if request.htmx else "ledger/recall.html"
    if not request.htmx:
        context = {**_stats_context(request.user), **context}
    return render(request, tpl, context)


@require_GET
@login_required
@vary_on_headers("HX-Request")
def consolidation_stats(request: HtmxHttpRequest):
    if request.htmx:
        return render(request, "ledger/partials/_recall_consolidation.html", _stats_context(request.user))
    return _page(request)


@require_POST
@login_required
def consolidation_run(request: HtmxHttpRequest):
    consolidation.consolidate(owner=request.user, trigger="manual")
    if request.htmx:
        return render(
            request, "ledger/partials/_recall_consolidation.html", {**_stats_context(request.user), "just_ran": True}
        )
    return _page(request, just_ran=True)
