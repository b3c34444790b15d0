"""Cloak's settings. Every environment variable read here is listed in README.md."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from annotator.env import (
    DEVELOPMENT_SECRET_KEY,
    database_from_url,
    env_bool,
    env_int,
    env_list,
    env_str,
)
from pseudonymizer.detection import DEFAULT_NER_MODELS

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("CLOAK_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DJANGO_DEBUG", False)
# A stable development key keeps sessions valid across restarts of `make run`; a deployment
# sets its own (docker-compose.yml requires it).
SECRET_KEY = env_str("DJANGO_SECRET_KEY", DEVELOPMENT_SECRET_KEY)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

# HTTPS. CLOAK_HTTPS=1 says people reach Cloak only over TLS (docker-compose.yml sets it): it
# turns on the redirect, secure cookies and HSTS together, each overridable on its own.
CLOAK_HTTPS = env_bool("CLOAK_HTTPS", False)
SECURE_SSL_REDIRECT = env_bool("CLOAK_SSL_REDIRECT", CLOAK_HTTPS)
# The health check is asked over plain HTTP from inside the container.
SECURE_REDIRECT_EXEMPT = [r"^healthz/$"]
SESSION_COOKIE_SECURE = env_bool("CLOAK_SESSION_COOKIE_SECURE", CLOAK_HTTPS)
CSRF_COOKIE_SECURE = env_bool("CLOAK_CSRF_COOKIE_SECURE", CLOAK_HTTPS)
# HSTS binds browsers to HTTPS for this long, the host's subdomains too, and consents to
# browsers' preload lists: set CLOAK_HSTS_INCLUDE_SUBDOMAINS=0 if a subdomain serves plain HTTP.
SECURE_HSTS_SECONDS = env_int("CLOAK_HSTS_SECONDS", 31_536_000 if CLOAK_HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("CLOAK_HSTS_INCLUDE_SUBDOMAINS", CLOAK_HTTPS)
SECURE_HSTS_PRELOAD = env_bool("CLOAK_HSTS_PRELOAD", CLOAK_HTTPS)
# Behind a proxy that terminates TLS, its X-Forwarded-Proto says whether the request was
# HTTPS. Only set this when such a proxy is the one way in (it must overwrite the header).
if env_bool("CLOAK_BEHIND_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

INSTALLED_APPS = [
    # First: its management commands take the place of Django's of the same name
    # (`createsuperuser` obeys the password rules). It ships no templates or static files.
    "annotator",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    "axes",
    "csp",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "template_partials",
    "annotator.keys",
]

MIDDLEWARE = [
    # First: a body over the limit is refused before any other middleware reads it, and
    # what is left of every body is read before the answer goes (annotator.middleware).
    "annotator.middleware.RequestBodyLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Static files are answered above; every other answer is kept from caches (annotator.caching).
    "annotator.caching.NoStoreMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # A 404 or 403 is Cloak's own page even with DEBUG on, logged in one line (its module).
    "annotator.views.errors.RefusalMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last: it turns a sign-in that axes refused into the lockout answer.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "annotator.urls"
WSGI_APPLICATION = "annotator.wsgi.application"

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

# The embedded default is SQLite; set DATABASE_URL for Postgres.
DATABASES = {
    "default": database_from_url(env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'cloak.sqlite3'}")),
}
# The correspondence table (app `keys`) can live in its own database or Postgres schema,
# reachable only through a role that the annotators' pages do not use: a schema of its own
# is `KEYS_DATABASE_URL=postgres://keys_role:pass@host/name?schema=cloak_keys`, set up by
# `manage.py provision_keys_db` (annotator.checks warns while the table has no guard of its own).
_keys_url = env_str("KEYS_DATABASE_URL", "")
if _keys_url:
    DATABASES["keys"] = database_from_url(_keys_url)
DATABASE_ROUTERS = ["annotator.routers.KeysRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Every password Cloak sets goes through these (membership_set, add_member, load_demo, the
# admin, changepassword). Twelve characters, as the key export's passphrase.
CLOAK_PASSWORD_MIN_LENGTH = env_int("CLOAK_PASSWORD_MIN_LENGTH", 12)
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": CLOAK_PASSWORD_MIN_LENGTH},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    {"NAME": "annotator.passwords.VarietyValidator"},
]

# Failed sign-ins (the login page, the admin's, POST /api/auth/token/) are counted by
# django-axes in the database, so every gunicorn worker sees the same count. After
# CLOAK_LOGIN_FAILURE_LIMIT failures of one username from one address, that pair is refused
# for CLOAK_LOGIN_COOLOFF_MINUTES after the last failure, the right password too. The pair and
# not the username alone: whoever knows a name could otherwise lock its owner out from
# everywhere. `manage.py axes_reset_username <name>` lifts a lockout sooner.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_FAILURE_LIMIT = env_int("CLOAK_LOGIN_FAILURE_LIMIT", 5)
CLOAK_LOGIN_COOLOFF_MINUTES = env_int("CLOAK_LOGIN_COOLOFF_MINUTES", 15)
AXES_COOLOFF_TIME = timedelta(minutes=CLOAK_LOGIN_COOLOFF_MINUTES)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
# The address is REMOTE_ADDR, as everywhere in Cloak (annotator.audit.client_ip):
# X-Forwarded-For is whatever the client wants it to be.
AXES_CLIENT_IP_CALLABLE = "annotator.audit.client_ip"
AXES_RESET_ON_SUCCESS = True
# A try during the lockout does not restart it: "try again at 10:42" stays true.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "annotator.views.signin.lockout_response"
# Kept out of the attempts' stored form data, with the password axes always masks.
AXES_SENSITIVE_PARAMETERS = ["username", "ip_address", "csrfmiddlewaretoken"]
if AXES_FAILURE_LIMIT < 1 or CLOAK_LOGIN_COOLOFF_MINUTES < 1:
    raise ImproperlyConfigured(
        "CLOAK_LOGIN_FAILURE_LIMIT and CLOAK_LOGIN_COOLOFF_MINUTES must be at least 1"
    )

# API tokens (django-rest-knox): stored as digests, valid CLOAK_API_TOKEN_TTL_HOURS from when
# they are issued (never extended by use), revoked when their user's password changes.
CLOAK_API_TOKEN_TTL_HOURS = env_int("CLOAK_API_TOKEN_TTL_HOURS", 10)
if CLOAK_API_TOKEN_TTL_HOURS < 1:
    raise ImproperlyConfigured("CLOAK_API_TOKEN_TTL_HOURS must be at least 1")
REST_KNOX = {
    "TOKEN_TTL": timedelta(hours=CLOAK_API_TOKEN_TTL_HOURS),
    "AUTO_REFRESH": False,
    # The header stays `Authorization: Token <token>`, as with DRF's tokens before.
    "AUTH_HEADER_PREFIX": "Token",
}

# Content-Security-Policy: Cloak serves every script, style and image itself (htmx is
# vendored), so nothing inline and nothing from elsewhere runs. The API docs' Swagger UI loads
# its start-up script as a file too (annotator.api.urls).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [SELF],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
    },
}

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("CLOAK_STATIC_ROOT", str(VAR_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
MEDIA_ROOT = VAR_DIR / "media"
MEDIA_URL = "media/"

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Redis serves as Celery's broker and the shared cache when it is configured. Without it
# (the embedded `make run`), Celery uses a folder as its broker and the cache a folder too,
# so the web process and the worker still share task messages and progress.
REDIS_URL = env_str("REDIS_URL", "")
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", REDIS_URL)
if CELERY_BROKER_URL:
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {}
else:
    CELERY_BROKER_URL = "filesystem://"
    _queue_dir = VAR_DIR / "queue"
    # Kombu's folder transport does not create its folders; a worker would crash without them.
    for _folder in ("out", "processed", "control"):
        (_queue_dir / _folder).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_queue_dir / "out"),
        "data_folder_out": str(_queue_dir / "out"),
        "processed_folder": str(_queue_dir / "processed"),
        "store_processed": False,
        # Broadcast and pidbox exchanges: without this Kombu writes them to ./control.
        "control_folder": str(_queue_dir / "control"),
    }
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {
    "annotator.tasks.preannotate_ner": {"queue": "ner"},
    # A release's NER: its model never runs in the default queue's process.
    "annotator.tasks.release_ner": {"queue": "ner"},
}
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
# The reaper fails jobs whose worker stopped and deletes uploads no job needs (see
# annotator.services.jobs); beat runs it every CLOAK_JOBS_REAP_EVERY seconds.
CELERY_BEAT_SCHEDULE = {
    "jobs-reap": {
        "task": "annotator.tasks.jobs_reap",
        "schedule": float(env_int("CLOAK_JOBS_REAP_EVERY", 300)),
    },
    # Expired sessions go (issue 32): the web role reads their table.
    "sessions-clear": {
        "task": "annotator.tasks.sessions_clear",
        "schedule": float(env_int("CLOAK_SESSIONS_CLEAR_EVERY", 3600)),
    },
    # The words of documents no import wrote go into the vocabulary (issue 33); until then a
    # pseudonym's check reads those documents.
    "corpus-words-catch-up": {
        "task": "annotator.tasks.corpus_words_catch_up",
        "schedule": float(env_int("CLOAK_CORPUS_WORDS_EVERY", 600)),
    },
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
# The worker's processes run at this niceness (annotator/celery.py), below the web's, so that
# background work on the web's host waits for the annotators' requests; 0 leaves it as started.
CLOAK_WORKER_NICE = env_int("CLOAK_WORKER_NICE", 10)
if not 0 <= CLOAK_WORKER_NICE <= 19:
    raise ImproperlyConfigured(
        f"CLOAK_WORKER_NICE must be a niceness from 0 to 19, got {CLOAK_WORKER_NICE}"
    )

_cache_url = env_str("CACHE_URL", REDIS_URL)
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": _cache_url}
        if _cache_url
        else {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
            # Jobs keep their heartbeat here (one entry per running job or batch); the default
            # of 300 entries would cull live heartbeats, and the reaper take their jobs for dead.
            "OPTIONS": {"MAX_ENTRIES": 10_000},
        }
    ),
    # The workspace's rendered text (annotator.views.workspace.whole_text) holds originals: it
    # stays in the process that rendered it, never in Redis or on disk, and goes with it.
    "rendered": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "cloak-rendered",
        "OPTIONS": {"MAX_ENTRIES": env_int("CLOAK_RENDERED_TEXTS", 64)},
    },
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: an anonymous API call then gets 401 with a WWW-Authenticate header.
        "annotator.api.authentication.ExpiringTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # Documents each operation's error codes and query parameters (annotator.api.schema).
    "DEFAULT_SCHEMA_CLASS": "annotator.api.schema.CloakAutoSchema",
    # limit/offset, bounded: out of bounds is a 400 (annotator.api.pagination).
    "DEFAULT_PAGINATION_CLASS": "annotator.api.pagination.LimitOffsetPage",
    "PAGE_SIZE": 100,
    "EXCEPTION_HANDLER": "annotator.api.errors.exception_handler",
    # JSON in, nested at most 64 deep (annotator.api.parsers); JSON out, whatever the
    # Accept header (annotator.api.negotiation).
    "DEFAULT_PARSER_CLASSES": [
        "annotator.api.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "annotator.api.negotiation.FirstRendererIfNoneAccepted",
    # POST /api/auth/token/, per client address (annotator.api.authentication.SignInRateThrottle).
    "DEFAULT_THROTTLE_RATES": {"sign-in": env_str("CLOAK_API_TOKEN_RATE", "10/min")},
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Cloak API",
    "DESCRIPTION": "Pseudonymize sensitive multilingual text corpora.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # No badge from validator.swagger.io: it would send the schema's address elsewhere, and
    # the Content-Security-Policy refuses images from elsewhere.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # A PATCH of Cloak's reads its body whole (the version and what it changes): its fields
    # are required as the serializer says, not all optional as in DRF's partial updates.
    "COMPONENT_SPLIT_PATCH": False,
    # The main operations' examples (annotator.api.schema.OPERATION_EXAMPLES).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "annotator.api.schema.add_examples",
    ],
    # Path parameters as the URL converters match them, so a request the schema allows
    # always reaches a view.
    "PATH_CONVERTER_OVERRIDES": {
        "int": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1},
        "slug": {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$"},
    },
    "ENUM_NAME_OVERRIDES": {
        "DocumentStatusEnum": "annotator.models.DocumentStatus.choices",
        "SpanStatusEnum": "annotator.models.SpanStatus.choices",
        "ReviewStatusEnum": "annotator.models.ReviewStatus.choices",
        "ImportStatusEnum": "annotator.models.JOB_STATUSES",
        "RunStatusEnum": "annotator.models.RUN_STATUSES",
        "ReleaseStatusEnum": "annotator.models.RELEASE_STATUSES",
        "ReleaseFormatEnum": "annotator.models.ReleaseFormat.choices",
        "StrategyEnum": "annotator.models.STRATEGY_CHOICES",
    },
}

# --- Cloak's own ---------------------------------------------------------------------------
# The secret that seals the keys: it encrypts the originals of the correspondence table and
# the learned models at rest, and keys the digests they are looked up by. Losing it loses the
# keys. Required with DEBUG off (cloak.E001: `check --deploy` fails, and gunicorn, Celery and
# manage.py refuse to start, annotator.checks); only a development install (`make run`,
# DEBUG on) falls back to SECRET_KEY.
CLOAK_KEYS_SECRET = env_str("CLOAK_KEYS_SECRET", "") or SECRET_KEY
# Imports larger than this (the file, or a zip's uncompressed content) are refused.
CLOAK_IMPORT_MAX_BYTES = env_int("CLOAK_IMPORT_MAX_BYTES", 512 * 1024 * 1024)
# A zip whose content is this many times larger than the zip itself is taken for a bomb.
CLOAK_IMPORT_MAX_ZIP_RATIO = env_int("CLOAK_IMPORT_MAX_ZIP_RATIO", 200)
# Documents checked and written together: what an import holds in memory at once (a third of
# its memory above Django's own at 2,000; ~4 MB at 1,000), with no measurable loss of speed.
CLOAK_IMPORT_BATCH_SIZE = env_int("CLOAK_IMPORT_BATCH_SIZE", 1000)
# A running job (import, run, release) that has reported nothing for this many seconds is
# taken for dead: the reaper fails it and a redelivered task may claim it again.
CLOAK_JOB_STALE_AFTER = env_int("CLOAK_JOB_STALE_AFTER", 600)
# A queued job no worker took for this many seconds, while no worker had anything else to do,
# lost its task: the reaper sends it again, once, and fails it when this many seconds pass
# again (an import's upload is deleted). See jobs_reap.
CLOAK_JOB_QUEUED_TIMEOUT = env_int("CLOAK_JOB_QUEUED_TIMEOUT", 1800)
# Decisions new to the correspondence table within this many seconds of each other are
# propagated in one pass (annotator.services.propagation): the pass starts this long after the
# first of them.
CLOAK_PROPAGATION_WINDOW = env_int("CLOAK_PROPAGATION_WINDOW", 5)
FILE_UPLOAD_TEMP_DIR = None
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
# A request's line and header fields, refused over these (414, 431) by annotator.middleware,
# with `{"detail": ...}` under /api/: gunicorn's own defaults, which gunicorn.conf.py raises so
# that Django, not gunicorn's HTML page, answers what goes past them.
CLOAK_REQUEST_LINE_MAX_BYTES = 4094
CLOAK_REQUEST_FIELDS_MAX = 100
CLOAK_REQUEST_FIELD_MAX_BYTES = 8190

# NER models per language: a local path or a hub name. "spacy:<package>" picks a spaCy
# pipeline installed as a package; an empty value means regex and known entities only.
# The defaults are the engine's (`pseudonymizer.detection`, a light module to import).
CLOAK_NER_MODELS = {
    language: env_str(f"CLOAK_NER_MODEL_{language.upper()}", default)
    for language, default in DEFAULT_NER_MODELS.items()
}
CLOAK_NER_DEVICE = env_str("CLOAK_NER_DEVICE", "auto")
CLOAK_NER_BATCH_SIZE = env_int("CLOAK_NER_BATCH_SIZE", 16)
# Documents a pre-annotation run hands a worker at once: one NER call, one transaction.
CLOAK_RUN_BATCH_SIZE = env_int("CLOAK_RUN_BATCH_SIZE", 64)
# How often a run's task retries a transient failure (database, broker, GPU memory) before
# its batch is marked failed; it waits a random time below 2, 4, 8… seconds (two minutes at most).
CLOAK_RUN_MAX_RETRIES = env_int("CLOAK_RUN_MAX_RETRIES", 5)
# Each project's learned model per language (annotator.services.learning): retrained by a task
# after every CLOAK_LEARN_EVERY decisions people make in that language (0: only when an admin
# asks), for CLOAK_LEARN_ITERATIONS passes, once the language's finished documents hold at
# least CLOAK_LEARN_MIN_SPANS decided spans.
CLOAK_LEARN_EVERY = env_int("CLOAK_LEARN_EVERY", 200)
CLOAK_LEARN_ITERATIONS = env_int("CLOAK_LEARN_ITERATIONS", 20)
CLOAK_LEARN_MIN_SPANS = env_int("CLOAK_LEARN_MIN_SPANS", 20)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("CLOAK_LOG_LEVEL", "INFO")},
}
