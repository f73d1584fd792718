#!/usr/bin/env python
"""Django's command-line utility for Almanac."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
    from django.core.management import execute_from_command_line
    from django.db import InterfaceError, OperationalError

    try:
        execute_from_command_line(sys.argv)
    except (OperationalError, InterfaceError) as exc:
        # The database went away (stopped, restarting, unreachable): one readable line, not a traceback.
        # Every write is transactional, so what was cut short left nothing behind; running the command again
        # once the database is back picks up where it stopped.
        from accounts.database import DISK_FULL, database_trouble

        trouble = database_trouble(exc)
        if "--traceback" in sys.argv or not trouble:
            raise
        reason = next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
        if trouble == DISK_FULL:
            sys.stderr.write(f"Error: the database's disk is full ({reason}); free space, then run it again.\n")
        else:
            sys.stderr.write(f"Error: the database is unavailable ({reason}); run the command again once it is back.\n")
        sys.exit(1)


if __name__ == "__main__":
    main()
