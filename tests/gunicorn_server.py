"""A gunicorn serving Cloak from the repository's root (so it reads gunicorn.conf.py, as
deployed), for tests that send it what only a real server parses. Its socket is bound and
listening before gunicorn starts (`--bind=fd://N`): the port is never free in between."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import requests

from tests.e2e.stack import listening_socket

REPO_ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def serving(env: Mapping[str, str], folder: Path, workers: int = 1) -> Iterator[str]:
    """A gunicorn with `env`, its log in `folder`; its base URL once it answers."""
    log_path = folder / "gunicorn.log"
    with log_path.open("wb") as log:
        listening = listening_socket()
        port = int(listening.getsockname()[1])
        with listening:
            fd = listening.fileno()
            server = subprocess.Popen(
                [str(Path(sys.executable).parent / "gunicorn"), "annotator.wsgi:application",
                 f"--bind=fd://{fd}", "--workers", str(workers), "--timeout", "60"],
                cwd=REPO_ROOT, env=dict(env), stdout=log, stderr=subprocess.STDOUT,
                pass_fds=(fd,),
            )  # fmt: skip
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    requests.get(f"{base}/healthz/", timeout=10)
                    break
                except requests.RequestException:
                    if server.poll() is not None or time.monotonic() > deadline:
                        raise RuntimeError(log_path.read_text()) from None
                    time.sleep(0.2)
            yield base
        finally:
            server.terminate()
            server.wait(timeout=30)
