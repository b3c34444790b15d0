# Cloak's image: the web app (gunicorn + whitenoise) and the Celery workers.
#
#   docker build -t cloak .                               # CPU torch (web, default-queue worker)
#   docker build --build-arg TORCH_VARIANT=cu126 -t cloak:cu126 .   # CUDA torch (ner-queue worker)
#
# docker-compose.yml builds both; see it for the services and their environment.
FROM python:3.11-slim

# Which PyTorch wheel index torch comes from: cpu, or a CUDA build such as cu126. The version is
# the one pinned in pyproject.toml's `ml` extra; keep the two in step.
ARG TORCH_VARIANT=cpu
ARG TORCH_VERSION=2.13.0

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=annotator.settings \
    PYTHONPATH=/app \
    CLOAK_VAR_DIR=/var/lib/cloak \
    CLOAK_STATIC_ROOT=/app/staticfiles \
    HF_HOME=/models

RUN useradd --system --user-group --uid 10001 --home-dir /app --shell /usr/sbin/nologin cloak

WORKDIR /app

# Dependencies first, from pyproject.toml alone, so that editing the code does not reinstall
# torch. torch comes from PyTorch's own index for the chosen variant; everything else from PyPI
# (pip then keeps the torch already installed, since 2.13.0+cpu satisfies ==2.13.0).
COPY pyproject.toml ./
RUN pip install --index-url "https://download.pytorch.org/whl/${TORCH_VARIANT}" \
        "torch==${TORCH_VERSION}" \
 && python -c "import tomllib; p = tomllib.load(open('pyproject.toml', 'rb'))['project']; print('\n'.join(p['dependencies'] + p['optional-dependencies']['ml']))" \
        > /tmp/requirements.txt \
 && pip install --extra-index-url "https://download.pytorch.org/whl/${TORCH_VARIANT}" \
        -r /tmp/requirements.txt \
 && rm /tmp/requirements.txt

COPY . .
# The project itself, with the ml extra (already satisfied above, so nothing is fetched twice).
RUN pip install --extra-index-url "https://download.pytorch.org/whl/${TORCH_VARIANT}" ".[ml]" \
 && chmod 0755 docker/entrypoint.sh

# Static files are collected into the image (CLOAK_STATIC_ROOT, outside the data volume) and
# stay root-owned, so a rebuilt image always serves its own; the secret is a throwaway,
# collectstatic signs nothing. CLOAK_VAR_DIR (uploads, demo credentials) is the volume.
RUN DJANGO_SECRET_KEY=collectstatic-only-not-a-secret python manage.py collectstatic --noinput \
 && mkdir -p /var/lib/cloak/media /models \
 && chown cloak:cloak /var/lib/cloak /var/lib/cloak/media /models

USER cloak
EXPOSE 8000

ENTRYPOINT ["/app/docker/entrypoint.sh"]
# The access log leaves out the query string and the referrer: a lead's key search (?q=) names
# a person (docker-compose's web service says the same).
CMD ["gunicorn", "annotator.wsgi:application", "--bind", "0.0.0.0:8000", "--access-logfile", "-", \
     "--access-logformat", "%(h)s %(l)s %(u)s %(t)s \"%(m)s %(U)s %(H)s\" %(s)s %(b)s \"%(a)s\""]
