"""The documentation keeps up with the code: every setting the code reads is on the Configuration page, and
every setting the pages name is one the code reads. (Broken links and anchors are caught by the strict MkDocs
build in `make test`.)"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APPS = ("accounts", "chats", "distill", "ledger", "memory_site", "review", "screen", "wearables")
NAME = re.compile(r"ALMANAC_[A-Z0-9_]*[A-Z0-9](?![A-Z0-9_*{])")
# Read through f-strings, one per connector kind (wearables/connectors/__init__.py).
TEMPLATED = re.compile(r"ALMANAC_(LIMITLESS|BEE|OMI)_BASE_URL")


def _code_names(*, with_tests: bool = False) -> set[str]:
    names: set[str] = set()
    for app in (*APPS, "tests") if with_tests else APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" not in path.parts:
                names |= set(NAME.findall(path.read_text(encoding="utf-8")))
    return names


def _doc_names(*pages: Path) -> set[str]:
    return {name for page in pages for name in NAME.findall(page.read_text(encoding="utf-8"))}


def _pages() -> list[Path]:
    return sorted((ROOT / "docs").rglob("*.md"))


def test_every_setting_the_code_reads_is_on_the_configuration_page():
    code = _code_names()
    documented = _doc_names(ROOT / "docs" / "configuration.md")
    assert len(code) > 40, "the scan found too few settings to mean anything"
    missing = sorted(code - documented)
    assert not missing, f"settings read by the code but missing from docs/configuration.md: {missing}"


def test_every_setting_a_page_names_is_one_the_code_reads():
    code = _code_names(with_tests=True)  # a page may document a switch the test suite reads
    # FileAwareEnv reads NAME_FILE for every NAME (a secret kept in a file).
    known = code | {f"{name}_FILE" for name in code}
    pages = _pages()
    assert len(pages) >= 10
    unknown = sorted(
        name for name in _doc_names(*pages, ROOT / ".env.example") if name not in known and not TEMPLATED.fullmatch(name)
    )
    assert not unknown, f"docs name settings the code does not read (renamed or removed?): {unknown}"


def test_the_readme_stays_short_and_points_into_the_docs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    linked = set(re.findall(r"\]\((docs/[^)#]+)", readme))
    assert len(linked) >= 10
    assert not [link for link in linked if not (ROOT / link).is_file()]
