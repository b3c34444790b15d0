"""docker-compose.yml is valid for Debian's docker-compose 1.29 and wires the services right.

`docker-compose config` needs no Docker engine; it parses, validates and interpolates the file.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
SECRETS = {"DJANGO_SECRET_KEY": "test-secret-key", "CLOAK_KEYS_SECRET": "test-keys-secret"}


def _compose(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("docker-compose")
    if binary is None:
        pytest.fail(
            "docker-compose is not installed; `make test` installs it "
            "(apt-get install -y docker-compose)"
        )
    return subprocess.run(
        [binary, "-f", "docker-compose.yml", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _env(**overrides: str) -> dict[str, str]:
    # Start from a clean slate: a developer's own exports must not decide the outcome.
    env = {k: v for k, v in os.environ.items() if k not in SECRETS}
    env.update(overrides)
    return env


def _config() -> dict[str, Any]:
    result = _compose("config", env=_env(**SECRETS))
    assert result.returncode == 0, result.stderr
    config: dict[str, Any] = yaml.safe_load(result.stdout)
    return config


def test_it_validates_with_the_secrets_set() -> None:
    result = _compose("config", "-q", env=_env(**SECRETS))

    assert result.returncode == 0, result.stderr


def test_it_refuses_to_start_without_the_django_secret_key() -> None:
    result = _compose("config", "-q", env=_env(CLOAK_KEYS_SECRET="test-keys-secret"))

    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr


def test_it_refuses_to_start_without_the_keys_secret() -> None:
    result = _compose("config", "-q", env=_env(DJANGO_SECRET_KEY="test-secret-key"))

    assert result.returncode != 0
    assert "CLOAK_KEYS_SECRET" in result.stderr


def test_the_gpu_worker_consumes_the_ner_queue_on_an_nvidia_gpu() -> None:
    gpu = _config()["services"]["gpu-worker"]

    command = gpu["command"]
    assert command[command.index("-Q") + 1] == "ner"
    assert gpu["build"]["args"]["TORCH_VARIANT"] == "cu126"
    (device,) = gpu["deploy"]["resources"]["reservations"]["devices"]
    assert device["driver"] == "nvidia"
    assert device["capabilities"] == ["gpu"]
    assert gpu["environment"]["CLOAK_NER_DEVICE"] == "cuda"
    assert gpu["environment"]["HF_HOME"] == "/models"
    assert all(gpu["environment"][f"CLOAK_NER_MODEL_{lang}"] for lang in ("EN", "FR", "AR"))
    assert any(volume.startswith("models:/models") for volume in gpu["volumes"])


def test_the_cpu_worker_consumes_the_default_queue() -> None:
    command = _config()["services"]["worker"]["command"]

    assert command[command.index("-Q") + 1] == "default"


def test_only_the_web_service_runs_migrations() -> None:
    services = _config()["services"]

    migrating = {
        name for name, s in services.items() if "RUN_MIGRATIONS" in s.get("environment", {})
    }
    assert migrating == {"web"}
    assert services["web"]["environment"]["RUN_MIGRATIONS"] == "1"


def test_every_cloak_service_gets_the_shared_settings_and_waits_for_healthy_stores() -> None:
    services = _config()["services"]

    for name in ("web", "worker", "gpu-worker"):
        env = services[name]["environment"]
        assert env["DJANGO_SECRET_KEY"] == SECRETS["DJANGO_SECRET_KEY"], name
        assert env["CLOAK_KEYS_SECRET"] == SECRETS["CLOAK_KEYS_SECRET"], name
        assert env["DATABASE_URL"].startswith("postgres://"), name
        assert env["CLOAK_VAR_DIR"] == "/var/lib/cloak", name
        depends = services[name]["depends_on"]
        assert depends["postgres"]["condition"] == "service_healthy", name
        assert depends["redis"]["condition"] == "service_healthy", name
    assert "healthz" in " ".join(services["web"]["healthcheck"]["test"])


def test_exactly_one_beat_runs_the_schedule_with_the_shared_settings() -> None:
    services = _config()["services"]

    beats = {
        name
        for name, s in services.items()
        if "beat" in s.get("command", []) or "-B" in s.get("command", [])
    }
    assert beats == {"beat"}
    beat = services["beat"]
    assert beat["command"][:4] == ["celery", "-A", "annotator", "beat"]
    assert beat["environment"]["CELERY_BROKER_URL"].startswith("redis://")
    assert beat["environment"]["CLOAK_VAR_DIR"] == "/var/lib/cloak"  # its schedule file
