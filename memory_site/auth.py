"""API authentication: a per-user bearer token, or the browser session (with CSRF) for the HTMX pages."""

from __future__ import annotations

from ninja.security import HttpBearer, SessionAuth

from memory_site.services import authenticate_token


class TokenAuth(HttpBearer):
    def authenticate(self, request, token: str):
        user = authenticate_token(token)
        if user is not None:
            request.user = user
        return user


api_auth = [TokenAuth(), SessionAuth()]
