"""The packaged app: `memdesk --version`, the desktop launcher, and (slow) a real
PyInstaller build whose binary must start headless, open a demo store and move
memories in and out, without torch inside."""

from __future__ import annotations

import configparser
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from memdesk.app.main import main, parse

ROOT = Path(__file__).resolve().parents[2]


def test_version_names_the_release_and_vectors(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"memdesk {version('memdesk')}"
    assert lines[1].startswith("Python ") and "SQLite " in lines[1]
    assert lines[2].startswith("vectors are ")


def test_version_says_when_vectors_are_off(monkeypatch, capsys) -> None:
    import memdesk.core.embeddings as E

    monkeypatch.setattr(E, "unavailable_reason", lambda: "vectors are off: no torch here")
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.splitlines()[2] == "vectors are off: no torch here"
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    with pytest.raises(SystemExit):
        main(["--version"])
    assert "packaged build does not include torch" in capsys.readouterr().out


def test_desktop_launcher() -> None:
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # keys are case-sensitive
    entry.read(ROOT / "packaging" / "memdesk.desktop")
    d = entry["Desktop Entry"]
    assert d["Type"] == "Application" and d["Icon"] == "memdesk"
    assert (ROOT / "resources" / f"{d['Icon']}.svg").exists()
    exec_ = d["Exec"].split()
    assert exec_ == ["memdesk", "--db=%f"]
    # what the launcher runs, with and without a file
    assert parse(["--db=/data/agent.db"]).db == "/data/agent.db"
    assert parse(["--db="]).db is None


def _run(cmd: list[str], env: dict[str, str], cwd: Path, timeout: int = 300):
    r = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{cmd}: exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    assert "Traceback" not in r.stderr
    return r


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        message = "PyInstaller is not installed: pip install -e '.[test]' (or '.[packaging]')"
        if os.environ.get("CI"):
            pytest.fail(message)  # CI builds the app; never skip it silently there
        pytest.skip(message)
    out = tmp_path_factory.mktemp("bundle")
    env = dict(os.environ, DIST=str(out / "dist"), WORK=str(out / "work"),
               PYTHON=sys.executable)
    _run(["bash", str(ROOT / "packaging" / "build.sh")], env, ROOT, timeout=1500)
    return out / "dist" / "memdesk"


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_built_app_starts_headless_and_works(bundle: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"),
               XDG_CONFIG_HOME=str(home / "config"), QT_QPA_PLATFORM="offscreen")
    exe = str(bundle / "memdesk")
    for name in ("memdesk.desktop", "memdesk.svg", "install.sh"):
        assert (bundle / name).exists(), name
    internal = bundle / "_internal"
    assert not (internal / "torch").exists()
    assert not (internal / "sentence_transformers").exists()

    r = _run([exe, "--version"], env, tmp_path)
    assert r.stdout.splitlines()[0] == f"memdesk {version('memdesk')}"
    assert "vectors are off" in r.stdout and "does not include torch" in r.stdout

    r = _run([exe, "--smoke-test"], env, tmp_path)
    assert "smoke test ok" in r.stdout and "views: browse" in r.stdout
    assert "vectors are off" in r.stdout

    # the CLI inside the bundle: a migrated store, export, import (Alembic reads its
    # scripts from the bundle's data files)
    _run([exe, "demo", "--out", "d.db", "--size", "200"], env, tmp_path)
    _run([exe, "export", "--db", "d.db", "--out", "d.jsonl"], env, tmp_path)
    r = _run([exe, "import", "d.jsonl", "--db", "e.db"], env, tmp_path)
    assert "imported 200" in r.stdout
    assert [p for p in home.rglob("*") if p.is_file()] == []  # nothing in the profile
