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


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "store.db"


@pytest.fixture
def store(store_path: Path):
    s = MemoryStore.open(store_path)
    yield s
    s.close()


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


@pytest.fixture
def demo_store(demo_template: Path, tmp_path: Path):
    import shutil

    dst = tmp_path / "demo.db"
    shutil.copy(demo_template, dst)
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


@pytest.fixture(scope="session")
def embedder():
    """The real all-MiniLM-L6-v2 model, loaded once per test session (a few seconds)."""
    from memdesk.core.embeddings import default_embedder

    e = default_embedder()
    e.load()
    return e
