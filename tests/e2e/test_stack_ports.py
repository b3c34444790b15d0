"""The stack's ports (tests/e2e/stack.py): no other process can take one between the moment
the stack chooses it and the moment its server serves on it. gunicorn inherits a socket that
is already bound and listening; redis-server, which cannot, starts again on another port when
its own was taken, and the server that answers must be this stack's, not the one that took it.
"""

from __future__ import annotations

import errno
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
import requests

from tests.e2e import stack as stack_module
from tests.e2e.stack import BIN, Postgres, Stack, _local, listening_socket

HELLO_APP = """
def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"served on the inherited socket"]
"""


@pytest.fixture
def bare_stack(tmp_path: Path) -> Iterator[Stack]:
    """A stack that starts nothing by itself and never touches the database."""
    stack = Stack(folder=tmp_path, postgres=Postgres("127.0.0.1", 5432, "postgres", ""))
    try:
        yield stack
    finally:
        stack.stop()


def _rival_binds(port: int) -> None:
    """Bind `port` as a server does (SO_REUSEADDR, as gunicorn and redis-server set it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as rival:
        rival.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        rival.bind(("127.0.0.1", port))


def test_the_web_port_is_held_from_the_moment_it_is_chosen() -> None:
    with listening_socket() as held:
        port = held.getsockname()[1]
        with pytest.raises(OSError) as refused:
            _rival_binds(port)
        assert refused.value.errno == errno.EADDRINUSE


@pytest.mark.skipif(not (BIN / "gunicorn").exists(), reason="gunicorn is not installed")
def test_gunicorn_serves_on_the_socket_it_inherits(bare_stack: Stack, tmp_path: Path) -> None:
    (tmp_path / "e2e_hello.py").write_text(HELLO_APP, encoding="utf-8")
    bare_stack.env = {"PATH": str(BIN), "PYTHONPATH": str(tmp_path)}
    with listening_socket() as held:
        port = held.getsockname()[1]
        fd = held.fileno()
        command = ["gunicorn", "e2e_hello:app", f"--bind=fd://{fd}", "--workers=1"]
        bare_stack._spawn("web", _local(command), pass_fds=(fd,))
    # The parent's copy is closed: the port stays gunicorn's, never free for a rival.
    with pytest.raises(OSError):
        _rival_binds(port)
    # Already listening, so the request waits for gunicorn's worker instead of being refused.
    answer = requests.get(f"http://127.0.0.1:{port}/", timeout=60)
    assert answer.text == "served on the inherited socket", bare_stack.tail("web")


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
def test_redis_starts_again_elsewhere_when_its_port_was_taken(
    bare_stack: Stack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another stack's redis-server: it answers PING as this one would.
    (tmp_path / "rival").mkdir()
    rival = Stack(folder=tmp_path / "rival", postgres=bare_stack.postgres)
    try:
        rival._start_redis()
        taken = rival.redis_port
        # The port this stack chooses first is the one the rival took.
        real_free_port = stack_module.free_port
        chosen = iter([taken])
        monkeypatch.setattr(stack_module, "free_port", lambda: next(chosen, 0) or real_free_port())
        bare_stack._start_redis()

        assert bare_stack.redis_port != taken
        assert "Address already in use" in bare_stack.tail("redis")
        client = redis.Redis(host="127.0.0.1", port=bare_stack.redis_port, socket_timeout=5)
        try:
            assert client.info("server")["process_id"] == bare_stack.processes["redis"].pid
        finally:
            client.close()
    finally:
        rival.stop()
