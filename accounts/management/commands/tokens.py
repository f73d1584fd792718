"""manage.py tokens create USERNAME [--name NAME] | list USERNAME | revoke USERNAME PREFIX"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from accounts import services
from accounts.models import ApiToken


class Command(BaseCommand):
    help = "Create, list or revoke a user's API tokens. A new token is printed once and never stored in clear."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="create a token and print it once")
        create.add_argument("username")
        create.add_argument("--name", default="cli")
        listing = sub.add_parser("list", help="list a user's tokens (prefixes only)")
        listing.add_argument("username")
        revoke = sub.add_parser("revoke", help="revoke a token by its prefix")
        revoke.add_argument("username")
        revoke.add_argument("prefix")

    def _user(self, username: str):
        try:
            return get_user_model().objects.get(username=username)
        except get_user_model().DoesNotExist as exc:
            raise CommandError(f"No such user: {username}") from exc

    def handle(self, *args, action: str, username: str, **options):
        user = self._user(username)
        if action == "create":
            _, plain = services.create_token(owner=user, name=options["name"])
            self.stdout.write(plain)
        elif action == "list":
            for token in ApiToken.objects.owned_by(user):
                state = "revoked" if token.revoked_at else "active"
                self.stdout.write(f"{token.prefix}…  {token.name}  {state}  created {token.created_at:%Y-%m-%d}")
        else:
            matches = list(ApiToken.objects.owned_by(user).filter(prefix__startswith=options["prefix"]))
            if len(matches) != 1:
                raise CommandError(f"{len(matches)} tokens match prefix {options['prefix']!r}; expected exactly one")
            services.revoke_token(token=matches[0])
            self.stdout.write(f"revoked {matches[0].prefix}…")
