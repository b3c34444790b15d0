import os

from django.core.wsgi import get_wsgi_application

from annotator.checks import require_keys_secret

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "annotator.settings")
application = get_wsgi_application()

# Gunicorn runs no system checks: a worker that would seal the keys with the session key
# fails to boot, and gunicorn stops with the reason (annotator.checks, cloak.E001).
require_keys_secret()
