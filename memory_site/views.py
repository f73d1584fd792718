"""Site pages: dashboard and settings (display name, timezone, API tokens)."""

from __future__ import annotations

import sys
import zoneinfo

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts import services
from accounts.exceptions import DomainError
from accounts.models import ApiToken
from accounts.owned import get_owned_or_404
from ledger.llm.queries import settings_summary as llm_summary
from memory_site import health as health_checks
from memory_site import portability
from memory_site.dashboard import summary as dashboard_summary
from memory_site.middleware import error_response, map_exception


@require_GET
@login_required
def dashboard(request):
    context = {"health": health_checks.health(), "summary": dashboard_summary(request.user)}
    return render(request, "memory_site/dashboard.html", context)


def _settings_context(request, **extra) -> dict:
    return {
        "settings_obj": services.get_settings(request.user),
        "tokens": ApiToken.objects.owned_by(request.user),
        "timezones": sorted(zoneinfo.available_timezones()),
        "llm": llm_summary(request.user),
        **extra,
    }


@require_http_methods(["GET", "POST"])
@login_required
def settings_page(request):
    if request.method == "POST":
        try:
            services.update_settings(
                user=request.user,
                display_name=request.POST.get("display_name", ""),
                timezone_name=request.POST.get("timezone", ""),
            )
        except DomainError as exc:
            ctx = _settings_context(request, error=exc.message)
            return render(request, "memory_site/partials/_settings_form.html", ctx, status=422)
        ctx = _settings_context(request, saved=True)
        tpl = "memory_site/partials/_settings_form.html" if request.htmx else "memory_site/settings.html"
        return render(request, tpl, ctx)
    return render(request, "memory_site/settings.html", _settings_context(request))


@require_POST
@login_required
def token_create(request):
    _, plain = services.create_token(owner=request.user, name=request.POST.get("name", ""))
    return render(request, "memory_site/partials/_tokens.html", _settings_context(request, new_token=plain))


@require_POST
@login_required
def token_revoke(request, public_id):
    token = get_owned_or_404(ApiToken, request.user, public_id=public_id)
    services.revoke_token(token=token)
    return render(request, "memory_site/partials/_tokens.html", _settings_context(request))


@csrf_exempt
@require_http_methods(["GET", "POST", "DELETE"])
def mcp_http(request):
    """MCP Streamable HTTP (official SDK): bearer token required, cross-site Origins refused. The server answers
    in JSON and never streams, so GET (the server-to-client stream) is 405, as the transport spec asks."""
    from memory_site import mcp_http as transport

    if request.method == "GET":
        response = JsonResponse({"detail": "This MCP server does not stream; POST JSON-RPC requests."}, status=405)
        response["Allow"] = "POST, DELETE"
        return response
    if not transport.origin_allowed(request):
        return JsonResponse({"detail": "Origin not allowed"}, status=403)
    header = request.headers.get("Authorization", "")
    owner = services.authenticate_token(header[7:].strip()) if header.lower().startswith("bearer ") else None
    if owner is None:
        return JsonResponse({"detail": "Authentication required: send 'Authorization: Bearer <token>'"}, status=401)
    return transport.handle(request, owner)


@require_GET
@login_required
def export_download(request):
    """The signed-in user's whole memory as a zip download (what `manage.py export` writes)."""
    data = portability.export_user(request.user)
    stamp = timezone.localdate().isoformat()
    response = HttpResponse(data, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="almanac-{request.user.get_username()}-{stamp}.zip"'
    return response


def server_error(request):
    """Django's last resort (``handler500``), for an exception raised where no view catches it: in a middleware
    (the session, the login throttle) or while the response is finished. Called inside Django's ``except``, so the
    exception is at hand; one the site can name (the database restarting: 503 with ``Retry-After``) is answered as
    the views answer it, anything else is the plain 500 page."""
    exception = sys.exc_info()[1]
    if exception is not None and (mapped := map_exception(exception)):
        return error_response(request, *mapped)
    return defaults.server_error(request)
