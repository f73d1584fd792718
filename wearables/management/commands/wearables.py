"""manage.py wearables: status, check, sync, transcripts, search, memories, speakers and corrections."""

from __future__ import annotations

from datetime import date

from django.core.management.base import BaseCommand, CommandError
from django.http import Http404

from accounts.commands import resolve_user
from accounts.exceptions import DomainError
from accounts.services import user_timezone
from wearables import queries, services
from wearables.models import Correction


def _date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise CommandError(f"Not a date: {value!r} (use YYYY-MM-DD)") from exc


class Command(BaseCommand):
    help = (
        "Wearable transcripts: status | check SOURCE | sync [--source --date --days --force-memories] | "
        "transcript --date [--source] | search QUERY [--source --from --to] | memories [--source --date] | "
        "speakers self NAME | speakers set SOURCE LABEL NAME [--self] [--conversation ID] | "
        "corrections add WRONG RIGHT [--source] | corrections list | corrections remove ID"
    )

    def add_arguments(self, parser):
        parser.add_argument("--user", help="username (default: the only user)")
        sub = parser.add_subparsers(dest="action", required=True)
        sub.add_parser("status", help="sources, last sync runs and stored days")
        check = sub.add_parser("check", help="verify a source's credentials with one cheap call")
        check.add_argument("source")
        sync = sub.add_parser("sync", help="fetch, clean and store days")
        sync.add_argument("--source")
        sync.add_argument("--date", help="last day to sync (YYYY-MM-DD, default today in your timezone)")
        sync.add_argument("--days", type=int, default=2)
        sync.add_argument("--force-memories", action="store_true", help="queue a memory pass even for unchanged days")
        tr = sub.add_parser("transcript", help="print a day's transcript markdown")
        tr.add_argument("--date", required=True)
        tr.add_argument("--source")
        search = sub.add_parser("search", help="full-text search over utterances")
        search.add_argument("query")
        search.add_argument("--source")
        search.add_argument("--from", dest="date_from")
        search.add_argument("--to", dest="date_to")
        search.add_argument("--limit", type=int, default=20)
        mem = sub.add_parser("memories", help="memories taken from transcripts")
        mem.add_argument("--source")
        mem.add_argument("--date")
        speakers = sub.add_parser("speakers", help="who is who")
        ssub = speakers.add_subparsers(dest="speakers_action", required=True)
        me = ssub.add_parser("self", help="the name people call you (and your speaker name on devices)")
        me.add_argument("name")
        sset = ssub.add_parser("set", help="name a speaker label (Limitless display name, Omi person id)")
        sset.add_argument("source")
        sset.add_argument("label")
        sset.add_argument("name")
        sset.add_argument("--self", dest="is_self", action="store_true", help="this speaker is you")
        sset.add_argument("--conversation", help="provider conversation id: apply to that conversation only")
        corr = sub.add_parser("corrections", help="fix words ASR keeps getting wrong")
        csub = corr.add_subparsers(dest="corrections_action", required=True)
        add = csub.add_parser("add")
        add.add_argument("wrong")
        add.add_argument("right")
        add.add_argument("--source")
        csub.add_parser("list")
        rm = csub.add_parser("remove")
        rm.add_argument("id", type=int)

    def handle(self, *args, **opts):
        owner = resolve_user(opts.get("user"))
        action = opts["action"]
        try:
            getattr(self, f"do_{action}")(owner, opts)
        except DomainError as exc:
            raise CommandError(exc.message) from exc

    # --- actions -------------------------------------------------------------------------------------
    def do_status(self, owner, opts):
        services.ensure_sources(owner)
        ws = services.get_wearables_settings(owner)
        self.stdout.write(f"wearables: {'enabled' if ws.enabled else 'disabled'} · timezone {user_timezone(owner).key}")
        for row in queries.source_status(owner):
            s, run = row["source"], row["last_run"]
            last = (
                f"last sync {run.started_at:%Y-%m-%d %H:%M} {run.status} ({run.days_changed} days changed)"
                if run
                else "never synced"
            )
            self.stdout.write(
                f"  {s.kind:<10} {'on ' if s.enabled else 'off'}  {row['days']} days stored"
                f"{' (latest ' + str(row['latest_day']) + ')' if row['latest_day'] else ''} · {last}"
            )

    def do_check(self, owner, opts):
        source = services.check_source(owner=owner, kind=opts["source"])
        if not source.last_check_ok:
            raise CommandError(f"{source.kind}: {source.last_check_message}")
        self.stdout.write(self.style.SUCCESS(f"{source.kind}: {source.last_check_message}"))

    def do_sync(self, owner, opts):
        end = _date(opts["date"]) if opts.get("date") else None
        dates = services.recent_dates(owner, opts["days"], end=end)
        progress = self.stdout.write
        if opts.get("source"):
            runs = [
                services.sync(
                    owner=owner,
                    source=services.parse_kind(opts["source"]),
                    dates=dates,
                    force_memories=opts["force_memories"],
                    progress=progress,
                )
            ]
        else:
            runs = services.sync_enabled_sources(
                owner=owner, dates=dates, force_memories=opts["force_memories"], progress=progress
            )
            if not runs:
                raise CommandError("No source is enabled (enable one on the Sources page)")
        for run in runs:
            self.stdout.write(
                f"{run.source.kind}: {run.status} · {run.conversations} conversations, {run.utterances} utterances, "
                f"{run.days_changed} days changed, {run.pages} pages, {run.duration_ms} ms"
            )
            for w in run.warnings:
                self.stdout.write(f"  warning: {w}")
            for e in run.errors:
                self.stderr.write(f"  error: {e}")
        if all(r.status == "failed" for r in runs):
            raise CommandError("Sync failed: " + "; ".join(e for r in runs for e in r.errors[:1]))

    def do_transcript(self, owner, opts):
        day = _date(opts["date"])
        kind = services.parse_kind(opts["source"]) if opts.get("source") else None
        found = queries.transcripts_for_day(owner, day, kind)
        if not found:
            raise CommandError(f"No transcript for {day}" + (f" from {kind}" if kind else ""))
        for t in found:
            self.stdout.write(t.markdown)

    def do_search(self, owner, opts):
        kind = services.parse_kind(opts["source"]) if opts.get("source") else None
        result = queries.search_utterances(
            owner,
            opts["query"],
            source=kind,
            date_from=_date(opts["date_from"]) if opts.get("date_from") else None,
            date_to=_date(opts["date_to"]) if opts.get("date_to") else None,
            limit=opts["limit"],
        )
        self.stdout.write(f"{len(result.hits)} hits ({result.mode} search)")
        for h in result.hits:
            self.stdout.write(f"{h['date']} {h['source']:<9} #{h['index']:<5} {h['speaker']}: {h['text']}")

    def do_memories(self, owner, opts):
        from wearables.services.memories import memories_for_day

        source = services.get_source(owner, opts["source"]) if opts.get("source") else None
        day = _date(opts["date"]) if opts.get("date") else None
        rows = memories_for_day(owner=owner, source=source, date=day, limit=200)
        if not rows:
            self.stdout.write("No memories.")
        for m in rows:
            self.stdout.write(" · ".join(str(m.get(k)) for k in ("status", "content", "text") if m.get(k)) or str(m))

    def do_speakers(self, owner, opts):
        if opts["speakers_action"] == "self":
            person = services.set_self_name(owner=owner, name=opts["name"])
            self.stdout.write(self.style.SUCCESS(f"You are {person.name}."))
            return
        services.set_speaker(
            owner=owner,
            kind=opts["source"],
            label=opts["label"],
            name=opts["name"],
            is_self=opts["is_self"],
            conversation=opts.get("conversation"),
        )
        scope = f"conversation {opts['conversation']}" if opts.get("conversation") else "everywhere"
        self.stdout.write(self.style.SUCCESS(f"{opts['source']} {opts['label']} is {opts['name']} ({scope})."))

    def do_corrections(self, owner, opts):
        action = opts["corrections_action"]
        if action == "add":
            kind = services.parse_kind(opts["source"]) if opts.get("source") else None
            c = services.add_correction(owner=owner, wrong=opts["wrong"], right=opts["right"], kind=kind)
            self.stdout.write(self.style.SUCCESS(f"#{c.pk}: {c.wrong} → {c.right}{' (' + kind + ')' if kind else ''}"))
        elif action == "list":
            rows = Correction.objects.owned_by(owner).select_related("source")
            if not rows:
                self.stdout.write("No corrections.")
            for c in rows:
                self.stdout.write(f"#{c.pk}: {c.wrong} → {c.right}{' (' + c.source.kind + ')' if c.source_id else ''}")
        else:
            try:
                services.remove_correction(owner=owner, correction_id=opts["id"])
            except Http404 as exc:
                raise CommandError(f"No correction #{opts['id']}") from exc
            self.stdout.write(f"Removed correction #{opts['id']}.")
