"""Where an activity is shown: a site in a browser (URL, page titles ending the browser's way), a program of its
own (window titles), fullscreen (no program, window or URL) or a phone mirrored on the desktop (one window for
every app on the phone). Also the chrome real screens carry around their content (menus, banners, footers)."""

from __future__ import annotations

from dataclasses import dataclass

from screen.imitation.generator.model import BROWSER, FULLSCREEN, NATIVE, PHONE, Surface
from screen.imitation.generator.vocab import BROWSERS, PHONE_MIRRORS, Words

TITLE_JOINS = (" — ", " | ", " - ", " · ", ": ")
SITE_CHROME = (
    "Home",
    "Search",
    "Sign out",
    "Help",
    "Account",
    "Menu",
    "Privacy",
    "Terms of use",
    "Contact us",
    "Accept all cookies",
    "Cookie settings",
    "Language: English",
    "Skip to content",
    "Notifications",
    "Settings",
)
APP_CHROME = ("File", "Edit", "View", "Window", "Help", "Preferences", "Sync", "Library", "Toolbar", "Sidebar")
PHONE_STATUS = ("9:{m}", "5G {n}%", "LTE", "Wi-Fi", "{n}%", "12:{m}")


@dataclass
class Place:
    """A brand shown on one kind of surface; ``at(title, path)`` is the surface of one of its pages."""

    kind: str
    brand: str
    app: str = ""
    host: str = ""
    suffix: str = ""  # how the browser ends a window title
    join: str = " — "
    device: str = ""  # the phone mirror's window title

    def at(self, title: str = "", path: str = "") -> Surface:
        if self.kind == BROWSER:
            window = f"{title}{self.join}{self.brand}" if title else self.brand
            return Surface(self.app, window + self.suffix, f"https://{self.host}/{path.lstrip('/')}", BROWSER)
        if self.kind == NATIVE:
            return Surface(self.app, f"{title}{self.join}{self.app}" if title else self.app, "", NATIVE)
        if self.kind == PHONE:
            return Surface(self.app, self.device, "", PHONE)
        return Surface("", "", "", FULLSCREEN)

    def frame(self, w: Words, lines: list[str], title: str = "") -> str:
        """The OCR text of one screen of this place: the content with its surroundings."""
        out = list(lines)
        if self.kind == PHONE:
            out = [w.pick("phone_status", PHONE_STATUS), self.brand, *out]
        elif self.kind == BROWSER and w.chance(0.7):
            chrome = w.sample("site_chrome", SITE_CHROME, w.number(1, 3))
            out = [self.brand, *chrome[:1], *out, *chrome[1:]]
        elif self.kind == NATIVE and w.chance(0.4):
            out = [*w.sample("app_chrome", APP_CHROME, w.number(1, 3)), *out]
        if title and self.kind != BROWSER and w.chance(0.5):
            out.insert(0, title)
        return "\n".join(line for line in out if line)


def place(w: Words, kinds: tuple[str, ...], brand: str | None = None, app_suffix: str = "") -> Place:
    """A place of one of ``kinds`` for ``brand`` (a fresh brand when None)."""
    brand = brand or w.brand()
    kind = w.rng.choice(kinds)
    join = w.pick("title_join", TITLE_JOINS)
    if kind == BROWSER:
        app, suffix = w.pick("browser", BROWSERS)
        sub = w.pick("subdomain", ("www.", "", "app.", "my.", "portal.", "account."))
        return Place(BROWSER, brand, app=app, host=sub + w.domain(brand), suffix=suffix, join=join)
    if kind == PHONE:
        app, device = w.pick("phone_mirror", PHONE_MIRRORS)
        return Place(PHONE, brand, app=app, device=device)
    if kind == FULLSCREEN:
        return Place(FULLSCREEN, brand)
    return Place(NATIVE, brand, app=(brand + app_suffix).strip(), join=join)


def side_place(w: Words, exclude: str = "") -> Place:
    """A place for something else (an interruption, a filler): another brand, native or in a browser."""
    for _ in range(5):
        p = place(w, (BROWSER, NATIVE))
        if p.app != exclude:
            return p
    return p
