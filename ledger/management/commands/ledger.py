"""manage.py ledger rebuild|verify [--user USERNAME] [--check]"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from ledger import chain
from ledger.models import ChainHead


class Command(BaseCommand):
    help = "Ledger maintenance: 'verify' walks each chain and reports the first tampered or missing commit; 'rebuild' replays each chain into the projection tables."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        verify = sub.add_parser("verify", help="Recompute every commit id and check the links")
        verify.add_argument("--user", help="Only this username (default: every owner with a chain)")
        rebuild = sub.add_parser("rebuild", help="Replay the chain and make the projection equal to it")
        rebuild.add_argument("--user", help="Only this username (default: every owner with a chain)")
        rebuild.add_argument("--check", action="store_true", help="Report drift without writing")

    def _owners(self, username):
        User = get_user_model()
        if username:
            try:
                return [User.objects.get(username=username)]
            except User.DoesNotExist:
                raise CommandError(f"No user named {username!r}") from None
        return list(User.objects.filter(pk__in=ChainHead.objects.values("owner_id")).order_by("username"))

    def handle(self, *args, action, user=None, check=False, **options):
        owners = self._owners(user)
        failed = 0
        for owner in owners:
            if action == "verify":
                report = chain.verify(owner)
                ok = report.ok
            else:
                report = chain.rebuild(owner, write=not check)
                ok = report.identical_before or not check
            self.stdout.write(f"{owner.get_username()}: {report.line()}")
            failed += 0 if ok else 1
        if not owners:
            self.stdout.write("no ledgers yet")
        if failed:
            raise CommandError(f"{failed} ledger(s) failed {action}")
