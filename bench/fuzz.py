"""Fuzz: schemathesis over every operation of /api/v1/openapi.json, long, against a real server.

    python bench/fuzz.py [--examples 100] [--seed 38] [--checks all] [--phases examples,coverage,fuzzing,stateful]

The short seeded run is ``tests/hardening/test_api_fuzz.py`` (in ``make test``, in-process). This one starts
gunicorn and the worker (``memory_site/gunicorn_conf.py``, ``manage.py qcluster``) on a PostgreSQL of its own (the
last release's database, migrated), gives the demo user a token, and runs the schemathesis CLI with every check
it has: no 5xx, status codes, content types, headers and bodies as the document says, invalid input refused,
valid input accepted, authentication enforced, a deleted resource gone, plus the stateful phase that chains
operations through the links it infers. Prints the operations and test cases run and each failure found, by
check, with the reproducing request. Loopback only.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._stack import setup_django, start_database  # noqa: E402
from tests.reliability.nodes import Node  # noqa: E402


def token_for_demo_user() -> str:
    from django.contrib.auth import get_user_model

    from accounts import services
    from memory_site.management.commands.up import DEMO_USERNAME

    _, plain = services.create_token(owner=get_user_model().objects.get(username=DEMO_USERNAME), name="fuzz")
    return plain


def run_schemathesis(base_url: str, token: str, args, report: Path) -> subprocess.CompletedProcess:
    argv = [
        str(Path(sys.executable).with_name("schemathesis")), "run", f"{base_url}/api/v1/openapi.json",
        "--header", f"Authorization: Bearer {token}", "--checks", args.checks, "--phases", args.phases,
        "--max-examples", str(args.examples), "--seed", str(args.seed), "--workers", "2", "--no-color",
        "--request-timeout", "60", "--suppress-health-check", "all", "--generation-database", "none",
        "--report", "ndjson", "--report-ndjson-path", str(report), "--output-truncate", "true",
    ]  # fmt: skip
    return subprocess.run(argv, capture_output=True, text=True, timeout=args.timeout, cwd=report.parent)


def summarize(report: Path) -> tuple[int, int, dict[str, list[str]]]:
    """(operations, test cases, failures by check) from the ndjson events of the run."""
    operations, cases, failures = set(), 0, {}
    for line in report.read_text().splitlines():
        event = json.loads(line)
        for name, body in event.items():
            if name != "ScenarioFinished" or not isinstance(body, dict):
                continue
            recorder = body.get("recorder") or {}
            label = recorder.get("label") or ""
            operations.add(label)
            cases += len(recorder.get("cases") or {})
            for check_results in (recorder.get("checks") or {}).values():
                for check in check_results:
                    if check.get("status") == "FAILURE":
                        failure = check.get("failure_info") or {}
                        where = (failure.get("failure") or {}).get("title", "")
                        curl = failure.get("code_sample", "")
                        failures.setdefault(check.get("name", "?"), []).append(f"{label}: {where} — {curl[:300]}")
    return len(operations - {""}), cases, failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=100, help="fuzzing examples per operation")
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--checks", default="all")
    parser.add_argument("--phases", default="examples,coverage,fuzzing,stateful")
    parser.add_argument("--timeout", type=float, default=3600, help="give up on the run after this many seconds")
    parser.add_argument("--report", type=Path, help="keep schemathesis' ndjson events here")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="almanac-fuzz-"))
    cluster = node = None
    try:
        cluster, env = start_database(root)
        setup_django(env)
        token = token_for_demo_user()
        node = Node("fuzz", env).start()
        node.wait_until_serving()
        report = args.report or root / "events.ndjson"
        started = time.monotonic()
        done = run_schemathesis(node.url, token, args, report)
        took = time.monotonic() - started
        operations, cases, failures = summarize(report)
        print(f"schemathesis {args.phases} · checks {args.checks} · seed {args.seed} · {args.examples} examples: "
              f"{operations} operations, {cases} test cases in {took:.0f} s, exit {done.returncode}")  # fmt: skip
        for check, found in sorted(failures.items()):
            print(f"  {check}: {len(found)}")
            for line in found[:5]:
                print(f"    {line}")
        if not failures:
            print("  no failures")
        if done.returncode not in (0, 1):
            print(done.stdout[-3000:], done.stderr[-3000:])
    finally:
        if node is not None:
            node.stop()
        if cluster is not None:
            cluster.destroy()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    import signal

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # the finally block still stops the server
    main()
