"""``python -m wearables.imitation --days DIR | --demo [--end-date D] [--port-base N]``: serve all three providers."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from datetime import date

from wearables.imitation import load_days, start_servers
from wearables.imitation.demo_data import build_demo_days, demo_bee_facts, demo_omi_memories


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m wearables.imitation", description=__doc__)
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--days", metavar="DIR", help="directory of labeled-days *.json files")
    what.add_argument("--demo", action="store_true", help="serve the built-in fictional demo week")
    parser.add_argument("--end-date", type=date.fromisoformat, default=None, help="last demo day (default today)")
    parser.add_argument("--port-base", type=int, default=0, help="Limitless on N, Bee N+1, Omi N+2 (0: free ports)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None, *, stop: threading.Event | None = None) -> int:
    """Start the servers, print their base URLs and credentials, and block until Ctrl-C (or ``stop`` is set)."""
    args = parse_args(argv)
    facts, memories = None, None
    try:
        if args.demo:
            end = args.end_date or date.today()
            days = build_demo_days(end)
            facts, memories = demo_bee_facts(end), demo_omi_memories(end)
        else:
            days = load_days(args.days)
            if not days:
                print(f"error: no *.json day files in {args.days}", file=sys.stderr)
                return 2
        servers = start_servers(days, port_base=args.port_base, bee_facts=facts, omi_memories=memories)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"Serving {len(days)} day(s): {days[0]['date']} … {days[-1]['date']}", flush=True)
    for kind, url in servers.base_urls.items():
        creds = ", ".join(f"{k}={v}" for k, v in servers.credentials[kind].items()) or "no credentials (proxy)"
        print(f"  {kind:<9} {url}   {creds}", flush=True)
    print("Press Ctrl-C to stop.", flush=True)
    stop = stop or threading.Event()
    if threading.current_thread() is threading.main_thread():
        # Supervisors (and `make up`) stop us with SIGTERM; treat it like Ctrl-C so the sockets close cleanly.
        signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        servers.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
