"""The erasure receipt: what a purge erased, where from, when, by whom, how it was
proven, and what still holds it — as JSON, never holding the text.

Each erased memory is named by its id, kind and the SHA-256 of its text (whoever has
the text can check it is the one erased; a short text can be guessed from its hash, so
keep receipts as private as the store).  The receipt is kept in the store
(``erasures.receipt``, no text), printed or returned by every interface, and written to
a file the operator names (``--receipt PATH``, the desk's Save receipt…).

**What still holds it.**  The purge reaches the store only.  A backup of the store
written after the memory was created may hold it: each one is listed by date, with
whether it holds one of the erased ids (opened read-only; "unknown" when it cannot be
read) and the commands to purge it there too, or to delete it.  Copies outside the
store (exports, an agent's own context, a PostgreSQL WAL archive or replica) are named
by kind in ``outside_the_store``; memdesk cannot reach them.
"""

from __future__ import annotations

import json
import shlex
from datetime import datetime
from pathlib import Path
from typing import Any

from memdesk.core.erasure.plan import Plan
from memdesk.core.erasure.proof import Proof
from memdesk.core.erasure.purge import Removed, Scrub
from memdesk.core.store.backup import BackupInfo, list_backups
from memdesk.core.store.db import DRIVER, read_only_uri

FORMAT = "memdesk erasure receipt 1"
OUTSIDE = [
    "exports written with `memdesk export` or File → Export before the purge",
    "what an agent already retrieved into its own context or logs",
    "copies of the store file made by other tools (file backups, sync folders)",
]
PG_OUTSIDE = [
    "PostgreSQL's WAL segments, WAL archives and base backups (point-in-time recovery "
    "can bring the rows back until they expire)",
    "replicas of the database",
    "dead row versions until VACUUM reuses their space, and disk blocks the file "
    "system has not overwritten",
]


def holds_ids(backup: Path, ids: tuple[str, ...]) -> bool | None:
    """Whether a backup file holds one of ``ids`` (None: it cannot be read)."""
    try:
        conn = DRIVER.connect(read_only_uri(backup), uri=True, timeout=2.0)
    except DRIVER.Error:
        return None
    try:
        marks = ", ".join("?" for _ in ids)
        row = conn.execute(f"SELECT 1 FROM memories WHERE id IN ({marks}) LIMIT 1",
                           ids).fetchone()
        return row is not None
    except DRIVER.Error:
        return None
    finally:
        conn.close()


def backups_holding(store_path: Path | None, plan: Plan) -> list[dict[str, Any]]:
    """The store's backups written since the oldest erased memory was created."""
    if store_path is None:
        return []
    since = min(t.created_at for t in plan.targets)
    out = []
    for b in list_backups(store_path):
        if b.when < since:
            continue  # written before the memory existed
        out.append(_backup_entry(b, plan))
    return out


def _backup_entry(b: BackupInfo, plan: Plan) -> dict[str, Any]:
    holds = holds_ids(b.path, plan.ids)
    path = shlex.quote(str(b.path))
    return {
        "path": str(b.path), "written": b.when.isoformat(), "reason": b.reason,
        "holds_it": "unknown" if holds is None else holds,
        "purge_command": f"memdesk forget {plan.requested} --purge --yes --db {path}",
        "delete_command": f"rm -- {path}",
    }


def build(*, erasure_id: str, at: datetime, actor: str, who: str | None, store_url: str,
          plan: Plan, removed: Removed, scrub: Scrub, proof: Proof,
          backups: list[dict[str, Any]], postgres: bool) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "erasure_id": erasure_id,
        "store": store_url,
        "requested": plan.requested,
        "at": at.isoformat() + "Z",
        "by": {"actor": actor, "who": who},
        "verdict": proof.verdict,
        "erased": [t.to_json() for t in plan.targets],
        "jobs_cleared": list(plan.jobs),
        "kept_retired": list(plan.retired),
        "removed_from": removed.places,
        "scrub": {"steps": scrub.steps, "wal_truncated": scrub.wal_truncated,
                  "vacuumed": scrub.vacuumed},
        "proof": {"texts_searched": len(plan.texts), "words_searched": len(plan.words),
                  "vectors_searched": len(plan.vectors), **proof.to_json()},
        "still_held_by": {
            "backups": backups,
            # Other users' memories saying exactly the same: theirs, left as they are.
            "other_users_memories": list(plan.shared),
            "outside_the_store": OUTSIDE + (PG_OUTSIDE if postgres else []),
        },
    }


def dumps(receipt: dict[str, Any]) -> str:
    return json.dumps(receipt, indent=1, ensure_ascii=False, sort_keys=False)


def summary(receipt: dict[str, Any]) -> list[str]:
    """The receipt in a few lines, for people."""
    erased = receipt["erased"]
    lines = [f"erasure {receipt['erasure_id']}: {receipt['verdict']} — "
             f"{len(erased)} memor{'y' if len(erased) == 1 else 'ies'} "
             f"({', '.join(e['id'] + ' ' + e['kind'] for e in erased)})"]
    proof = receipt["proof"]
    lines.append(f"proof: {proof['searches']} searches over tables, ids, full-text, vectors"
                 f"{' and the file' if receipt['scrub']['wal_truncated'] is not None else ''}"
                 f"; copies found: {len(proof['copies_found'])}, mentions: "
                 f"{len(proof['mentions_found'])}")
    for c in proof["copies_found"]:
        lines.append(f"  still a copy in {c['where']} ({c['channel']}, {c['hits']})")
    for m in proof["mentions_found"]:
        lines.append(f"  its words still in {m['where']} ({m['channel']}, {m['hits']})")
    shared = receipt["still_held_by"]["other_users_memories"]
    if shared:
        lines.append(f"{len(shared)} other user(s)' memories say exactly the same and were "
                     f"left: {', '.join(shared)}")
    held = [b for b in receipt["still_held_by"]["backups"] if b["holds_it"] is not False]
    if held:
        lines.append(f"{len(held)} backup(s) may still hold it:")
        lines += [f"  {b['written']}  {b['purge_command']}" for b in held]
    return lines
