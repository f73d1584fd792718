"""Credentials by their published formats, found by detect-secrets' format detectors (Yelp, Apache-2.0).

Access keys and tokens of known services (AWS, Azure storage, GitHub, GitLab, Slack, Stripe, OpenAI, npm, PyPI,
SendGrid, Twilio, Discord, Telegram, Mailchimp, Square, Artifactory and others), JSON web tokens, the password of
a URL (``https://user:secret@host``) and private-key blocks (from their BEGIN line to their END line). A
coding agent's transcript or a screen's terminal shows these, and no cue word stands beside them. Each detector's
own patterns decide, not a list of ours: where a pattern reads a keyword before its value
(``aws_secret_key = "…"``), only the value (the pattern's group) is cut. IP addresses are no credential.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from functools import cache

# A value any detector reads is a run of 16+ token characters, a URL with a password, or a key block's header.
MAY_HOLD_A_CREDENTIAL = re.compile(r"[A-Za-z0-9_\-+/=.]{16,}|://[^\s/@]*:[^\s/@]+@|PRIVATE KEY")
_KEY_BLOCK = re.compile(
    r"-----BEGIN[A-Z ]*PRIVATE KEY( BLOCK)?-----.*?(?:-----END[A-Z ]*PRIVATE KEY( BLOCK)?-----|\Z)", re.S
)
MIN_LENGTH = 6  # a shorter group is a separator or a prefix, not a value
_NOT_CREDENTIALS = {"IPPublicDetector", "PrivateKeyDetector"}  # an address; key blocks are cut whole above


# A pattern may stop inside its token (a JSON web token's signature is matched lazily): the rest of the token goes too.
_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_\-+/=]*(?:\.[A-Za-z0-9_\-+/=]+)*")


def _value(match: re.Match) -> tuple[int, int]:
    """The credential in a match: the last group long enough to be a value (a pattern that reads a keyword first
    captures the value), else the whole match (a group that is only a prefix such as ``ghp``)."""
    groups = [g for g in range(1, (match.re.groups or 0) + 1) if match.group(g) and len(match.group(g)) >= MIN_LENGTH]
    return match.span(groups[-1]) if groups else match.span(0)


@cache
def _patterns() -> tuple[re.Pattern, ...]:
    """Every pattern of the format detectors, loaded on first use."""
    import detect_secrets.plugins as plugins
    from detect_secrets.plugins.base import RegexBasedDetector

    found = []
    for module_info in pkgutil.iter_modules(plugins.__path__):
        module = importlib.import_module(f"detect_secrets.plugins.{module_info.name}")
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(cls, RegexBasedDetector)
                and cls is not RegexBasedDetector
                and cls.__module__ == module.__name__
                and name not in _NOT_CREDENTIALS
            ):
                found.extend(cls.denylist)
    return tuple(found)


def credential_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the credentials in ``text`` (unsorted, may overlap)."""
    if not text or not MAY_HOLD_A_CREDENTIAL.search(text):
        return []
    spans = [(m.start(), m.end()) for m in _KEY_BLOCK.finditer(text)]
    for pattern in _patterns():
        for match in pattern.finditer(text):
            start, end = _value(match)
            if end - start >= MIN_LENGTH:
                spans.append((start, _TOKEN_TAIL.match(text, end).end()))
    return spans
