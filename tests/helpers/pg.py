"""A throwaway PostgreSQL server for the test session (the `backend` parameter).

Started once per session from the server binaries (Debian's ``/usr/lib/postgresql/*/bin``
or ``MEMDESK_PG_BIN``): ``initdb`` into a temporary folder, ``pg_ctl start`` listening on
127.0.0.1 only (no Unix socket) at a free port, stopped and deleted at session end.

PostgreSQL refuses to run as root, so as root the server runs as an unprivileged user
(``postgres``, or ``MEMDESK_PG_USER``) who owns the data folder; otherwise as the
current user.  Authentication is ``trust`` on 127.0.0.1: the server lives for one test
run, holds nothing but test data and is reachable only from this machine.

Each test gets its own database, copied from a template that is migrated once
(``CREATE DATABASE … TEMPLATE``: a file copy, much faster than running the
migrations again).
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


class PgUnavailable(RuntimeError):
    """The server binaries are missing or the server did not start (reason in the text)."""


def find_bin() -> Path | None:
    """The folder holding initdb/pg_ctl, newest version first, or None."""
    env = os.environ.get("MEMDESK_PG_BIN")
    if env:
        return Path(env)
    for cand in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True,
                       key=lambda p: int(Path(p).parent.name) if Path(p).parent.name.isdigit()
                       else 0):
        if (Path(cand) / "pg_ctl").exists():
            return Path(cand)
    found = shutil.which("pg_ctl")
    return Path(found).parent if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PgServer:
    """A running throwaway server; ``url(db)`` names one of its databases."""

    bin_dir: Path
    root: Path
    port: int
    user: str | None  # OS user the server runs as (None: the current user)
    # Tests trade durability for speed (no fsync, asynchronous commit); a benchmark
    # of write throughput must not.
    durable: bool = False
    _names: itertools.count = field(default_factory=lambda: itertools.count(1))

    @property
    def data(self) -> Path:
        return self.root / "data"

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = [str(self.bin_dir / args[0]), *args[1:]]
        if self.user is not None:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, check=check, timeout=120)

    def start(self) -> None:
        if self.user is not None:
            pw = pwd.getpwnam(self.user)
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
        # The server user must be able to reach its data folder through every parent.
        init = self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust",
                         "-E", "UTF8", "--locale=C", *(() if self.durable else ("--no-sync",)),
                         check=False)
        if init.returncode:
            raise PgUnavailable(f"initdb failed: {init.stderr.strip() or init.stdout.strip()}")
        opts = (f"-c listen_addresses=127.0.0.1 -p {self.port} -c unix_socket_directories='' "
                "-c max_connections=200 -c shared_buffers=128MB")
        if not self.durable:
            opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        started = self._run("pg_ctl", "-D", str(self.data), "-o", opts, "-l",
                            str(self.root / "server.log"), "-w", "-t", "60", "start",
                            check=False)
        if started.returncode:
            log = (self.root / "server.log")
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise PgUnavailable(f"pg_ctl start failed: {started.stderr.strip()}\n{tail}")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop", check=False)
        shutil.rmtree(self.root, ignore_errors=True)

    def admin(self, sql: str) -> None:
        """Run one statement on the maintenance database, outside a transaction."""
        import psycopg

        conninfo = f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres"
        with psycopg.connect(conninfo, autocommit=True) as conn:
            conn.execute(sql)

    def new_database(self, template: str | None = None, prefix: str = "t") -> str:
        """Create an empty (or template-copied) database; returns its URL."""
        name = f"{prefix}_{os.getpid()}_{next(self._names)}"
        tpl = f" TEMPLATE {template}" if template else ""
        self.admin(f"CREATE DATABASE {name}{tpl}")
        return self.url(name)

    def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[1]
        self.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def start_server(*, durable: bool = False) -> PgServer:
    """Start a server or raise PgUnavailable with the reason."""
    bin_dir = find_bin()
    if bin_dir is None:
        raise PgUnavailable("PostgreSQL server binaries not found (apt-get install postgresql, "
                            "or set MEMDESK_PG_BIN to the folder holding pg_ctl)")
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise PgUnavailable("psycopg is not installed (pip install -e '.[postgres]')") from exc
    user: str | None = None
    if os.geteuid() == 0:
        user = os.environ.get("MEMDESK_PG_USER", "postgres")
        try:
            pwd.getpwnam(user)
        except KeyError as exc:
            raise PgUnavailable(f"running as root and there is no user {user!r} to run "
                                "the server as (set MEMDESK_PG_USER)") from exc
    # /tmp, not pytest's tmp dir: the server user must be able to traverse every parent.
    root = Path(tempfile.mkdtemp(prefix="memdesk-pg-"))
    os.chmod(root, 0o700)
    server = PgServer(bin_dir, root, _free_port(), user, durable=durable)
    try:
        server.start()
    except BaseException:
        with contextlib.suppress(Exception):
            server.stop()
        raise
    return server
