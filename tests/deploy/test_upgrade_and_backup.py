"""Upgrade and backup, with the real commands against a PostgreSQL of the test's own.

- A database created by an earlier release, with the demo in every app (``tests/fixtures/upgrade/``), migrates
  to this one with nothing lost: every table keeps its rows, sampled text of every app reads back the same, and
  every chain keeps its length and head, verifies, and equals its replay.
- ``manage.py backup`` and ``manage.py restore`` round-trip the whole database into an empty one, with the same
  guarantees; a restore onto data is refused unless ``--replace``; a backup whose chain was tampered with is
  restored but reported as failing verification (exit 1), never as good.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.deploy.conftest import RELEASES, manifest_of, newest_release, restore_release
from tests.reliability.pgcluster import REPO, PgCluster, almanac_env, manage

pytestmark = pytest.mark.slow

APPS_WITH_ROWS = {"accounts", "ledger", "recall", "distill", "wearables", "chats", "screen", "review"}
APPS_WITH_TEXT = {"ledger", "distill", "wearables", "chats", "screen"}  # the others keep short values only


@pytest.fixture(scope="module")
def cluster():
    root = Path(tempfile.mkdtemp(prefix="almanac-upgrade-"))
    pg = PgCluster.create(root)
    try:
        yield pg
    finally:
        pg.destroy()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def home(tmp_path) -> Path:
    return tmp_path / "home"


def compare(env: dict, manifest: dict, tmp_path: Path) -> dict:
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest))
    done = subprocess.run([sys.executable, "-m", "tests.deploy.release", "compare", str(path)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("dump", RELEASES, ids=lambda p: p.stem)
def test_a_database_of_an_earlier_release_migrates_to_this_one_with_nothing_lost(cluster, dump, home, tmp_path):
    manifest = manifest_of(dump)
    database = f"upgrade_{dump.stem.replace('-', '_').replace('.', '_')}"
    restore_release(cluster, database, dump)
    env = almanac_env(cluster, database, home)

    done = manage(env, "migrate", "--noinput", timeout=600)

    assert done.returncode == 0, done.stderr[-3000:]
    result = compare(env, manifest, tmp_path)
    assert result["problems"] == []
    checked = result["checked"]
    assert APPS_WITH_ROWS <= {label.split(".")[0] for label, n in manifest["tables"].items() if n}
    assert APPS_WITH_TEXT <= set(checked["apps_with_text"])  # text of every app that holds any was compared
    assert checked["chains"] >= 1 and checked["commits"] >= 50 and checked["rows"] >= 500


def test_backup_then_restore_into_an_empty_database_keeps_every_row_text_and_chain(cluster, home, tmp_path):
    """The backup is taken of the last release's database as it is: the restore also upgrades it."""
    release = newest_release()
    restore_release(cluster, "backup_source", release)
    path = tmp_path / "backups" / "almanac.dump"

    backed_up = manage(almanac_env(cluster, "backup_source", home), "backup", "--output", str(path))
    cluster.sql("CREATE DATABASE backup_target")
    target = almanac_env(cluster, "backup_target", home)
    restored = manage(target, "restore", str(path), timeout=600)

    assert backed_up.returncode == 0 and f"backed up to {path}" in backed_up.stdout, backed_up.stderr
    assert not path.with_name(path.name + ".partial").exists()
    assert restored.returncode == 0, restored.stderr[-3000:]
    assert "every chain verifies and every projection equals its replay" in restored.stdout
    assert compare(target, manifest_of(release), tmp_path)["problems"] == []

    again = manage(target, "restore", str(path))  # onto data: refused, nothing touched
    assert again.returncode == 1 and "already holds Almanac data" in again.stderr
    replaced = manage(target, "restore", str(path), "--replace", timeout=600)
    assert replaced.returncode == 0, replaced.stderr[-3000:]
    assert compare(target, manifest_of(release), tmp_path)["problems"] == []


def test_a_restored_backup_whose_chain_was_tampered_with_is_reported_as_failing(cluster, home, tmp_path):
    restore_release(cluster, "tampered_source", newest_release())
    source = almanac_env(cluster, "tampered_source", home)
    cluster.sql(
        "UPDATE ledger_commit SET mutations = jsonb_set(mutations, '{0,tampered}', 'true') "
        "WHERE id = (SELECT min(id) FROM ledger_commit)",
        database="tampered_source",
    )
    path = tmp_path / "tampered.dump"
    assert manage(source, "backup", "--output", str(path)).returncode == 0
    cluster.sql("CREATE DATABASE tampered_target")

    restored = manage(almanac_env(cluster, "tampered_target", home), "restore", str(path), timeout=600)

    assert restored.returncode == 1
    assert "verification FAILED" in restored.stderr and "BROKEN at commit #1" in restored.stderr


def test_backup_to_a_folder_that_cannot_be_written_is_one_clear_error_and_leaves_nothing(tmp_path):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the folder should be")

    with pytest.raises(CommandError, match="^could not write .*x.dump: "):
        call_command("backup", "--output", str(blocked / "x.dump"))
    assert blocked.read_text() == "a file where the folder should be"
