"""Chats page (sessions by day with episodes, lessons, the morning report, upload) and the memory proxy."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from accounts import services as account_services
from accounts.exceptions import DomainError
from chats import queries, tasks
from chats.forms import UploadForm
from chats.privacy import removed_counts
from chats.services import proxy
from chats.services.imports import import_path
from chats.services.sleep import report_markdown


def _context(request, **extra) -> dict:
    private = sorted(removed_counts(request.user).items())
    return {
        "days": queries.sessions_by_day(request.user),
        "lessons": queries.lessons(request.user, limit=100),
        "report": queries.latest_report(request.user),
        "form": UploadForm(),
        "private_removed": [(entry, n) for entry, n in private if n],
        "private_total": sum(n for _, n in private),
        **extra,
    }


@require_GET
@login_required
def chats_page(request):
    return render(request, "chats/chats.html", _context(request))


@require_GET
@login_required
def report_markdown_view(request):
    report = queries.latest_report(request.user)
    text = report_markdown(report) if report else "# Morning report\n\nNo sleep pass has run yet.\n"
    return HttpResponse(text, content_type="text/markdown; charset=utf-8")


@require_POST
@login_required
def upload(request):
    form = UploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _invalid(request, form)
    f = form.cleaned_data["file"]
    suffix = Path(f.name).suffix or ".json"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"upload{suffix}"
        with path.open("wb") as out:
            for chunk in f.chunks():
                out.write(chunk)
        try:
            report = import_path(owner=request.user, path=path, fmt=form.cleaned_data["format"],
                                 label=f"upload:{form.cleaned_data['format']}:{f.name}")  # fmt: skip
        except DomainError as exc:
            form.add_error("file", exc.message)
            return _invalid(request, form)
    if not request.htmx:
        return render(request, "chats/chats.html", _context(request, imported=report))
    return render(request, "chats/partials/_upload.html", {"form": UploadForm(), "imported": report})


def _invalid(request, form):
    if request.htmx:
        return render(request, "chats/partials/_upload.html", {"form": form}, status=422)
    return render(request, "chats/chats.html", _context(request, form=form), status=422)


# --- Memory proxy (OpenAI-compatible) ---------------------------------------------------------------------
def _error(message: str, status: int, kind: str = "invalid_request_error") -> JsonResponse:
    return JsonResponse({"error": {"message": message, "type": kind}}, status=status)


def _proxy_owner(request):
    """(owner, None) for a request with an Almanac token, else (None, the error response)."""
    if not proxy.enabled():
        return None, _error("The memory proxy is off: set ALMANAC_PROXY_UPSTREAM_URL.", 404, "not_found")
    header = request.headers.get("Authorization", "")
    owner = account_services.authenticate_token(header[7:].strip()) if header.lower().startswith("bearer ") else None
    if owner is None:
        return None, _error("Send 'Authorization: Bearer <Almanac token>'.", 401, "authentication_error")
    return owner, None


@csrf_exempt
@require_POST
def chat_completions(request):
    owner, refused = _proxy_owner(request)
    if refused is not None:
        return refused
    try:
        body = json.loads(request.body or b"")
        if not isinstance(body, dict):
            raise ValueError
        body = proxy.without_private(owner, body)
        sent, _block = proxy.with_memory(owner, body)
        conversation = proxy.conversation_for(owner, body, request.headers.get("X-Almanac-Conversation"))
        if body.get("stream"):
            return _stream(owner, body, sent, conversation)
        upstream = proxy.complete(sent)
    except ValueError:
        return _error("The body must be a JSON object.", 400)
    except proxy.ProxyError as exc:
        return _error(exc.message, exc.status, "upstream_error" if exc.status >= 500 else "invalid_request_error")
    if upstream.status < 400:
        proxy.record(owner=owner, body=body, reply=proxy.reply_text(upstream.json()), conversation=conversation,
                     enqueue=tasks.enqueue_distill)  # fmt: skip
    response = HttpResponse(upstream.body, status=upstream.status, content_type=upstream.content_type)
    return _passed(response, upstream, conversation)


@csrf_exempt
@require_GET
def models(request):
    """``GET /v1/models``: the upstream's list, passed through (clients ask it before they chat)."""
    _owner, refused = _proxy_owner(request)
    if refused is not None:
        return refused
    try:
        upstream = proxy.models()
    except proxy.ProxyError as exc:
        return _error(exc.message, exc.status, "upstream_error")
    return _passed(HttpResponse(upstream.body, status=upstream.status, content_type=upstream.content_type), upstream)


def _passed(response, upstream, conversation=None):
    for name, value in upstream.headers.items():  # Retry-After and rate-limit headers, unchanged
        response[name] = value
    if conversation is not None:
        response["X-Almanac-Conversation"] = conversation.external_id  # send it back to continue this one
    return response


def _stream(owner, body: dict, sent: dict, conversation):
    stream = proxy.open_stream(sent)
    if stream.status >= 400:
        return _passed(HttpResponse(b"".join(stream.chunks), status=stream.status,
                                    content_type=stream.content_type), stream)  # fmt: skip

    def on_end(cut: bool) -> None:
        proxy.record(owner=owner, body=body, reply="".join(stream.text), conversation=conversation,
                     enqueue=tasks.enqueue_distill, incomplete=cut)  # fmt: skip

    stream.on_end = on_end
    response = StreamingHttpResponse(stream.chunks, status=stream.status, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return _passed(response, stream, conversation)
