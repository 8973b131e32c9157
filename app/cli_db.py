"""``memdesk db``: store maintenance (schema upgrade, information about the store)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .cli_common import open_store


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("db", parents=[common], help="store maintenance")
    dbsub = p.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    dbsub.add_parser("upgrade", parents=[common], help="migrate the store to this version")
    q = dbsub.add_parser("info", parents=[common], help="SQLite version, schema, row counts")
    q.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_db)


def cmd_db(args: argparse.Namespace) -> int:
    from memdesk.core.store.db import sqlite_info, sqlite_path, to_url
    from memdesk.core.store.memory_store import MemoryStore

    if args.db_command == "upgrade":
        store = MemoryStore.open(args.db, create=False)
        print((store.report and store.report.message) or "The store is already up to date.")
        return 0
    info = sqlite_info()
    store = open_store(args, create=False)
    from memdesk.core.store.schema import head_revision, schema_state

    state = schema_state(store.engine)
    url = to_url(args.db)
    path = sqlite_path(url)
    data: dict[str, Any] = {
        "url": store.url,
        "dialect": store.dialect,
        "sqlite_library_version": info.library_version if store.dialect == "sqlite" else None,
        "sqlite_wal_reset_bug": info.wal_reset_bug if store.dialect == "sqlite" else None,
        "schema_revision": state.revision,
        "schema_head": head_revision(),
        "file_bytes": path.stat().st_size if path and path.exists() else None,
        "counts": store.counts(),
    }
    if store.dialect == "sqlite":
        with store.read() as conn:
            data["journal_mode"] = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
    if args.json:
        print(json.dumps(data, indent=1))
        return 0
    for k, v in data.items():
        print(f"{k:>24}: {v}")
    if store.dialect == "sqlite" and info.warning:
        print(f"\nwarning: {info.warning}")
    return 0
