"""The memdesk CLI called in-process, its exit code and streams captured."""

from __future__ import annotations


class Result:
    """What a CLI call returned and printed (in-process: an uncaught exception fails)."""

    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


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
