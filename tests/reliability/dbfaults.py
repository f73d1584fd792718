"""Cut this process's database connection from the server side, the way a PostgreSQL restart does."""

from __future__ import annotations

from django.db import connection, connections


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def terminate_backend(pid: int) -> None:
    """``pg_terminate_backend`` from a second connection: the next statement on ``pid``'s connection fails."""
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    finally:
        other.close()


def cut_on_call(module, name: str, call: int) -> dict:
    """Wrap ``module.name`` so that, on its ``call``-th call, the connection is terminated just before it runs."""
    real = getattr(module, name)
    state = {"calls": 0, "cut": False}

    def wrapper(*args, **kwargs):
        state["calls"] += 1
        if state["calls"] == call:
            state["cut"] = True
            terminate_backend(backend_pid())
        return real(*args, **kwargs)

    return state, wrapper
