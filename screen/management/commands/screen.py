"""manage.py screen: collect | curate | status | timeline [--date] | prefer PHRASE | source [--url --enable/--disable]."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from accounts.commands import resolve_user
from accounts.exceptions import DomainError
from screen import queries, services
from screen.services import curate


class Command(BaseCommand):
    help = (
        "Screen (ScreenPipe): collect [--curate/--no-curate] | curate | status | timeline [--date YYYY-MM-DD] | "
        "prefer PHRASE | source [--url URL] [--enable|--disable] [--backfill-days N] [--frame-budget N]"
    )

    def add_arguments(self, parser):
        parser.add_argument("--user", help="username (default: the only user)")
        sub = parser.add_subparsers(dest="action", required=True)
        col = sub.add_parser("collect", help="pull ScreenPipe since the cursor (first time: the backfill window)")
        col.add_argument("--no-curate", action="store_true", help="only collect; curate later")
        sub.add_parser("curate", help="curate every event revision not curated yet")
        sub.add_parser("status", help="the source, its cursor, gaps and signal counts")
        tl = sub.add_parser("timeline", help="print a local day's events")
        tl.add_argument("--date", default="")
        pref = sub.add_parser("prefer", help="store a preference, e.g. 'track all ranked matches'")
        pref.add_argument("phrase")
        src = sub.add_parser("source", help="change the source settings")
        src.add_argument("--url")
        src.add_argument("--enable", action="store_true")
        src.add_argument("--disable", action="store_true")
        src.add_argument("--backfill-days", type=int)
        src.add_argument("--frame-budget", type=int)

    def handle(self, *args, **opts):
        owner = resolve_user(opts.get("user"))
        try:
            getattr(self, f"do_{opts['action']}")(owner, opts)
        except DomainError as exc:
            raise CommandError(exc.message) from exc

    def do_collect(self, owner, opts):
        run = services.run_collect(owner=owner, trigger="command")
        if run.status == run.Status.FAILED:
            raise CommandError(f"collect failed: {run.error}")
        self.stdout.write(
            f"collected {run.items} items: {run.signals} signals, {run.events_created} events created, "
            f"{run.events_revised} revised, {run.frames_fetched} frame images, {run.gaps} gaps"
        )
        if not opts.get("no_curate"):
            self.do_curate(owner, opts)

    def do_curate(self, owner, opts):
        results = curate.curate_pending(owner=owner)
        done = [r for r in results if r.outcome == "curated"]
        by = {}
        for r in done:
            by[r.decision] = by.get(r.decision, 0) + 1
        self.stdout.write(
            f"curated {len(done)} event revisions: " + (", ".join(f"{n} {d}" for d, n in by.items()) or "none")
        )

    def do_status(self, owner, opts):
        panel = queries.source_panel(owner)
        source, stats = panel["source"], queries.signal_stats(owner)
        self.stdout.write(f"source: {'enabled' if source.enabled else 'disabled'} at {panel['url']}")
        self.stdout.write(f"cursor: {source.cursor_at or 'none (first collect backfills)'}")
        self.stdout.write(f"gaps: {source.gaps}, missing frames: {source.missing_frames}, restarts: {source.restarts}")
        self.stdout.write(
            f"signals: {stats['total']} ({stats['unprocessed']} waiting), events: {stats['events']}, "
            f"frame images: {stats['frames_fetched']}"
        )
        for p in source.preferences:
            self.stdout.write(f"preference: {p['action']}: {p['text']}")

    def do_timeline(self, owner, opts):
        day = queries.events_timeline(owner, opts.get("date") or None)
        self.stdout.write(f"{day['date']} ({day['timezone']})")
        for e in day["events"]:
            self.stdout.write(f"  {e['started_at'][11:16]} [{e['type']}] {e['title']} — {e['outcome']} ({e['status']})")
        for line in day["rollup"]:
            self.stdout.write(f"  rollup: {line}")

    def do_prefer(self, owner, opts):
        source = services.add_preference(owner=owner, text=opts["phrase"])
        self.stdout.write(f"{len(source.preferences)} preferences stored")

    def do_source(self, owner, opts):
        enabled = True if opts.get("enable") else (False if opts.get("disable") else None)
        source = services.update_source(
            owner=owner,
            enabled=enabled,
            base_url=opts.get("url"),
            backfill_days=opts.get("backfill_days"),
            frame_budget=opts.get("frame_budget"),
        )
        self.stdout.write(f"source {'enabled' if source.enabled else 'disabled'} at {services.source_url(source)}")
