"""Request typing shared by every app's HTMX views."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    """An ``HttpRequest`` as seen behind ``django_htmx``'s middleware (``request.htmx``)."""

    htmx: HtmxDetails


def render_page(request: HtmxHttpRequest, page: str, partial: str, context: dict) -> HttpResponse:
    """``partial`` for an HTMX request, else ``page`` (the full page that includes it): one view, two answers."""
    return render(request, partial if request.htmx else page, context)


def local_url(url: object) -> str:
    """``url`` if it is a same-site relative path ("/transcripts/?…"), else "".

    Evidence pointers come from stored data; only paths on this site may become links. "//host/…" and
    "/\\host" are other sites to a browser, and control characters can smuggle a scheme past a prefix test.
    """
    if not isinstance(url, str) or not url.startswith("/") or url.startswith(("//", "/\\")):
        return ""
    if any(ord(ch) < 0x20 or ch == "\\" for ch in url):
        return ""
    return url
