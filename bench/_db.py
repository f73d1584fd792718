"""The database a benchmark runs against, set up one of two ways (``make bench`` skips ``bench/_*`` files).

- ``use_bench_database``: a named database in the embedded PostgreSQL, migrated and kept between runs (figures
  from one run can be inspected after it);
- ``throwaway_database``: Django's test-database machinery, created fresh and dropped after the run unless
  ``keep``.
"""

from __future__ import annotations

import os
from collections.abc import Callable


def use_bench_database(name: str = "almanac_bench", *, home: str | None = None, cache_table: bool = False) -> None:
    """Point Django at the embedded database ``name``, creating and migrating it first. ``home`` is the
    ALMANAC_HOME to use when none is set (the embedded server's folder)."""
    if home:
        os.environ.setdefault("ALMANAC_HOME", home)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connections

    from memory_site import embedded_db

    embedded_db._ensure_database(name)
    connections.close_all()
    settings.DATABASES["default"]["NAME"] = name
    connections["default"].settings_dict["NAME"] = name
    call_command("migrate", verbosity=0, interactive=False)
    if cache_table:
        call_command("createcachetable", verbosity=0)


def throwaway_database(name: str, *, keep: bool = False, test_client: bool = False) -> Callable[[], None]:
    """Create a fresh database ``name`` as the test runner does; returns the teardown that drops it (a no-op
    with ``keep``). ``test_client`` lets Django's test client (host "testserver") call the API."""
    import django
    from django.conf import settings

    settings.DATABASES["default"].setdefault("TEST", {})["NAME"] = name
    django.setup()
    from django.db import connection

    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False, keepdb=False)
    if test_client and "testserver" not in settings.ALLOWED_HOSTS:
        settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]

    def teardown() -> None:
        if not keep:
            connection.creation.destroy_test_db(old_name, verbosity=0)

    return teardown
