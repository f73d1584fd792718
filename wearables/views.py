from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET


@require_GET
@login_required
def transcripts(request):
    return render(request, "wearables/transcripts.html")


@require_GET
@login_required
def sources(request):
    return render(request, "wearables/sources.html")
