"""README's first command block is what a new user pastes on a fresh Debian 12: it installs
the system packages (Python's venv and every library Qt's X11 plugin needs) before it
runs anything, torch from its CPU index, and then opens the demo; the CI (.ci/run) runs
the README's test command with the same torch line."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIBRARIES = (
    "libxcb-cursor0", "libxcb-icccm4", "libxcb-image0", "libxcb-keysyms1",
    "libxcb-render-util0", "libxcb-shape0", "libxcb-xinerama0", "libxcb-xkb1", "libxcb-randr0",
    "libxkbcommon-x11-0", "libegl1", "libgl1", "libglib2.0-0", "libfontconfig1", "libdbus-1-3",
)
TORCH = "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"


def _blocks(text: str) -> list[str]:
    return [b.replace("\\\n", " ") for b in re.findall(r"```bash\n(.*?)```", text, re.S)]


def test_the_first_block_installs_everything_before_it_runs_the_app() -> None:
    first = _blocks((ROOT / "README.md").read_text(encoding="utf-8"))[0]
    commands = [line for line in first.splitlines() if line and not line.startswith("#")]
    run = next(i for i, c in enumerate(commands) if "memdesk --demo" in c)
    before = " ".join(commands[:run])
    assert "apt-get install -y python3-venv" in before
    assert set(LIBRARIES) <= set(before.split())
    assert TORCH in commands[run] and commands[run].index(TORCH) < \
        commands[run].index("-e '.[embeddings")
    # Non-interactive as pasted: every apt-get install says yes.
    assert all("-y" in c.split() for c in commands if "apt-get install" in c)


def test_the_ci_runs_the_readmes_test_command() -> None:
    tests = _blocks((ROOT / "README.md").read_text(encoding="utf-8"))[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").replace("\\\n", " ")
    assert TORCH in tests and TORCH.replace("install", "install -q") in ci
    assert "-e '.[test,embeddings]'" in tests and "-e '.[test,embeddings]'" in ci
