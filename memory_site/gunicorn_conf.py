"""gunicorn settings for Almanac (`make up`, systemd, compose): `gunicorn -c memory_site/gunicorn_conf.py`.

Threads share one process's memory and each keeps its own persistent database connection
(ALMANAC_CONN_MAX_AGE). SIGTERM stops accepting connections and lets in-flight requests finish within
``graceful_timeout``; SIGHUP reloads the code without dropping requests.
"""

from __future__ import annotations

import os

wsgi_app = "memory_site.wsgi:application"
bind = [os.environ.get("ALMANAC_BIND", "127.0.0.1:8000")]
workers = int(os.environ.get("ALMANAC_WEB_WORKERS", "2"))
worker_class = "gthread"
threads = int(os.environ.get("ALMANAC_WEB_THREADS", "4"))
timeout = int(os.environ.get("ALMANAC_WEB_TIMEOUT", "120"))  # a request running longer is killed
graceful_timeout = int(os.environ.get("ALMANAC_WEB_GRACEFUL_TIMEOUT", "30"))
keepalive = 5
# Behind a reverse proxy on the same host: trust its X-Forwarded-* headers (README "Serving").
forwarded_allow_ips = os.environ.get("ALMANAC_FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
accesslog = "-" if os.environ.get("ALMANAC_ACCESS_LOG", "false").lower() in {"1", "true", "yes"} else None
errorlog = "-"
loglevel = os.environ.get("ALMANAC_LOG_LEVEL", "info").lower()
limit_request_line = 16384  # longer request lines get 414 from gunicorn itself
