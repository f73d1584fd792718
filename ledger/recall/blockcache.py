"""Context blocks in the shared cache, written in one round trip.

Django's database cache takes five statements per write (a row count for culling, then a transaction with a
read and an insert or update). Recall writes one block per uncached question, so on the database cache it
writes with a single upsert instead, in the backend's own key and value encoding (``cache.get`` reads it back),
and drops expired rows in the same statement, which keeps the table as small as culling would. Any other
cache backend gets an ordinary ``cache.set``.
"""

from __future__ import annotations

import base64
import pickle
from datetime import UTC, datetime

from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.core.cache.backends.db import DatabaseCache
from django.db import connections, router
from django.utils import timezone


def put(key: str, value, seconds: int) -> None:
    cache = caches[DEFAULT_CACHE_ALIAS]  # the backend itself (django.core.cache.cache is a proxy to it)
    if not isinstance(cache, DatabaseCache):
        cache.set(key, value, seconds)
        return
    db_key = cache.make_and_validate_key(key)
    tz = UTC if settings.USE_TZ else None
    # As DatabaseCache stores them: whole seconds, pickled then base64 (see django.core.cache.backends.db).
    expires = datetime.fromtimestamp(cache.get_backend_timeout(seconds), tz=tz).replace(microsecond=0)
    now = timezone.now()
    if not settings.USE_TZ:
        now = timezone.make_naive(now)
    encoded = base64.b64encode(pickle.dumps(value, cache.pickle_protocol)).decode("latin1")
    connection = connections[router.db_for_write(cache.cache_model_class)]
    table = connection.ops.quote_name(cache._table)
    adapt = connection.ops.adapt_datetimefield_value
    with connection.cursor() as cur:
        # The expired rows deleted are never the row written (one statement may not touch a row twice).
        cur.execute(
            f"WITH expired AS (DELETE FROM {table} WHERE expires < %s AND cache_key <> %s) "
            f"INSERT INTO {table} (cache_key, value, expires) VALUES (%s, %s, %s) "
            "ON CONFLICT (cache_key) DO UPDATE SET value = EXCLUDED.value, expires = EXCLUDED.expires",
            [adapt(now), db_key, db_key, encoded, adapt(expires)],
        )
