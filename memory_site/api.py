"""The single NinjaAPI at /api/v1/. Each app adds its own router; domain errors map to JSON here, once."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from ninja.errors import AuthenticationError, HttpError
from ninja.errors import ValidationError as NinjaValidationError

from accounts import services
from accounts.auth import api_auth
from accounts.exceptions import DomainError
from accounts.schemas import ErrorOut, SettingsIn, SettingsOut
from chats.api import router as chats_router
from distill.api import router as distill_router
from ledger.api import router as ledger_router
from ledger.recall.api import router as memory_router
from memory_site import health as health_checks
from memory_site.middleware import error_response, map_exception
from memory_site.openapi import AlmanacAPI
from memory_site.schemas import HealthOut
from review.api import router as review_router
from screen.api import router as screen_router
from wearables.api import router as wearables_router

logger = logging.getLogger(__name__)

api = AlmanacAPI(title="Almanac API", version="1", urls_namespace="api", auth=api_auth, docs_url="/docs")


@api.exception_handler(DomainError)
def domain_error(request, exc: DomainError):
    return api.create_response(request, {"detail": exc.message}, status=exc.status_code)


@api.exception_handler(NinjaValidationError)
def validation_error(request, exc: NinjaValidationError):
    parts = []
    for err in exc.errors:
        loc = ".".join(str(p) for p in err.get("loc", []) if p not in ("body", "query", "path", "payload"))
        parts.append(f"{loc}: {err.get('msg')}" if loc else str(err.get("msg")))
    return api.create_response(
        request, {"detail": "; ".join(parts) or "Invalid input", "errors": exc.errors}, status=422
    )


@api.exception_handler(DjangoValidationError)
def django_validation_error(request, exc: DjangoValidationError):
    return api.create_response(request, {"detail": "; ".join(exc.messages)}, status=400)


@api.exception_handler(AuthenticationError)
def auth_error(request, exc):
    return api.create_response(
        request, {"detail": "Authentication required: send 'Authorization: Bearer <token>'"}, status=401
    )


@api.exception_handler(PermissionDenied)
def permission_denied(request, exc):
    return api.create_response(request, {"detail": str(exc) or "Forbidden"}, status=403)


@api.exception_handler(Http404)
def not_found(request, exc):
    return api.create_response(request, {"detail": str(exc) or "Not found"}, status=404)


@api.exception_handler(HttpError)
def http_error(request, exc: HttpError):
    return api.create_response(request, {"detail": str(exc)}, status=exc.status_code)


@api.exception_handler(Exception)
def server_error(request, exc: Exception):
    # Bad input that only shows late (a body read inside ninja, a value PostgreSQL refuses) is the client's.
    if mapped := map_exception(exc):
        return error_response(request, *mapped)
    # Log the type and traceback server-side; the client only learns that it failed.
    logger.exception("API error on %s %s", request.method, request.path)
    if settings.DEBUG:
        return api.create_response(request, {"detail": f"{exc.__class__.__name__}: {exc}"}, status=500)
    return api.create_response(request, {"detail": "Internal server error"}, status=500)


@api.get("/health", auth=None, response=HealthOut, tags=["system"])
def health(request):
    return health_checks.health()


@api.get("/settings", response=SettingsOut, tags=["settings"])
def get_settings(request):
    obj = services.get_settings(request.auth)
    return {"username": request.auth.get_username(), "display_name": obj.display_name, "timezone": obj.timezone}


@api.put("/settings", response={200: SettingsOut, 422: ErrorOut}, tags=["settings"])
def put_settings(request, payload: SettingsIn):
    obj = services.update_settings(user=request.auth, display_name=payload.display_name, timezone_name=payload.timezone)
    return {"username": request.auth.get_username(), "display_name": obj.display_name, "timezone": obj.timezone}


api.add_router("/ledger/", ledger_router)
api.add_router("/distill/", distill_router)
api.add_router("/memory/", memory_router)
api.add_router("/wearables/", wearables_router)
api.add_router("/screen/", screen_router)
api.add_router("/review/", review_router)
api.add_router("/", chats_router)
