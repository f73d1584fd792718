"""python -m screen.imitation [--port 3030] [--demo | --game | --install | --kiln | --day]: serve a scripted session."""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime, timedelta

from screen.imitation import ScreenPipeImitation, build, scripts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=3030)
    parser.add_argument("--script", choices=["demo", "game", "install", "kiln", "day"], default="demo")
    args = parser.parse_args()
    now = datetime.now(UTC)
    if args.script == "demo":
        session = scripts.demo_session(now.date(), UTC)
    elif args.script == "day":
        session = scripts.eight_hour_day(now - timedelta(hours=9))
    else:
        segments = {"game": scripts.game_segments, "install": scripts.install_segments, "kiln": scripts.kiln_segments}[
            args.script
        ]()
        session = build(now - timedelta(hours=2), segments)
    server = ScreenPipeImitation(session, port=args.port).start()
    print(f"ScreenPipe imitation ({args.script}, {len(session.frames)} frames) on {server.base_url}; Ctrl-C stops it")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
