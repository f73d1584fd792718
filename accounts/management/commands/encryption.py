"""manage.py encryption generate-key | status | rotate | encrypt-existing | decrypt-all | reindex

Encryption at rest (``accounts.crypto``). Rotation: put the new key first in ALMANAC_ENCRYPTION_KEY (old keys
after it), run ``rotate`` (re-wraps the data key in one transaction), then drop the old keys.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from accounts import crypto, encryption


class Command(BaseCommand):
    help = "Encryption at rest: make a key, show status, rotate the key, encrypt existing rows or decrypt them."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        sub.add_parser("generate-key", help="print a new random key for ALMANAC_ENCRYPTION_KEY")
        sub.add_parser("status", help="key fingerprints, whether the key unlocks the data, counts per column")
        sub.add_parser("rotate", help="re-wrap the data key with the first key of ALMANAC_ENCRYPTION_KEY")
        enc = sub.add_parser("encrypt-existing", help="encrypt rows stored before the key was set (idempotent)")
        enc.add_argument("--batch", type=int, default=encryption.BATCH)
        dec = sub.add_parser("decrypt-all", help="write every encrypted value back as plaintext")
        dec.add_argument("--batch", type=int, default=encryption.BATCH)
        re_ = sub.add_parser("reindex", help="recompute search vectors from the plaintext")
        re_.add_argument("--all", action="store_true", help="every row, not only rows without a vector")

    def handle(self, *args, action: str, **options):
        try:
            getattr(self, "_" + action.replace("-", "_"))(**options)
        except crypto.EncryptionUnavailable as exc:
            raise CommandError(str(exc)) from None

    def _generate_key(self, **_):
        self.stdout.write(crypto.generate_key())

    def _status(self, **_):
        fps = crypto.fingerprints()
        self.stdout.write(f"encryption: {'on' if fps else 'off'}; key fingerprints: {', '.join(fps) or '(none)'}")
        problem = crypto.check_key()
        self.stdout.write(f"key check: {problem or 'ok'}")
        for label, counts in encryption.status().items():
            self.stdout.write(f"{label:<40} encrypted {counts['encrypted']:>8}  plaintext {counts['plaintext']:>8}")
        if problem:
            raise CommandError(problem)

    def _rotate(self, **_):
        result = crypto.rotate()
        if result["created"]:
            self.stdout.write(f"created a data key wrapped by {result['fingerprint']}")
        elif result["rotated"]:
            self.stdout.write(f"re-wrapped the data key: {result['previous']} -> {result['fingerprint']}")
        else:
            self.stdout.write(f"the data key is already wrapped by {result['fingerprint']}; nothing to do")

    def _encrypt_existing(self, batch: int, **_):
        for label, n in encryption.encrypt_existing(batch=batch).items():
            self.stdout.write(f"{label}: {n} rows encrypted")

    def _decrypt_all(self, batch: int, **_):
        for label, n in encryption.decrypt_all(batch=batch).items():
            self.stdout.write(f"{label}: {n} rows decrypted")

    def _reindex(self, **options):
        for label, n in encryption.refill_search_vectors(only_missing=not options["all"]).items():
            self.stdout.write(f"{label}: {n} vectors")
