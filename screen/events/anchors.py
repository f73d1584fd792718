"""Anchors: the lines of a signal that announce an outcome (result, error, completion, confirmation), plus the
generic reading of a context: its domain (the namespace of event types) and the content role of its text."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

from screen.models import Assertion, Signal
from screen.text import Cue, content_tokens, cue_of, has_currency, normalize_line, slug

ANCHOR_KINDS = (Signal.Kind.TEXT_CHANGED, Signal.Kind.CONTEXT_APPEARED, Signal.Kind.CONTEXT_CHANGED)

# Kinds of application, not domains of life: what a program *is* decides how its text is read.
SOFTWARE_APPS = frozenset(
    "terminal iterm iterm2 warp kitty alacritty ghostty wezterm konsole gnome-terminal powershell cmd "
    "code cursor zed pycharm intellij idea xcode android studio sublime text vim neovim emacs webstorm goland "
    "windows terminal visual studio".split()
)
BROWSERS = frozenset("safari firefox chrome chromium edge brave arc opera vivaldi".split())
ASSISTANTS = frozenset("chatgpt claude copilot gemini perplexity".split())
MEDIA = frozenset("youtube netflix twitch spotify vlc music podcasts tv".split())


@dataclass(frozen=True)
class Anchor:
    signal: Signal
    line: str
    cue: str
    lines: list[str]
    domain: str
    role: str

    @property
    def at(self) -> datetime:
        return self.signal.occurred_at

    @property
    def norm(self) -> str:
        return normalize_line(self.line)

    @property
    def commands(self) -> list[str]:
        return list(self.signal.data.get("commands") or [])

    @property
    def tokens(self) -> set[str]:
        return content_tokens(" ".join(self.lines))


def _app_words(app: str) -> set[str]:
    return set(app.lower().replace(".app", "").split())


def is_software(app: str) -> bool:
    return bool(_app_words(app) & SOFTWARE_APPS) or app.lower() in SOFTWARE_APPS


def is_browser(app: str) -> bool:
    return bool(_app_words(app) & BROWSERS)


def host_label(url: str) -> str:
    host = (urlsplit(url).hostname or "").removeprefix("www.")
    parts = [p for p in host.split(".") if p]
    return parts[-2] if len(parts) >= 2 else (parts[0] if parts else "")


def domain_of(app: str, url: str, lines: list[str]) -> str:
    """The namespace of an event type, read from what kind of program showed it (never a fixed list of
    domains: an unknown program becomes its own namespace)."""
    if has_currency(" ".join(lines)) and not is_software(app):
        return "purchase"
    if is_software(app):
        return "software"
    if is_browser(app):
        return slug(host_label(url), "web")
    return slug(app)


def content_role(app: str, window: str, url: str, line: str) -> str:
    """Who authored a line on screen, as far as the screen can tell."""
    text = f"{app} {window} {host_label(url)}".lower()
    if any(a in text for a in ASSISTANTS):
        return Assertion.ContentRole.ASSISTANT_OUTPUT
    if any(m in text.split() for m in MEDIA):
        return Assertion.ContentRole.MEDIA
    if line.lstrip().startswith(("$ ", "> ", "% ")):
        return Assertion.ContentRole.USER_AUTHORED  # a command the user typed at a prompt
    if is_browser(app):
        return Assertion.ContentRole.OCR_UNATTRIBUTED
    return Assertion.ContentRole.SYSTEM_OUTPUT


def anchor_of(signal: Signal) -> Anchor | None:
    """The strongest outcome line a signal added to the screen, or None (routine progress)."""
    if signal.kind not in ANCHOR_KINDS:
        return None
    lines = list(signal.data.get("added") or [])
    best: tuple[int, str, str] | None = None
    for line in lines:
        cue = cue_of(line)
        if cue is None:
            continue
        rank = Cue.ORDER.index(cue)
        if best is None or rank < best[0]:
            best = (rank, cue, line)
    if best is None:
        return None
    _, cue, line = best
    return Anchor(
        signal=signal,
        line=line,
        cue=cue,
        lines=lines,
        domain=domain_of(signal.app_name, signal.url, lines),
        role=content_role(signal.app_name, signal.window_name, signal.url, line),
    )
