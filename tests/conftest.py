"""Shared fixtures: a fresh file store per test, and a small deterministic demo store."""

from __future__ import annotations

import os
import tempfile
from datetime import datetime
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Automatic and pre-migration backups go to the user data dir; never the real one in tests.
os.environ.setdefault("MEMDESK_BACKUP_DIR", tempfile.mkdtemp(prefix="memdesk-test-backups-"))

from memdesk.core import demo
from memdesk.core.store.memory_store import MemoryStore

DEMO_END = datetime(2026, 11, 1)


# Test modules whose store fixtures run on both backends (the `backend` parameter);
# every other module runs on SQLite only.  PostgreSQL needs the server binaries:
# see tests/pg.py.
BOTH_BACKENDS = frozenset({
    "test_store", "test_fts", "test_undo", "test_contradictions", "test_sweep",
    "test_delta_store", "test_postgres", "test_read_retriever",
})


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    module = metafunc.module.__name__.rsplit(".", 1)[-1]
    if "backend" in metafunc.fixturenames and module in BOTH_BACKENDS:
        metafunc.parametrize("backend", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """"sqlite" (every module) or "postgresql" (the modules in BOTH_BACKENDS, twice)."""
    return getattr(request, "param", "sqlite")


@pytest.fixture(scope="session")
def pg_server():
    """The session's throwaway PostgreSQL server, started on first use.

    Without the binaries the PostgreSQL tests skip, saying why; under CI (CI=true) they
    fail instead, so a CI run can never pass with the PostgreSQL half silently missing.
    """
    from tests import pg

    try:
        server = pg.start_server()
    except pg.PgUnavailable as exc:
        if pg.IN_CI:
            pytest.fail(f"PostgreSQL test server could not start in CI: {exc}", pytrace=False)
        pytest.skip(f"PostgreSQL tests skipped: {exc}")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def pg_template(pg_server) -> str:
    """A database migrated to head once; each test's database is copied from it."""
    url = pg_server.new_database(prefix="tpl")
    MemoryStore.open(url).close()
    return url.rsplit("/", 1)[1]


@pytest.fixture
def pg_url(backend: str, request: pytest.FixtureRequest):
    """A fresh, migrated PostgreSQL database for this test (dropped afterwards)."""
    server = request.getfixturevalue("pg_server")
    url = server.new_database(template=request.getfixturevalue("pg_template"))
    yield url
    server.drop_database(url)


@pytest.fixture
def store_path(tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> Path | str:
    """Where ``store`` lives: a file, or on PostgreSQL the URL of this test's database."""
    if backend == "postgresql":
        return request.getfixturevalue("pg_url")
    return tmp_path / "store.db"


def close_store(s: MemoryStore) -> None:
    """Close ``s``; the store lets its retrieval recorder (a background writer) finish
    first, so no record opens a connection after close (PostgreSQL's driver warns about
    that, and warnings are errors here)."""
    s.close()


@pytest.fixture
def store(store_path: Path | str):
    s = MemoryStore.open(store_path)
    yield s
    close_store(s)


@pytest.fixture(autouse=True)
def isolated_profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """No test reads or writes the real profile: memdesk's settings file, the XDG config
    and data folders (default and demo stores) all point into tmp_path; so do those of
    any subprocess a test starts (it inherits the environment)."""
    monkeypatch.setenv("MEMDESK_CONFIG_DIR", str(tmp_path / "profile" / "config" / "memdesk"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "profile" / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "profile" / "data"))


@pytest.fixture
def isolated_settings(tmp_path: Path):
    """QSettings() (user scope, INI) reads and writes under tmp_path, not the real profile."""
    from PySide6.QtCore import QSettings

    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope,
                      str(tmp_path / "settings"))
    yield


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 3,000-row demo store built once per session; tests copy it."""
    path = tmp_path_factory.mktemp("demo") / "demo.db"
    s = MemoryStore.open(path)
    demo.generate(s, 3000, seed=11, end=DEMO_END)
    s.checkpoint()
    s.close()
    return path


@pytest.fixture(scope="session")
def pg_demo_template(pg_server) -> str:
    """demo_template's twin on PostgreSQL: the same 3,000 rows in a template database."""
    url = pg_server.new_database(prefix="demo")
    s = MemoryStore.open(url)
    demo.generate(s, 3000, seed=11, end=DEMO_END)
    s.close()
    return url.rsplit("/", 1)[1]


@pytest.fixture
def demo_store(tmp_path: Path, backend: str, request: pytest.FixtureRequest):
    if backend == "postgresql":
        server = request.getfixturevalue("pg_server")
        url = server.new_database(template=request.getfixturevalue("pg_demo_template"))
        s = MemoryStore.open(url)
        yield s
        close_store(s)
        server.drop_database(url)
        return
    import shutil

    dst = tmp_path / "demo.db"
    shutil.copy(request.getfixturevalue("demo_template"), dst)
    s = MemoryStore.open(dst)
    yield s
    s.close()


@pytest.fixture
def desk_for(tmp_path: Path):
    """Builds the ``Desk`` a view is wired to (store, settings in tmp_path, pipeline),
    as the main window does; ``desk.seen`` records every broadcast."""
    from PySide6.QtCore import QSettings

    from memdesk.ui.actions import Desk
    from memdesk.ui.settings import Settings

    made = []

    def make(store: MemoryStore):
        ini = QSettings(str(tmp_path / f"desk{len(made)}.ini"), QSettings.Format.IniFormat)
        desk = Desk(store, Settings(ini))
        desk.seen = []
        desk.changed.connect(desk.seen.append)
        made.append(desk)
        return desk

    yield make
    for desk in made:
        desk.wait_idle()
