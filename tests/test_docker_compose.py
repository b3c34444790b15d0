"""docker-compose.yml is valid for Debian's docker-compose 1.29 and wires the services right.

`docker-compose config` needs no Docker engine; it parses, validates and interpolates the file.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
SECRETS = {
    "DJANGO_SECRET_KEY": "test-secret-key",
    "CLOAK_KEYS_SECRET": "test-keys-secret",
    "POSTGRES_PASSWORD": "test-admin-password",
    "CLOAK_DB_PASSWORD": "test-app-password",
    "CLOAK_KEYS_DB_PASSWORD": "test-keys-password",
}
CLOAK_SERVICES = ("web", "worker", "beat", "gpu-worker")


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


@pytest.mark.parametrize("missing", sorted(SECRETS))
def test_it_refuses_to_start_without_each_secret(missing: str) -> None:
    others = {name: value for name, value in SECRETS.items() if name != missing}

    result = _compose("config", "-q", env=_env(**others))

    assert result.returncode != 0
    assert missing in result.stderr


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


def test_one_one_shot_service_provisions_the_keys_and_migrates_before_the_others() -> None:
    services = _config()["services"]

    migrate = services["migrate"]
    assert migrate["command"] == ["python", "manage.py", "provision_keys_db"]
    assert migrate["restart"] == "no"
    assert migrate["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    # Nobody else migrates, or knows the administrator's password.
    assert not [n for n, s in services.items() if "RUN_MIGRATIONS" in s.get("environment", {})]
    holders = {n for n, s in services.items() if "DATABASE_ADMIN_URL" in s.get("environment", {})}
    assert holders == {"migrate"}
    admin_url = migrate["environment"]["DATABASE_ADMIN_URL"]
    assert admin_url.startswith(f"postgres://postgres:{SECRETS['POSTGRES_PASSWORD']}@postgres:")
    for name in CLOAK_SERVICES:
        condition = services[name]["depends_on"]["migrate"]["condition"]
        assert condition == "service_completed_successfully", name


def test_the_keys_get_a_role_and_schema_that_the_web_role_is_not() -> None:
    services = _config()["services"]

    assert services["postgres"]["environment"]["POSTGRES_USER"] == "postgres"
    for name in (*CLOAK_SERVICES, "migrate"):
        env = services[name]["environment"]
        app = urlsplit(env["DATABASE_URL"])
        keys = urlsplit(env["KEYS_DATABASE_URL"])
        assert (app.username, app.password) == ("cloak_app", SECRETS["CLOAK_DB_PASSWORD"]), name
        assert (keys.username, keys.password) == (
            "cloak_keys",
            SECRETS["CLOAK_KEYS_DB_PASSWORD"],
        ), name
        assert (keys.hostname, keys.path) == (app.hostname, app.path), name
        assert parse_qs(keys.query) == {"schema": ["cloak_keys"]}, name


def test_the_deployment_is_served_over_https_behind_a_proxy() -> None:
    services = _config()["services"]

    for name in CLOAK_SERVICES:
        env = services[name]["environment"]
        assert env["CLOAK_HTTPS"] == "1", name
        assert env["CLOAK_BEHIND_PROXY"] == "1", name
        assert env["DJANGO_DEBUG"] == "false", name


def test_every_cloak_service_gets_the_shared_settings_and_waits_for_healthy_stores() -> None:
    services = _config()["services"]

    for name in CLOAK_SERVICES:
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


def test_the_access_log_leaves_out_query_strings_and_referrers() -> None:
    # A lead's search of the key table is a GET with the name in its query string.
    command = _config()["services"]["web"]["command"]

    (log_format,) = [arg for arg in command if arg.startswith("--access-logformat=")]
    assert "%(U)s" in log_format
    for field in ("%(r)s", "%(q)s", "%(f)s", "%({"):
        assert field not in log_format


def test_the_image_logs_access_as_docker_compose_does() -> None:
    dockerfile = (REPO_ROOT / "Dockerfile").read_text(encoding="utf-8")
    (cmd,) = dockerfile.split("\nCMD ")[1:]
    arguments = json.loads(cmd.replace("\\\n", "").strip())
    log_format = arguments[arguments.index("--access-logformat") + 1]
    compose = [
        arg
        for arg in _config()["services"]["web"]["command"]
        if arg.startswith("--access-logformat=")
    ]
    assert compose == [f"--access-logformat={log_format}"]


def _deployment_section() -> str:
    readme = (REPO_ROOT / "README.md").read_text()
    start = readme.index("## Deploying with docker-compose")
    end = readme.index("\n## ", start + 1)
    return readme[start:end]


def test_the_readmes_deployment_commands_name_the_services_and_database_of_the_file() -> None:
    config = _config()
    services = config["services"]
    section = _deployment_section()
    named = re.findall(
        r"docker-compose (?:exec -T|exec|run --rm|up -d) ([a-z][a-z_-]*(?: [a-z][a-z_-]*)*)",
        section,
    )
    assert named, "no docker-compose command in the README's deployment section"
    for group in named:
        for service in group.split():
            if service in ("python", "psql", "pg_dump", "pg_restore", "tar", "git"):
                break  # the command run inside the container starts here
            assert service in services, f"README names a service compose lacks: {service}"
    # The dumps and restores go through the administrator to the database of DATABASE_URL.
    postgres = services["postgres"]["environment"]
    assert postgres["POSTGRES_USER"] == "postgres"
    assert f"-U postgres -d {postgres['POSTGRES_DB']}" in section
    assert urlsplit(services["web"]["environment"]["DATABASE_URL"]).path == "/cloak"
    # Its backup of the releases names the folder that the workers write them to.
    var_dir = services["worker"]["environment"]["CLOAK_VAR_DIR"]
    assert f"-C {var_dir} -czf - media/releases" in section
    # Upgrades: the one-shot service that provisions the keys and migrates, then the rest.
    assert "docker-compose run --rm migrate" in section
    assert services["migrate"]["command"][-1] == "provision_keys_db"
    # Every secret compose requires is in its table.
    for secret in SECRETS:
        assert f"`{secret}`" in section, secret
