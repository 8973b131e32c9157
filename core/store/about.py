"""What a bug report needs: memdesk's version, Python's, the SQLite library that runs,
and whether vectors are on (``memdesk --version`` and Help → About say the same).

In the store package because it names the SQLite library the store opened with."""

from __future__ import annotations

from memdesk.core import embeddings
from memdesk.core.store.db import sqlite_info


def version_text() -> str:
    """The version, and what a bug report needs besides it (``memdesk --version`` and
    Help → About show the same lines)."""
    import platform
    import sys
    from importlib.metadata import PackageNotFoundError, version


    try:
        ours = version("memdesk")
    except PackageNotFoundError:  # running from a source tree without installing
        ours = "unknown"
    vectors = embeddings.unavailable_reason() or "vectors are on (all-MiniLM-L6-v2)"
    if getattr(sys, "frozen", False) and embeddings.unavailable_reason():
        # pip advice is no use inside the packaged app, which never bundles torch
        vectors = ("vectors are off: this packaged build does not include torch; install "
                   "memdesk with pip and its embeddings extra to have them")
    return (f"memdesk {ours}\n"
            f"Python {platform.python_version()}, SQLite {sqlite_info().library_version}\n"
            f"{vectors}")
