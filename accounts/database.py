"""What a database error means to the caller: the database went away, its disk is full, or something else.

One reading for every entry point: a sync writes the day again after a lost connection, ``manage.py`` prints one
line, and a web request answers 503 with ``Retry-After`` instead of 500 while PostgreSQL restarts.
"""

from __future__ import annotations

from django.db import InterfaceError, OperationalError

LOST = "lost"
DISK_FULL = "disk full"
SHUTDOWN_SQLSTATES = ("57P01", "57P02", "57P03")  # admin shutdown, crash shutdown, cannot connect now
DISK_FULL_SQLSTATE = "53100"  # PostgreSQL could not extend a file: its disk (the data directory's) is full


def database_trouble(exc: BaseException) -> str:
    """``LOST`` (the connection or the server went away: client-side errors carry no SQLSTATE, the server's
    shutdown and connection failures are 57P01-57P03 and class 08), ``DISK_FULL`` (53100), or "" for any other
    error, a database error that is not about the server's availability included."""
    if not isinstance(exc, OperationalError | InterfaceError):
        return ""
    sqlstate = getattr(exc.__cause__, "sqlstate", None)
    if sqlstate == DISK_FULL_SQLSTATE:
        return DISK_FULL
    if isinstance(exc, InterfaceError) or sqlstate is None or sqlstate[:2] == "08" or sqlstate in SHUTDOWN_SQLSTATES:
        return LOST
    return ""
