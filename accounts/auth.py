"""API authentication: a per-user bearer token, or the browser session (with CSRF) for the HTMX pages."""

from __future__ import annotations

from ninja.security import HttpBearer, SessionAuth

from accounts.services import authenticate_token


class TokenAuth(HttpBearer):
    def authenticate(self, request, token: str):
        user = authenticate_token(token)
        if user is not None:
            request.user = user
        return user


class BrowserSessionAuth(SessionAuth):
    """The logged-in browser session, CSRF-checked. A request with no session is simply unauthenticated, so a
    token-less API write answers 401 (ninja's SessionAuth would check CSRF first and answer 403)."""

    def _get_key(self, request):
        if not request.user.is_authenticated:
            return None
        return super()._get_key(request)


api_auth = [TokenAuth(), BrowserSessionAuth()]
