"""A process that starts (a page, a command, the worker) loads no NLP model until it reads English.

spaCy and its tables take seconds of CPU to import; every ``manage.py`` command, gunicorn worker and django-q2
worker paid that at start while lemminflect (imported at module level) pulled spaCy in.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PROBE = """
import sys
import django
django.setup()
from django.urls import get_resolver
get_resolver().url_patterns  # every view, API router and admin the server loads
import accounts.wordforms
heavy = sorted(name for name in ("spacy", "thinc", "lemminflect") if name in sys.modules)
print(",".join(heavy) or "none")
assert accounts.wordforms.lemmas_of("running")["VERB"] == ("run",)
print(",".join(sorted(name for name in ("spacy", "lemminflect") if name in sys.modules)))
"""


def test_loading_every_url_imports_no_nlp_library_and_the_word_tables_load_on_first_use(tmp_path):
    env = {"DJANGO_SETTINGS_MODULE": "memory_site.settings", "ALMANAC_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=REPO, env=env | {"PYTHONPATH": str(REPO)}, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    at_start, after_use = done.stdout.split()
    assert at_start == "none"
    assert "lemminflect" in after_use.split(",")
