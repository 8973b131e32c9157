"""``memdesk db``: store maintenance — upgrade, info, check, backup, backups, restore.

``check``, ``backups`` and ``restore`` never open the store read-write: they work on
damaged files, which is when they are needed.  ``restore`` refuses a target that is
not a memdesk store and a store another program has open (core/store/restore.py).
Exit codes: 0 ok, 3 the store is damaged or cannot be used, 4 no such backup.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from memdesk.app.cli.common import EXIT_NOTFOUND, EXIT_STORE, JSON_HELP, err, open_store


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser],
             common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("db", parents=[common], help="store maintenance")
    dbsub = p.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    dbsub.add_parser("upgrade", parents=[common],
                     help="migrate the store to this version (a backup is written first)")
    q = dbsub.add_parser("info", parents=[common], help="SQLite library, schema, row counts")
    q.add_argument("--json", action="store_true", help=JSON_HELP)
    q = dbsub.add_parser("check", parents=[common],
                         help="full integrity, foreign-key, full-text and WAL checks "
                              "(exit 3: damaged)")
    q.add_argument("--json", action="store_true", help=JSON_HELP)
    q.add_argument("--repair", action="store_true",
                   help="rebuild a damaged or stale full-text index (a backup is taken "
                        "first); other damage needs `db restore`")
    q = dbsub.add_parser("backup", parents=[common],
                         help="copy the store now (safe while agents write)")
    q.add_argument("--to", type=Path, metavar="PATH",
                   help="write the copy here (default: the backups folder in the user data dir)")
    q = dbsub.add_parser("backups", parents=[common], help="list this store's backups")
    q.add_argument("--json", action="store_true", help=JSON_HELP)
    q = dbsub.add_parser("restore", parents=[common],
                         help="replace the store with a backup (checked first; refused while "
                              "another program has the store open; the replaced store is "
                              "kept as a backup)")
    q.add_argument("backup", type=Path, help="a backup file (see `memdesk db backups`)")
    q.add_argument("--new", action="store_true",
                   help="restore into a file that does not exist yet")
    p.set_defaults(handler=cmd_db)


def _store_path(args: argparse.Namespace) -> Path:
    from memdesk.core.errors import StoreOpenError
    from memdesk.core.store.db import sqlite_path, to_url

    path = sqlite_path(to_url(args.db))
    if path is None:
        raise StoreOpenError("This command works on SQLite store files only.")
    return path


def cmd_db(args: argparse.Namespace) -> int:
    action = {
        "upgrade": cmd_upgrade, "info": cmd_info, "check": cmd_check, "backup": cmd_backup,
        "backups": cmd_backups, "restore": cmd_restore,
    }[args.db_command]
    return action(args)


def cmd_upgrade(args: argparse.Namespace) -> int:
    from memdesk.core.store.memory_store import MemoryStore

    store = MemoryStore.open(args.db, create=False, allow_upgrade=True)
    print((store.report and store.report.message) or "The store is already up to date.")
    store.close()
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    from memdesk.core.store.db import sqlite_info, sqlite_path, to_url
    from memdesk.core.store.schema import head_revision, schema_state

    info = sqlite_info()
    store = open_store(args, create=False)
    state = schema_state(store.engine)
    path = sqlite_path(to_url(args.db))
    sqlite = store.dialect == "sqlite"
    data: dict[str, Any] = {
        "url": store.url,
        "dialect": store.dialect,
        "sqlite_driver": info.driver if sqlite else None,
        "sqlite_library_version": info.library_version if sqlite else None,
        "sqlite_wal_reset_bug": info.wal_reset_bug if sqlite else None,
        "schema_revision": state.revision,
        "schema_head": head_revision(),
        "file_bytes": path.stat().st_size if path and path.exists() else None,
        "counts": store.counts(),
    }
    if sqlite:
        with store.read() as conn:
            data["journal_mode"] = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
            data["application_id"] = conn.exec_driver_sql("PRAGMA application_id").scalar()
        from memdesk.core.store.backup import backup_dir, latest_backup
        from memdesk.core.store.wal import wal_bytes

        data["wal_bytes"] = wal_bytes(path) if path else None
        latest = latest_backup(path) if path else None
        data["backups_folder"] = str(backup_dir(path)) if path else None
        data["latest_backup"] = str(latest.path) if latest else None
    health = store.report.health if store.report else None
    data["open_check"] = health.summary() if health else None
    store.close()
    if args.json:
        print(json.dumps(data, indent=1))
        return 0
    for k, v in data.items():
        print(f"{k:>24}: {v}")
    if sqlite and info.warning:
        print(f"\nwarning: {info.warning}")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from memdesk.core.store.backup import latest_good_backup
    from memdesk.core.store.check import check_file
    from memdesk.core.store.identity import StoreKind, identify

    path = _store_path(args)
    if not path.is_file():
        err(f"There is no store at {path}.")
        return EXIT_STORE
    ident = identify(path)  # raises (exit 3) for files that are not SQLite at all
    if ident.kind not in (StoreKind.MEMDESK, StoreKind.RECALL):
        err(f"{path} is not a memdesk store ({ident.kind.value}); nothing was checked.")
        return EXIT_STORE
    if args.repair:
        return _repair(path)
    report = check_file(path, level="full")
    good = latest_good_backup(path) if report.damaged else None
    if args.json:
        print(json.dumps({
            "store": str(path), "ok": report.ok, "problems": list(report.problems),
            "complete": report.complete, "notes": list(report.notes),
            "seconds": round(report.seconds, 3),
            "latest_good_backup": str(good.path) if good else None,
        }, indent=1))
    elif report.ok:
        print(f"{path}: {report.summary()} in {report.seconds:.2f} s")
    else:
        print(f"{path}: {report.summary()}")
        for problem in report.problems:
            print(f"  - {problem}")
        from memdesk.core.store.repair import is_fts_problem

        if all(is_fts_problem(p) for p in report.problems):
            print("Only the full-text index is damaged: `memdesk db check --repair "
                  f"--db {path}` rebuilds it (a backup is taken first).")
        if good:
            print(f"Latest good backup: {good.path}\n"
                  f"Restore it with: memdesk db restore {good.path} --db {path}")
        else:
            print("No good backup found (`memdesk db backups`).")
    return 0 if report.ok else EXIT_STORE


def _repair(path: Path) -> int:
    from memdesk.core.store.repair import repair

    rep = repair(path)
    if not rep.rebuilt:
        print(f"{path}: {rep.before.summary()}; nothing to repair")
        return 0
    print(f"{path}: rebuilt the full-text index ({', '.join(rep.rebuilt)}); "
          f"backup taken first: {rep.backup}")
    print(f"check afterwards: {rep.after.summary()}")
    return 0 if rep.after.ok else EXIT_STORE


def cmd_backup(args: argparse.Namespace) -> int:
    from memdesk.core.store.backup import backup_store
    from memdesk.core.store.identity import StoreKind, identify

    path = _store_path(args)
    if not path.is_file():
        err(f"There is no store at {path}.")
        return EXIT_STORE
    if identify(path).kind not in (StoreKind.MEMDESK, StoreKind.RECALL):
        err(f"{path} is not a memdesk store; nothing was copied.")
        return EXIT_STORE
    if args.to is not None and args.to.exists():
        err(f"{args.to} exists already; choose another name.")
        return EXIT_STORE
    info = backup_store(path, reason="manual", to=args.to)
    print(f"backed up {path} to {info.path} ({info.size:,} bytes)")
    return 0


def cmd_backups(args: argparse.Namespace) -> int:
    from memdesk.core.store.backup import REPLACED, backup_dir, list_backups

    path = _store_path(args)
    backups = list_backups(path)
    if args.json:
        print(json.dumps([
            {"path": str(b.path), "when": b.when.isoformat() + "Z", "reason": b.reason,
             "bytes": b.size, "kept_until_deleted": b.reason == REPLACED} for b in backups
        ], indent=1))
        return 0
    if not backups:
        print(f"No backups of {path} (they go to {backup_dir(path)}).")
        return 0
    rotated = [b for b in backups if b.reason != REPLACED]
    replaced = [b for b in backups if b.reason == REPLACED]
    for b in rotated:
        print(f"{b.when:%Y-%m-%d %H:%M:%S} UTC  {b.reason:<12} {b.size:>14,}  {b.path}")
    if replaced:
        total = sum(b.size for b in replaced)
        print(f"\nSet aside by restores ({len(replaced)}, {total:,} bytes): the stores as "
              "they were before each restore, with the writes made after the backup restored; "
              "never rotated away, kept until you delete them.")
        for b in replaced:
            print(f"{b.when:%Y-%m-%d %H:%M:%S} UTC  {b.reason:<12} {b.size:>14,}  {b.path}")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from memdesk.core.store.backup import restore

    path = _store_path(args)
    if not args.backup.is_file():
        err(f"There is no backup at {args.backup}.")
        return EXIT_NOTFOUND
    report = restore(path, args.backup, new=args.new)
    print(f"restored {path} from {report.backup} (checked: {report.check.summary()})")
    if report.set_aside:
        print(f"the replaced store was kept as {report.set_aside} (`memdesk db backups`)")
    return 0
