"""manage.py ledger rebuild|verify [--user USERNAME] [--check] | forget-person NAME|ID --user USERNAME [--yes]"""

from __future__ import annotations

import uuid

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from ledger import chain, queries
from ledger.forget import services as forget_services
from ledger.models import ChainHead, Entity


class Command(BaseCommand):
    help = "Ledger maintenance: 'verify' walks each chain and reports the first tampered or missing commit; 'rebuild' replays each chain into the projection tables."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        verify = sub.add_parser("verify", help="Recompute every commit id and check the links")
        verify.add_argument("--user", help="Only this username (default: every owner with a chain)")
        rebuild = sub.add_parser("rebuild", help="Replay the chain and make the projection equal to it")
        rebuild.add_argument("--user", help="Only this username (default: every owner with a chain)")
        rebuild.add_argument("--check", action="store_true", help="Report drift without writing")
        forget = sub.add_parser("forget-person", help="Forget a person for good, everywhere (ledger and sources)")
        forget.add_argument("person", help="The person's name (or an alias) or entity id")
        forget.add_argument("--user", required=True, help="Whose memory")
        forget.add_argument("--yes", action="store_true", help="Do not ask for confirmation")

    def _owners(self, username):
        User = get_user_model()
        if username:
            try:
                return [User.objects.get(username=username)]
            except User.DoesNotExist:
                raise CommandError(f"No user named {username!r}") from None
        return list(User.objects.filter(pk__in=ChainHead.objects.values("owner_id")).order_by("username"))

    def _forget_person(self, owner, person: str, yes: bool) -> None:
        entity = None
        try:
            entity = Entity.objects.filter(owner=owner, public_id=uuid.UUID(person)).first()
        except ValueError:
            entity = queries.find_entity(owner=owner, name=person)
        label = entity.name if entity else person
        if not yes:
            answer = input(f"Forget {label!r} for good (facts, transcripts, chats, screen)? Type 'forget': ")
            if answer.strip() != "forget":
                raise CommandError("Nothing forgotten")
        if entity is not None:
            report = forget_services.forget_entity(owner=owner, entity=entity)
        else:
            report = forget_services.forget_person_names(owner=owner, names=[person])
        copies = ", ".join(f"{k}: {v}" for k, v in sorted(report.copies.items())) or "no stored copies"
        self.stdout.write(
            f"forgot {'entity' if entity else 'name'}: {report.facts} facts, {report.episodes} episodes, {copies}; "
            f"commit {report.commit_id[:12]}; verify {'ok' if chain.verify(owner).ok else 'FAILED'}"
        )

    def handle(self, *args, action, user=None, check=False, **options):
        if action == "forget-person":
            self._forget_person(self._owners(user)[0], options["person"], options.get("yes", False))
            return
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
