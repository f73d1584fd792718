"""Screen events measured two ways: generated sessions judged against their truth, and an 8-hour day's timing.

    python bench/screen.py [--sessions 300] [--seed S] [--partition measure|dev] [--failures] [--kind K] [--variety]
                           [--every 2.0] [--hours 8] [--tracemalloc] [--no-day] [--no-sessions]

**Generated sessions** (``screen.imitation.generator``): ``--sessions`` sessions of ``--seed`` drawn from the
held-out ``measure`` word pools (default: ``MEASURE_SEED``, which development and the tests never use), each
played as a new user would (settings and source through the API, a local ScreenPipe imitation, ``POST
/screen/collect`` at each of its phased collect moments with the clock moved there) and read back through the
API. Prints the pass rate overall, per activity family, per surface, per distractor kind, with and without a
local-midnight crossing and per feature, how often the event count is exact, and the commonest failure kinds with
the family they concern (``--failures`` lists every failing session).

**The 8-hour day**:

Serves ``screen.imitation.scripts.eight_hour_day`` (one OCR frame every ``--every`` seconds: 14,400 frames at
2 s) from the local ScreenPipe imitation and collects it hour by hour for one fresh user, exactly as the
schedule would (cursor, windows, signals and spans, proposal pass with bounded evidence, rollups), then
curates.
Prints signals/s, events/s and events per activity family, the whole-day time, frame images fetched, evidence requests, and memory per hour
(tracemalloc current/peak and RSS) to show it stays flat. Also times the pure signal deriver alone.
Runs in a separate database ``almanac_bench`` on the embedded server under ALMANAC_HOME (default
/tmp/almanac-bench): never user data.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import time
import tracemalloc
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._db import use_bench_database  # noqa: E402


def rss_mb() -> float:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_deriver(session) -> tuple[int, float]:
    from screen.collector.client import Item
    from screen.collector.signals import SignalDeriver

    deriver = SignalDeriver()
    start = time.perf_counter()
    n = 0
    for f in session.frames:
        n += len(deriver.feed(Item("OCR", f.id, f.at, f.text, f.app, f.window, f.url)))
    return n, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--every", type=float, default=2.0, help="seconds between OCR frames")
    parser.add_argument("--hours", type=int, default=8)
    parser.add_argument("--tracemalloc", action="store_true", help="also trace Python allocations (slows it ~2x)")
    parser.add_argument("--sessions", type=int, default=300, help="generated sessions to play and judge")
    parser.add_argument("--seed", type=int, default=None, help="default: the measurement seed")
    parser.add_argument("--partition", choices=["measure", "dev"], default="measure")
    parser.add_argument("--first", type=int, default=0, help="index of the first session")
    parser.add_argument("--kind", default="", help="only sessions whose activities include this kind")
    parser.add_argument("--failures", action="store_true", help="list every failing session")
    parser.add_argument("--variety", action="store_true", help="dev only: invented pools (bench/_screen_variety.py)")
    parser.add_argument("--no-day", action="store_true")
    parser.add_argument("--no-sessions", action="store_true")
    args = parser.parse_args()
    use_bench_database(home="/tmp/almanac-bench")
    print(
        f"# bench/screen.py — {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}\n"
    )
    if not args.no_sessions:
        bench_sessions(args)
    if not args.no_day:
        bench_day(args)


def bench_sessions(args) -> None:
    from screen.imitation.generator import MEASURE_SEED, generate
    from screen.imitation.generator.report import print_report, run_sessions

    seed = MEASURE_SEED if args.seed is None else args.seed
    if args.variety:
        if args.partition != "dev":
            raise SystemExit("--variety is a development probe: use it with --partition dev")
        from bench._screen_variety import install

        install()
    sessions = generate(seed, args.sessions, args.partition, first=args.first)
    if args.kind:
        sessions = [s for s in sessions if args.kind in s.kinds]
    t0 = time.perf_counter()
    verdicts = run_sessions(sessions)
    print_report(
        verdicts, seed=seed, partition=args.partition, seconds=time.perf_counter() - t0, failures=args.failures
    )


def bench_day(args) -> None:
    from django.contrib.auth import get_user_model

    from accounts.services import update_settings
    from screen import services
    from screen.collector.client import ScreenPipeClient
    from screen.imitation import ScreenPipeImitation
    from screen.imitation.scripts import eight_hour_day
    from screen.models import EvidenceRequest, ScreenEvent, ScreenFrame, Signal
    from screen.services import curate
    from screen.services.collect import collect

    start_at = datetime(2026, 6, 15, 9, 0, tzinfo=UTC)
    session = eight_hour_day(start_at, every=args.every)
    end_at = min(session.end, start_at + timedelta(hours=args.hours))
    frames = sum(1 for f in session.frames if f.at <= end_at)
    derived, derive_seconds = bench_deriver(session)

    User = get_user_model()
    User.objects.filter(username="bench-screen").delete()
    user = User.objects.create(username="bench-screen")
    update_settings(user=user, display_name="Bench", timezone_name="Asia/Kolkata")
    server = ScreenPipeImitation(session, now=end_at + timedelta(minutes=1)).start()
    services.update_source(owner=user, base_url=server.base_url, backfill_days=0)
    source = services.get_source(user)
    source.cursor_at = start_at - timedelta(seconds=1)  # start at the day's first frame, not two days earlier
    source.cursor_key = ""
    source.save()

    client = ScreenPipeClient(server.base_url)
    if args.tracemalloc:
        tracemalloc.start()
    hourly = []
    t0 = time.perf_counter()
    hour = start_at
    while hour < end_at + timedelta(minutes=1):
        hour = min(hour + timedelta(hours=1), end_at + timedelta(minutes=1))
        source = services.get_source(user)
        run = collect(source=source, client=client, now=hour, trigger="bench")
        current, peak = tracemalloc.get_traced_memory() if args.tracemalloc else (0, 0)
        hourly.append((hour, run.items, run.signals, current / 2**20, peak / 2**20, rss_mb()))
        if args.tracemalloc:
            tracemalloc.reset_peak()
    collect_seconds = time.perf_counter() - t0
    t1 = time.perf_counter()
    curated = curate.curate_pending(owner=user)
    curate_seconds = time.perf_counter() - t1
    if args.tracemalloc:
        tracemalloc.stop()
    client.close()
    server.stop()

    signals = Signal.objects.filter(owner=user).count()
    events = ScreenEvent.objects.filter(owner=user)
    by_type: dict[str, int] = {}
    outcomes: dict[str, dict[str, int]] = {}
    for t, outcome in events.values_list("event_type", "outcome"):
        by_type[t] = by_type.get(t, 0) + 1
        per = outcomes.setdefault(t, {})
        per[outcome or "none"] = per.get(outcome or "none", 0) + 1
    print(
        f"\n## The 8-hour day\n\nscripted day: {frames} OCR frames over {args.hours} h (one every {args.every:g} s)\n"
    )
    print("| metric | figure |")
    print("|---|---|")
    print(f"| whole day collected (hour by hour, 8 collects) | {collect_seconds:.1f} s |")
    print(f"| frames/s through collect | {frames / collect_seconds:,.0f} |")
    print(f"| signals | {signals} ({signals / collect_seconds:,.1f}/s) |")
    print(
        f"| events | {events.count()} ({events.count() / collect_seconds:,.2f}/s): "
        + ", ".join(f"{n} {t}" for t, n in sorted(by_type.items()))
        + " |"
    )
    print(f"| curation of {len(curated)} events | {curate_seconds:.1f} s |")
    print(
        f"| frame images fetched | {ScreenFrame.objects.filter(owner=user).count()} "
        f"(budget {source.frame_budget} per 8 h) |"
    )
    print(f"| evidence requests | {EvidenceRequest.objects.filter(owner=user).count()} |")
    print(f"| pure signal deriver alone | {frames / derive_seconds:,.0f} frames/s ({derived} signals) |")
    print("\n| activity family | events | outcomes |")
    print("|---|---|---|")
    for t, n in sorted(by_type.items()):
        print(f"| `{t}` | {n} | " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes[t].items())) + " |")
    print("\n| collected up to | items | signals | tracemalloc current MB | peak MB | RSS MB |")
    print("|---|---|---|---|---|---|")
    for at, items, sigs, cur, peak, rss in hourly:
        print(f"| {at:%H:%M} | {items} | {sigs} | {cur:.1f} | {peak:.1f} | {rss:.0f} |")


if __name__ == "__main__":
    main()
