"""The memdesk CLI called in-process (exit code and streams captured), or in a fresh
interpreter as a user runs it."""

from __future__ import annotations

import subprocess
import sys
from typing import NamedTuple


class Result(NamedTuple):
    """What a CLI call returned and printed (in-process: an uncaught exception fails);
    unpacks as ``code, out, err``."""

    returncode: int
    stdout: str
    stderr: str


def cli(*args: str) -> Result:
    import contextlib
    import io

    from memdesk.app.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse errors
            code = int(exc.code or 0)
    return Result(code, out.getvalue(), err.getvalue())


def run(*args: str, stdin: str | bytes | None = None,
        text: bool = True) -> subprocess.CompletedProcess:
    """``python -m memdesk.app.main ARGS`` in a new process (two minutes at most);
    ``text=False`` for bytes in and out."""
    return subprocess.run([sys.executable, "-m", "memdesk.app.main", *args], input=stdin,
                          capture_output=True, text=text, timeout=120)
