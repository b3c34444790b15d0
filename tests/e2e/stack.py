"""Cloak as docker-compose runs it, on this machine and without Docker: a database of its own
with the two roles `provision_keys_db` makes, a Redis server of its own, gunicorn with several
workers, a Celery worker on both queues and beat, each started with the command that
docker-compose.yml gives its service. Nothing runs inside a test transaction: every request
is a real one, in autocommit, as in production.

`Stack.start()` brings it all up in a folder and `Stack.stop()` takes down what it started,
the database and its roles included. The processes' logs stay in the folder; `Stack.logs()`
reads them (a failing test prints their tails).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shlex
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg
import redis
import requests
import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = REPO_ROOT / "docker-compose.yml"
BIN = Path(sys.executable).parent
KEYS_SCHEMA = "cloak_keys"
# gunicorn workers: more than one, so that a lock or a cache that only works inside one process
# fails here as it would in production.
WEB_WORKERS = 3
START_TIMEOUT_S = 120


class StackError(RuntimeError):
    """The stack could not start; the message says which part and why."""


def free_port() -> int:
    """A port that was free a moment ago. Another process may take it before the caller binds
    it: only for a server that can say so and start again (redis-server, `_start_redis`)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def listening_socket() -> socket.socket:
    """A TCP socket on 127.0.0.1, bound to a port the kernel picks and listening: the port is
    held from the moment it is chosen, with no window in which another process could take it.
    A server that inherits the socket serves on it (gunicorn's `--bind=fd://N`)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", 0))
        # Listening, not only bound: a connection made before gunicorn is up waits instead of
        # being refused, and once gunicorn sets SO_REUSEADDR on it, a bound socket that is not
        # listening could share its port with another. gunicorn keeps a socket that already
        # listens as it is: the backlog is gunicorn's default.
        sock.listen(2048)
    except BaseException:
        sock.close()
        raise
    return sock


def compose_command(service: str) -> list[str]:
    """The command docker-compose.yml runs for `service`, as a list of arguments."""
    services = yaml.safe_load(COMPOSE_FILE.read_text(encoding="utf-8"))["services"]
    command = services[service]["command"]
    return list(command) if isinstance(command, list) else shlex.split(command)


def _local(command: list[str]) -> list[str]:
    """A compose command as this machine runs it: the image's programs are the virtualenv's."""
    program, *arguments = command
    if program == "python":
        return [sys.executable, *arguments]
    return [str(BIN / program), *arguments]


@dataclass(frozen=True)
class Postgres:
    """The cluster's administrator, as the test settings reach it (trust or password auth)."""

    host: str
    port: int
    user: str
    password: str

    @classmethod
    def from_settings(cls, database: Mapping[str, Any]) -> Postgres:
        return cls(
            host=str(database.get("HOST") or "127.0.0.1"),
            port=int(database.get("PORT") or 5432),
            user=str(database.get("USER") or "postgres"),
            password=str(database.get("PASSWORD") or ""),
        )

    def url(self, user: str, password: str, dbname: str, query: str = "") -> str:
        login = quote(user, safe="") + (f":{quote(password, safe='')}" if password else "")
        return f"postgres://{login}@{self.host}:{self.port}/{dbname}{query}"

    def connect(self, dbname: str = "postgres") -> psycopg.Connection[Any]:
        return psycopg.connect(
            host=self.host, port=self.port, user=self.user, password=self.password or None,
            dbname=dbname, autocommit=True,
        )  # fmt: skip


@dataclass
class Stack:
    folder: Path
    postgres: Postgres
    uid: str = field(default_factory=lambda: uuid.uuid4().hex[:10])
    # Both chosen by `start`: the web's with its socket, which gunicorn inherits.
    web_port: int = 0
    redis_port: int = 0
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    _created_database: bool = False
    # The web's listening socket, from `start` until gunicorn has its copy.
    _web_socket: socket.socket | None = field(default=None, repr=False)

    @property
    def dbname(self) -> str:
        return f"cloak_e2e_{self.uid}"

    @property
    def app_role(self) -> str:
        return f"cloak_e2e_app_{self.uid}"

    @property
    def keys_role(self) -> str:
        return f"cloak_e2e_keys_{self.uid}"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    @property
    def var_dir(self) -> Path:
        return self.folder / "var"

    def log_path(self, name: str) -> Path:
        return self.folder / f"{name}.log"

    # --- Starting ----------------------------------------------------------------------------

    def start(self) -> Stack:
        self.var_dir.mkdir(parents=True, exist_ok=True)
        try:
            # The web's port is held from here on: its URL is in the environment.
            self._web_socket = listening_socket()
            self.web_port = int(self._web_socket.getsockname()[1])
            self._start_redis()
            self.env = self._environment()
            # Set first: a provisioning that fails half-way leaves roles and a database to drop.
            self._created_database = True
            self.manage("provision_keys_db", admin=True)
            self.manage("collectstatic", "--noinput", "--verbosity", "0")
            self._start_web()
            self._start_worker()
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _environment(self) -> dict[str, str]:
        """What docker-compose.yml's x-cloak-env gives every container, for this stack."""
        app_password = secrets.token_urlsafe(18)
        keys_password = secrets.token_urlsafe(18)
        redis = f"redis://127.0.0.1:{self.redis_port}"
        keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV")
        env = {key: os.environ[key] for key in keep if key in os.environ}
        env.update(
            DJANGO_SETTINGS_MODULE="annotator.settings",
            DJANGO_SECRET_KEY=secrets.token_urlsafe(40),
            CLOAK_KEYS_SECRET=secrets.token_urlsafe(40),
            DJANGO_DEBUG="false",
            DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
            DJANGO_CSRF_TRUSTED_ORIGINS=self.url,
            DATABASE_URL=self.postgres.url(self.app_role, app_password, self.dbname),
            KEYS_DATABASE_URL=self.postgres.url(
                self.keys_role, keys_password, self.dbname, f"?schema={KEYS_SCHEMA}"
            ),
            # Plain HTTP on localhost: no proxy in front to terminate TLS.
            CLOAK_HTTPS="0",
            CLOAK_BEHIND_PROXY="0",
            REDIS_URL=f"{redis}/0",
            CELERY_BROKER_URL=f"{redis}/0",
            CACHE_URL=f"{redis}/1",
            CLOAK_VAR_DIR=str(self.var_dir),
            CLOAK_STATIC_ROOT=str(self.folder / "static"),
            CLOAK_LOG_LEVEL="INFO",
            # The reaper every few seconds instead of minutes, so that a test can watch it.
            CLOAK_JOBS_REAP_EVERY="5",
            CLOAK_RUN_BATCH_SIZE="2",
            # Long enough that a test's decisions made one after the other share a pass.
            CLOAK_PROPAGATION_WINDOW="3",
            # The models stay the offline defaults; no hub is reachable.
            HF_HUB_OFFLINE="1",
            TRANSFORMERS_OFFLINE="1",
            PYTHONUNBUFFERED="1",
        )
        return env

    def manage(
        self, *arguments: str, admin: bool = False, check: bool = True, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        """`python manage.py …` as the `migrate` service (with the administrator's URL,
        `admin`) or as any other container runs it."""
        env = dict(self.env)
        if admin:
            env["DATABASE_ADMIN_URL"] = self.postgres.url(
                self.postgres.user, self.postgres.password, "postgres"
            )
        done = subprocess.run(
            [sys.executable, "manage.py", *arguments],
            cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=timeout,
            check=False,
        )  # fmt: skip
        if check and done.returncode != 0:
            raise StackError(
                f"manage.py {arguments[0]} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
            )
        return done

    def _spawn(self, name: str, command: list[str], pass_fds: tuple[int, ...] = ()) -> None:
        log = self.log_path(name).open("ab")
        self.processes[name] = subprocess.Popen(
            command, cwd=REPO_ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True, pass_fds=pass_fds,
        )  # fmt: skip
        log.close()

    def _start_redis(self, attempts: int = 5) -> None:
        """redis-server on a free port. It cannot be handed a bound socket, so its port is
        free a moment before it binds it: when another process took the port in between,
        redis-server exits saying so, and it starts again on another port."""
        log = self.log_path("redis")
        for _ in range(attempts):
            self.redis_port = free_port()
            offset = log.stat().st_size if log.exists() else 0
            command = [
                "redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", str(self.folder),
            ]  # fmt: skip
            self._spawn("redis", command)
            if self._redis_answers():
                return
            with log.open("rb") as said:
                said.seek(offset)
                if b"Address already in use" not in said.read():
                    break
            _terminate(self.processes.pop("redis"))
        raise StackError(f"redis-server did not start:\n{self.tail('redis')}")

    def _redis_answers(self, timeout: float = 20) -> bool:
        """Whether this stack's redis-server answers on `redis_port` (True), or exited (False):
        the server that answers must be this one (its process id), not one that holds the
        port that this one failed to bind."""
        process = self.processes["redis"]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return False
            client = redis.Redis(
                host="127.0.0.1", port=self.redis_port, socket_timeout=1,
                socket_connect_timeout=1,
            )  # fmt: skip
            try:
                if client.info("server").get("process_id") == process.pid:
                    return True
            except Exception:  # noqa: BLE001 - whatever holds the port may answer anything
                pass
            finally:
                client.close()
            time.sleep(0.1)
        return False

    def _start_web(self) -> None:
        # gunicorn serves on the socket `start` bound (`--bind=fd://N`): the port was never
        # free for another process to take.
        listening, self._web_socket = self._web_socket, None
        if listening is None:
            raise StackError("the web's socket is gone: start() binds it")
        with listening:
            fd = listening.fileno()
            command = []
            for argument in compose_command("web"):
                if argument.startswith("--bind"):
                    argument = f"--bind=fd://{fd}"
                elif argument.startswith("--access-logfile"):
                    argument = f"--access-logfile={self.log_path('access')}"
                command.append(argument)
            self._spawn("web", _local([*command, f"--workers={WEB_WORKERS}"]), pass_fds=(fd,))
        # gunicorn has its own copy now; closing this one frees the port when gunicorn exits.

    def _start_worker(self) -> None:
        self._spawn_worker()
        # Beat as its own process, exactly one, as compose runs it.
        self._spawn("beat", _local(compose_command("beat")))

    def _spawn_worker(self) -> None:
        # One worker on both queues: compose splits them between a CPU and a GPU host.
        worker = compose_command("worker")
        worker[worker.index("-Q") + 1] = "default,ner"
        self._spawn("worker", _local([*worker, "--concurrency=2"]))

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        web = worker = False
        while time.monotonic() < deadline:
            for name, process in self.processes.items():
                if process.poll() is not None:
                    raise StackError(f"{name} exited {process.returncode}:\n{self.tail(name)}")
            if not web:
                with contextlib.suppress(requests.RequestException):
                    web = requests.get(f"{self.url}/healthz/", timeout=2).status_code == 200
            if not worker:
                worker = " ready." in self.log_path("worker").read_text(errors="replace")
            if web and worker:
                return
            time.sleep(0.3)
        raise StackError(
            f"the stack was not ready in {START_TIMEOUT_S} s (web {web}, worker {worker}):\n"
            + "\n".join(self.tail(name) for name in self.processes)
        )

    # --- While it runs ---------------------------------------------------------------------

    def tail(self, name: str, lines: int = 40) -> str:
        path = self.log_path(name)
        if not path.exists():
            return f"--- {name}: no log"
        text = path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]
        return f"--- {name} (last {len(text)} lines)\n" + "\n".join(text)

    def logs(self) -> dict[str, str]:
        """Every process's log, whole, by name."""
        return {
            path.stem: path.read_text(encoding="utf-8", errors="replace")
            for path in sorted(self.folder.glob("*.log"))
        }

    def sql(self, query: str, *params: Any) -> list[tuple[Any, ...]]:
        """A read as the administrator, for what no API shows (and a test must check)."""
        with self.postgres.connect(self.dbname) as conn:
            return list(conn.execute(query, params).fetchall())

    def sql_as_web(self, query: str, *params: Any) -> list[tuple[Any, ...]]:
        """A read as the web pages' role (`DATABASE_URL`), as someone who holds its password
        would read: what it may see, and only that."""
        with psycopg.connect(self.env["DATABASE_URL"]) as conn:
            return list(conn.execute(query, params).fetchall())

    def wait_idle(self, timeout: float = 120) -> None:
        """Wait until the worker has nothing left to do: both queues empty and no task running
        or reserved, twice in a row (a task may queue another). Tasks held back for later
        (a countdown) do not count, but for a propagation pass, which waits for the
        decisions of its window (CLOAK_PROPAGATION_WINDOW) and then changes spans: none of
        the others changes a span."""
        from celery import Celery

        broker = self.env["CELERY_BROKER_URL"]
        app = Celery(broker=broker)
        queues = redis.Redis.from_url(broker)
        deadline = time.monotonic() + timeout
        calm = 0
        try:
            while time.monotonic() < deadline:
                waiting = sum(int(queues.llen(name)) for name in ("default", "ner"))
                inspect = app.control.inspect(timeout=1.0)
                busy = sum(
                    len(tasks)
                    for answer in (inspect.active(), inspect.reserved())
                    for tasks in (answer or {}).values()
                )
                busy += sum(
                    1
                    for tasks in (inspect.scheduled() or {}).values()
                    for task in tasks
                    if task.get("request", {}).get("name") == "annotator.tasks.propagate"
                )
                calm = calm + 1 if waiting == 0 and busy == 0 else 0
                if calm >= 2:
                    return
                time.sleep(0.3)
        finally:
            queues.close()
            app.close()
        raise StackError(f"the worker was still busy after {timeout} s:\n{self.tail('worker')}")

    def kill(self, name: str) -> None:
        """Kill a process and its children at once (a host that dies), as SIGKILL does."""
        process = self.processes.pop(name)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)

    def restart_worker(self) -> None:
        """Start the worker again (after `kill`), and wait until it says it is ready."""
        log = self.log_path("worker")
        offset = log.stat().st_size if log.exists() else 0
        self._spawn_worker()
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            with log.open("rb") as lines:
                lines.seek(offset)
                if b" ready." in lines.read():
                    return
            time.sleep(0.3)
        raise StackError(f"the worker did not start again:\n{self.tail('worker')}")

    # --- Stopping ----------------------------------------------------------------------------

    def stop(self) -> None:
        """Stop every process (TERM, then KILL), drop the database and its roles."""
        if self._web_socket is not None:
            self._web_socket.close()
            self._web_socket = None
        for name in ("web", "beat", "worker"):
            process = self.processes.pop(name, None)
            if process is not None:
                _terminate(process)
        if self._created_database:
            with contextlib.suppress(psycopg.Error), self.postgres.connect() as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{self.dbname}" WITH (FORCE)')
                for role in (self.app_role, self.keys_role):
                    conn.execute(f'DROP ROLE IF EXISTS "{role}"')
        for process in self.processes.values():
            _terminate(process)
        self.processes.clear()


def _terminate(process: subprocess.Popen[bytes], grace: float = 20) -> None:
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=grace)


@contextlib.contextmanager
def running_stack(folder: Path, postgres: Postgres) -> Iterator[Stack]:
    stack = Stack(folder=folder, postgres=postgres).start()
    try:
        yield stack
    finally:
        stack.stop()
