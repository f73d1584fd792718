"""Optional encryption at rest (``ALMANAC_ENCRYPTION_KEY``): envelope encryption with Fernet.

- The key-encryption keys (KEKs) come from ``ALMANAC_ENCRYPTION_KEY``, a comma-separated list of Fernet keys:
  the first wraps, every one may unwrap. They are never stored, logged or put in an error message.
- One random data key encrypts the values. It is stored only wrapped by the first KEK (``accounts.DataKey``),
  so rotating the KEK re-wraps one row (``manage.py encryption rotate``); no stored value is re-encrypted and
  the ledger's hash chain is untouched.
- A stored value is ``"enc1:" + Fernet token`` (AES-128-CBC + HMAC-SHA256, authenticated). A value without the
  prefix is legacy plaintext and is still read; ``manage.py encryption encrypt-existing`` encrypts those rows.
- With no key set nothing is encrypted and everything reads as before. An encrypted value read without the key,
  or with a key that does not unwrap the data key, raises ``EncryptionUnavailable`` with one clear sentence.

Fields using this are in ``accounts.fields``.
"""

from __future__ import annotations

import contextvars
import hashlib
import threading
from contextlib import contextmanager

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.db import IntegrityError, transaction
from django.views.decorators.debug import sensitive_variables

PREFIX = "enc1:"
_PREFIX_B = PREFIX.encode()
DATA_KEY_NAME = "default"


class EncryptionUnavailable(ImproperlyConfigured):
    """Encrypted data cannot be read or written with the configured key(s). The message never holds a key."""


class _State:
    def __init__(self):
        self.lock = threading.Lock()
        self.config: tuple[str, ...] | None = None
        self.data: Fernet | None = None
        # Set while the data key row was created in a transaction that has not committed yet: if that
        # transaction rolls back, the row (and every value encrypted with it) is gone, and so must the cache be.
        # (wrapped value, the connection's savepoint stack when it was created)
        self.uncommitted: tuple[str, tuple] | None = None


_state = _State()
_plaintext_writes = contextvars.ContextVar("almanac_plaintext_writes", default=False)


def _configured() -> tuple[str, ...]:
    raw = getattr(settings, "ALMANAC_ENCRYPTION_KEY", None) or ()
    if isinstance(raw, str):
        raw = raw.split(",")
    return tuple(k.strip() for k in raw if k and k.strip())


def enabled() -> bool:
    """True when ``ALMANAC_ENCRYPTION_KEY`` is set: new values are written encrypted."""
    return bool(_configured()) and not _plaintext_writes.get()


def is_encrypted(value) -> bool:
    return isinstance(value, str) and value.startswith(PREFIX)


@sensitive_variables("keys", "key")
def _keks() -> list[Fernet]:
    out = []
    for i, key in enumerate(_configured(), start=1):
        try:
            out.append(Fernet(key))
        except (ValueError, TypeError):
            raise EncryptionUnavailable(
                f"ALMANAC_ENCRYPTION_KEY entry {i} is not a valid key (32 url-safe base64-encoded bytes); "
                "make one with `manage.py encryption generate-key`."
            ) from None
    return out


@sensitive_variables("key")
def fingerprint(key: str) -> str:
    """A short, non-reversible name for a key (shown by ``encryption status``; safe to log)."""
    return hashlib.sha256(b"almanac-kek:" + key.encode()).hexdigest()[:16]


def fingerprints() -> list[str]:
    return [fingerprint(k) for k in _configured()]


def generate_key() -> str:
    return Fernet.generate_key().decode()


def _reset(**_kwargs) -> None:
    with _state.lock:
        _state.config, _state.data, _state.uncommitted = None, None, None


setting_changed.connect(_reset, dispatch_uid="accounts.crypto.reset")


@sensitive_variables("raw", "keks")
def _unwrap(row, keks: list[Fernet]) -> Fernet:
    try:
        raw = MultiFernet(keks).decrypt(row.wrapped.encode())
    except InvalidToken:
        raise EncryptionUnavailable(
            "ALMANAC_ENCRYPTION_KEY does not unlock the stored data key "
            f"(it was wrapped by the key with fingerprint {row.kek_fingerprint}). Set that key (or list it after "
            "the new one and run `manage.py encryption rotate`)."
        ) from None
    return Fernet(raw)


@sensitive_variables("keks", "raw")
def _data_key(create: bool) -> Fernet:
    """The unwrapped data key (cached per process for the configured key list)."""
    from accounts.models import DataKey

    config = _configured()
    data, pending = _state.data, _state.uncommitted
    if data is not None and _state.config == config:
        if pending is None or _still_pending(*pending):
            return data
        if DataKey.objects.filter(name=DATA_KEY_NAME, wrapped=pending[0]).exists():
            conn = transaction.get_connection()  # committed, or merged into an outer transaction still open
            with _state.lock:
                _state.uncommitted = (pending[0], tuple(conn.savepoint_ids)) if conn.in_atomic_block else None
            return data
        _reset()  # the transaction that created the data key rolled back

    if not config:
        raise EncryptionUnavailable(
            "Stored text is encrypted but ALMANAC_ENCRYPTION_KEY is not set. Set the key it was encrypted with."
        )
    keks = _keks()
    row = DataKey.objects.filter(name=DATA_KEY_NAME).first()
    created = row is None
    if row is None:
        if not create:
            raise EncryptionUnavailable(
                "Stored text is encrypted but this database has no data key (restored from elsewhere?)."
            )
        raw = Fernet.generate_key()
        try:
            with transaction.atomic():  # a savepoint: a concurrent first write may have created it
                row = DataKey.objects.create(
                    name=DATA_KEY_NAME, wrapped=keks[0].encrypt(raw).decode(), kek_fingerprint=fingerprint(config[0])
                )
        except IntegrityError:
            row = DataKey.objects.get(name=DATA_KEY_NAME)
    data = _unwrap(row, keks)
    conn = transaction.get_connection()
    uncommitted = (row.wrapped, tuple(conn.savepoint_ids)) if created and conn.in_atomic_block else None
    with _state.lock:
        _state.config, _state.data, _state.uncommitted = config, data, uncommitted
    if uncommitted:
        transaction.on_commit(_mark_committed)
    return data


def _still_pending(wrapped: str, stack: tuple) -> bool:
    """True while this connection is still inside the (savepoint of the) transaction that created the data key:
    the row is there for it, no query needed. Anything else (committed, rolled back, another thread) re-checks."""
    conn = transaction.get_connection()
    return conn.in_atomic_block and tuple(conn.savepoint_ids[: len(stack)]) == stack


def _mark_committed() -> None:
    with _state.lock:
        _state.uncommitted = None


def encrypt_bytes(plain: bytes) -> bytes:
    return _PREFIX_B + _data_key(create=True).encrypt(plain)


def decrypt_bytes(stored: bytes) -> bytes:
    if not stored.startswith(_PREFIX_B):
        return stored
    try:
        return _data_key(create=False).decrypt(stored[len(_PREFIX_B) :])
    except InvalidToken:
        raise EncryptionUnavailable(
            "A stored encrypted value does not decrypt with the data key (altered or corrupt)."
        ) from None


def encrypt(text: str) -> str:
    """``text`` as stored: ``enc1:<token>`` when encryption is enabled, else unchanged. Empty stays empty."""
    if not text or not enabled() or is_encrypted(text):
        return text
    return encrypt_bytes(text.encode("utf-8")).decode("ascii")


def decrypt(stored):
    """The plaintext of a stored value; legacy plaintext (no prefix) is returned as it is."""
    if not is_encrypted(stored):
        return stored
    return decrypt_bytes(stored.encode("ascii")).decode("utf-8")


@contextmanager
def plaintext_writes():
    """Inside this block values are written in plaintext even with a key set (``encryption decrypt-all``)."""
    token = _plaintext_writes.set(True)
    try:
        yield
    finally:
        _plaintext_writes.reset(token)


def check_key() -> str | None:
    """None when the configured key(s) can read this database's data key (or encryption is off and nothing needs
    a key), else the problem as one sentence. Never raises for a key problem; never includes a key."""
    from accounts.models import DataKey

    row = DataKey.objects.filter(name=DATA_KEY_NAME).first()
    if not _configured():
        return "Stored text is encrypted (a data key exists) but ALMANAC_ENCRYPTION_KEY is not set." if row else None
    try:
        keks = _keks()
        if row is not None:
            _unwrap(row, keks)
    except EncryptionUnavailable as exc:
        return str(exc)
    return None


@sensitive_variables("keks")
def rotate() -> dict:
    """Re-wrap the data key with the first configured key, in one transaction. Idempotent."""
    from accounts.models import DataKey

    if not _configured():
        raise EncryptionUnavailable("ALMANAC_ENCRYPTION_KEY is not set: nothing to rotate to.")
    keks = _keks()
    new_fp = fingerprint(_configured()[0])
    with transaction.atomic():
        row = DataKey.objects.select_for_update().filter(name=DATA_KEY_NAME).first()
        if row is None:
            _reset()
            _data_key(create=True)
            return {"rotated": False, "created": True, "fingerprint": new_fp}
        old_fp = row.kek_fingerprint
        _unwrap(row, keks)  # a clear error when no configured key unwraps it
        row.wrapped = MultiFernet(keks).rotate(row.wrapped.encode()).decode()
        row.kek_fingerprint = new_fp
        row.save(update_fields=["wrapped", "kek_fingerprint", "rotated_at"])
    _reset()
    return {"rotated": old_fp != new_fp, "created": False, "fingerprint": new_fp, "previous": old_fp}
