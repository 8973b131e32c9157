"""Are the store's schema objects the ones its revision's migrations create?

``PRAGMA integrity_check`` checks pages, records and indexes against their tables, but
not that the schema is the one memdesk built: a dropped trigger that keeps the
full-text index in step with ``memories``, a dropped full-text table, a dropped index
or an extra trigger another program added all pass it, and the store then goes
silently wrong (search misses every later edit; an extra trigger can rewrite rows).

The reference is what the migrations build: the revision's chain is run once into a
scratch file, and its objects' (type, name) are cached per revision and migration
scripts in the user cache dir, so checking costs one ``sqlite_master`` query; the
first check after an install or an update pays about 0.3 s.  SQLite's own objects
(``sqlite_autoindex_*``, ``sqlite_stat*``, ``sqlite_sequence``) are not compared:
SQLite makes them as it goes.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import tempfile
from functools import lru_cache
from pathlib import Path

import platformdirs

log = logging.getLogger("memdesk.store")
Objects = frozenset[tuple[str, str]]
_VERSIONS = Path(__file__).parent / "migrations" / "versions"
# Recall's store (revision 0001, no version table): the memories table alone.
_RECALL: Objects = frozenset({("table", "memories")})


def _scripts_digest() -> str:
    h = hashlib.sha256()
    for p in sorted(_VERSIONS.glob("*.py")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _cache_file(revision: str) -> Path:
    root = Path(platformdirs.user_cache_dir("memdesk", appauthor=False))
    return root / "schemas" / f"{revision}-{_scripts_digest()}.json"


def _build(revision: str) -> Objects:
    """Run the migrations up to ``revision`` into a scratch file and list its objects."""
    from alembic import command

    from memdesk.core.store.db import make_engine
    from memdesk.core.store.schema import _config

    with tempfile.TemporaryDirectory(prefix="memdesk-schema-") as tmp:
        engine = make_engine("sqlite:///" + str(Path(tmp) / "ref.db"))
        try:
            cfg = _config()
            with engine.begin() as conn:
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, revision)
            with engine.connect() as conn:
                rows = conn.exec_driver_sql("SELECT type, name FROM sqlite_master").fetchall()
        finally:
            engine.dispose()
    return frozenset((str(t), str(n)) for t, n in rows if not str(n).startswith("sqlite_"))


@lru_cache(maxsize=4)
def reference(revision: str) -> Objects | None:
    """The (type, name) of every object the migrations create up to ``revision``
    (None: a revision this build does not know)."""
    from memdesk.core.store.schema import LEGACY_REVISION, known_revisions

    if revision == LEGACY_REVISION:
        return _RECALL
    if revision not in known_revisions():
        return None
    cache = _cache_file(revision)
    try:
        return frozenset((t, n) for t, n in json.loads(cache.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        pass
    try:
        objects = _build(revision)
    except Exception as exc:  # no reference is no comparison, never a crash
        log.warning("could not build the reference schema of revision %s: %s", revision, exc)
        return None
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        part = cache.with_name(f"{cache.name}.{os.getpid()}.part")
        part.write_text(json.dumps(sorted(objects)), encoding="utf-8")
        os.replace(part, cache)
    except OSError as exc:  # no cache: the next process builds it again
        log.debug("could not cache the reference schema: %s", exc)
    return objects


def store_revision(conn: sqlite3.Connection) -> str | None:
    """The store's revision (Recall's "0001" without a version table; None: neither)."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "alembic_version" in tables:
        revs = [str(r[0]) for r in conn.execute("SELECT version_num FROM alembic_version")]
        return revs[0] if len(revs) == 1 else None
    return "0001" if "memories" in tables else None


def schema_problems(conn: sqlite3.Connection) -> list[str]:
    """What differs from the schema the store's revision should have (empty: nothing)."""
    revision = store_revision(conn)
    expected = reference(revision) if revision is not None else None
    if expected is None:
        return []
    found = frozenset(
        (str(t), str(n)) for t, n in conn.execute("SELECT type, name FROM sqlite_master")
        if not str(n).startswith("sqlite_"))
    out = [f"schema {kind} {name} is missing (revision {revision} has it)"
           for kind, name in sorted(expected - found)]
    out += [f"schema {kind} {name} is not one memdesk made (revision {revision} has no such "
            f"{kind})" for kind, name in sorted(found - expected) if kind in ("trigger", "view")]
    return out
