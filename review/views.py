"""Review page: the queue of pending memories with accept / edit / reject."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import trigger_client_event

from ledger.exceptions import DomainError
from ledger.models import Fact
from ledger.owned import get_owned_or_404
from review import queries, services


@require_GET
@login_required
def queue(request):
    source = request.GET.get("source") or None
    context = {
        "items": queries.review_queue(owner=request.user, source=source),
        "count": queries.queue_size(owner=request.user),
        "sources": queries.queue_sources(owner=request.user),
        "source": source,
    }
    template = "review/partials/_queue.html" if request.htmx else "review/queue.html"
    return render(request, template, context)


@require_POST
@login_required
def decide(request, public_id):
    fact = get_owned_or_404(Fact, request.user, public_id=public_id)
    decision = request.POST.get("decision", "")
    content = request.POST.get("content") if decision == "accept" else None
    try:
        fact = services.decide_item(owner=request.user, fact=fact, decision=decision, content=content)
    except DomainError as exc:
        item = queries.review_item(owner=request.user, fact=fact)
        return render(request, "review/partials/_item.html", {"item": item, "error": exc.message}, status=422)
    response = render(request, "review/partials/_decided.html", {"fact": fact})
    return trigger_client_event(response, "reviewQueueChanged", after="settle")


@require_GET
@login_required
def count(request):
    return render(request, "review/partials/_count.html", {"count": queries.queue_size(owner=request.user)})
