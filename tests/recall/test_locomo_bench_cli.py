"""bench/locomo.py answers bad input with one readable line and a non-zero exit, before touching a database."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "bench/locomo.py", *args], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def test_an_unknown_facts_mode_is_refused():
    out = run("--facts", "none,imagined")
    assert out.returncode == 2 and "--facts takes none, extracted, observations" in out.stderr


def test_a_missing_file_is_one_readable_line(tmp_path):
    out = run(str(tmp_path / "absent.json"))
    assert out.returncode != 0 and out.stderr.strip().startswith("error: cannot read")
    assert "Traceback" not in out.stderr


def test_a_file_not_in_locomo_format_is_refused(tmp_path):
    path = tmp_path / "dialogues.json"
    path.write_text(json.dumps({"dialogues": [{"turns": ["hi"]}]}))
    out = run(str(path))
    assert out.returncode != 0 and "not in LoCoMo format" in out.stderr and "Traceback" not in out.stderr
