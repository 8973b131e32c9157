"""Shared fixtures: a fresh file store per test, and a small deterministic demo store."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Automatic and pre-migration backups go to the user data dir; never the real one in tests.
# A folder of this run's own, removed when the run ends (runs left hundreds behind).
if "MEMDESK_BACKUP_DIR" not in os.environ:
    os.environ["MEMDESK_BACKUP_DIR"] = tempfile.mkdtemp(prefix="memdesk-test-backups-")
    atexit.register(shutil.rmtree, os.environ["MEMDESK_BACKUP_DIR"], ignore_errors=True)

from memdesk.core import demo
from memdesk.core.store.memory_store import MemoryStore
from tests.helpers.stores import DEMO_END, Lifecycle, add_lifecycle_rows, close_store

# The user cache (the embedder's exported ONNX model, reference schemas) is one folder
# of this run's own, set now so that session-scoped fixtures, which run before the
# per-test isolation below, never write to the real one either.
_CACHE_HOME = tempfile.mkdtemp(prefix="memdesk-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME
atexit.register(shutil.rmtree, _CACHE_HOME, ignore_errors=True)

# Test modules whose store fixtures run on both backends (the `backend` parameter);
# every other module runs on SQLite only.  PostgreSQL needs the server binaries:
# see tests/helpers/pg.py.
BOTH_BACKENDS = frozenset({
    "test_store", "test_fts", "test_undo", "test_contradictions", "test_sweep",
    "test_delta_store", "test_postgres", "test_read_retriever", "test_vectors",
    # Backend-dependent behaviour beyond the store itself: the active belief state and
    # its filters, delta edges, curation edges, injection and maintain, the job queue's
    # claim (SKIP LOCKED on PostgreSQL), the guard's quarantine, import/export and the
    # CLI's store commands.
    "test_lifecycle", "test_query_status_layers", "test_fts_results", "test_store_api",
    "test_store_edit_contract",
    "test_delta_thresholds", "test_curation_thresholds_and_ties", "test_read_injection",
    "test_read_maintain", "test_write_jobs", "test_guard_store", "test_transfer",
    "test_cli_pg", "test_agent_scope_store", "test_edit_compare_and_set", "test_decisions_race",
    "test_cli_edit_delete",
    # Which memories are beliefs, and who may supersede what (core/guard/curated.py).
    "test_hypotheticals_not_beliefs", "test_corrections_take_effect",
    "test_curated_memories_protected", "test_migration_framing",
    # The MCP server's bearer tokens (migration 0018).
    "test_mcp_tokens_store",
    # Proven erasure (core/erasure/): the purge and its proof on each backend.
    "test_erasure_store",
    # Recall checks (migration 0022) and their transfer.
    "test_recall_checks", "test_recall_checks_transfer",
    # Archive: a status out of the active belief state (migration 0023).
    "test_archive",
})


def pytest_configure(config: pytest.Config) -> None:
    # In a mutation run (mutmut, tools/mutcheck.py) many pytest sessions run at once, and
    # all of them prune the shared /tmp/pytest-of-USER folders.  A session that loses that
    # race gets a warning, which this suite turns into an error: a test fails, and the
    # mutant reads as caught by no test at all.  There, each process gets its own folder.
    if "MUTANT_UNDER_TEST" in os.environ and config.option.basetemp is None:
        base = Path(tempfile.mkdtemp(prefix=f"memdesk-mutant-{os.getpid()}-"))
        config.option.basetemp = str(base)
        config.add_cleanup(lambda: shutil.rmtree(base, ignore_errors=True))


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
    from tests.helpers import pg

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


@pytest.fixture(scope="session")
def empty_store_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A freshly created store, migrated once per session: creating one runs every
    migration (~0.15 s), copying it takes a millisecond.  Opening a new file is
    tested where it matters (test_open_errors, test_migrations)."""
    path = tmp_path_factory.mktemp("empty") / "empty.db"
    MemoryStore.open(path).close()  # closing the last connection checkpoints the WAL
    return path


@pytest.fixture
def store(store_path: Path | str, empty_store_template: Path):
    import shutil

    if isinstance(store_path, Path):  # PostgreSQL tests get a database made from a template
        shutil.copy(empty_store_template, store_path)
    s = MemoryStore.open(store_path)
    yield s
    close_store(s)


@pytest.fixture(scope="session")
def session_cache() -> Path:
    """One XDG cache folder for the session: what memdesk caches there (the reference
    schema each check compares a store with, the exported embedding model) is built
    once, not once per test."""
    return Path(_CACHE_HOME)


@pytest.fixture(autouse=True)
def background_work_done(request: pytest.FixtureRequest) -> Iterator[None]:
    """A GUI test ends with its windows' background work finished: a view's read still
    running on a pool thread when the next test starts (and the garbage collector
    deletes the view's objects under it) has crashed the process.  Set up after
    ``qtbot`` so this runs before it closes the test's widgets."""
    if "qtbot" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("qtbot")
    yield
    from PySide6.QtCore import QThreadPool
    from PySide6.QtWidgets import QApplication

    for widget in QApplication.topLevelWidgets():
        wait = getattr(widget, "wait_idle", None)
        if callable(wait):
            with contextlib.suppress(RuntimeError):  # already deleted: nothing runs
                wait(30_000)
    QThreadPool.globalInstance().waitForDone(30_000)


@pytest.fixture(autouse=True)
def no_keys_held() -> Iterator[None]:
    """No test starts with Ctrl or Shift held: a shortcut whose action hides the widget
    it was typed into never gets its key release, and the application would go on
    reading the keys as down (a click becomes "add to the selection") in later tests."""
    yield
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication

    if QGuiApplication.instance() is None or (
            QGuiApplication.keyboardModifiers() == Qt.KeyboardModifier.NoModifier):
        return
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QWidget

    QTest.keyRelease(QWidget(), Qt.Key.Key_Shift)  # a release with no key down


@pytest.fixture(autouse=True)
def isolated_profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, session_cache: Path):
    """No test reads or writes the real profile: memdesk's settings file, the XDG config
    and data folders (default and demo stores) all point into tmp_path, the cache into
    the session's; so do those of any subprocess a test starts (it inherits the
    environment)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(session_cache))
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


@pytest.fixture
def offline_settings(tmp_path: Path):
    """The desk's settings in tmp_path, with an Ollama host where nothing listens (the
    window's service check fails fast instead of waiting for a timeout)."""
    from PySide6.QtCore import QSettings

    from memdesk.ui.window.settings import Settings

    s = Settings(QSettings(str(tmp_path / "memdesk.ini"), QSettings.Format.IniFormat))
    s.ollama_host = "http://127.0.0.1:9"
    return s


@pytest.fixture
def lifecycle(store: MemoryStore) -> Lifecycle:
    """The plain ``store`` holding only the lifecycle rows (users "alice" and "bob")."""
    return add_lifecycle_rows(store, "alice", "bob", datetime(2026, 5, 1))


@pytest.fixture
def demo_lifecycle(backend: str, request: pytest.FixtureRequest) -> Lifecycle:
    """The ids of the lifecycle rows inside every demo store (of this test's backend)."""
    if backend == "postgresql":
        return _DEMO_LIFECYCLE[request.getfixturevalue("pg_demo_template")]
    return _DEMO_LIFECYCLE[request.getfixturevalue("demo_template")]


_DEMO_LIFECYCLE: dict[Path | str, Lifecycle] = {}


# Mutation runs (tools/mutate.py) start a fresh pytest session per mutant; building the
# demo store in each would dominate the run.  There the store is built once, by the first
# (unmutated) session, into this folder.  Demo generation itself stays tested by
# test_demo.py, which generates its own stores.
_CACHE = os.environ.get("MEMDESK_TEST_FIXTURE_CACHE")


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 3,000-row demo store built once per session; tests copy it."""
    import json
    import shutil

    path = tmp_path_factory.mktemp("demo") / "demo.db"
    cached = Path(_CACHE) / "demo.db" if _CACHE else None
    if cached is not None and cached.exists():
        shutil.copy(cached, path)
        ids = json.loads(cached.with_suffix(".json").read_text())
        _DEMO_LIFECYCLE[path] = Lifecycle(**ids)
        return path
    s = MemoryStore.open(path)
    demo.generate(s, 3000, seed=11, end=DEMO_END)
    # Two of the demo's own users, so the rows join real groups and real filters.
    users = s.distinct("user_id")
    _DEMO_LIFECYCLE[path] = add_lifecycle_rows(s, users[0], users[1], DEMO_END
                                               - timedelta(days=30))
    s.checkpoint()
    s.close()
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, cached)
        cached.with_suffix(".json").write_text(json.dumps(vars(_DEMO_LIFECYCLE[path])))
    return path


@pytest.fixture(scope="session")
def pg_demo_template(pg_server) -> str:
    """demo_template's twin on PostgreSQL: the same 3,000 rows in a template database."""
    url = pg_server.new_database(prefix="demo")
    s = MemoryStore.open(url)
    demo.generate(s, 3000, seed=11, end=DEMO_END)
    users = s.distinct("user_id")
    name = url.rsplit("/", 1)[1]
    _DEMO_LIFECYCLE[name] = add_lifecycle_rows(s, users[0], users[1], DEMO_END
                                               - timedelta(days=30))
    s.close()
    return name


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

    from memdesk.ui.desk.actions import Desk
    from memdesk.ui.window.settings import Settings

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


@pytest.fixture(scope="session")
def embedder():
    """The real all-MiniLM-L6-v2 model, loaded once per test session (a few seconds)."""
    from memdesk.core.embeddings import default_embedder

    e = default_embedder()
    e.load()
    return e
