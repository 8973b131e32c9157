"""The query planner's statistics, kept in step with the store's size.

SQLite chooses between an index and a scan from ``sqlite_stat1``, which only ``ANALYZE``
writes.  A store analysed while small (the demo runs ``ANALYZE`` when it is built) and
then grown by agents keeps saying its tables are small: measured on 1,000,000 turns kept
as episodes, the planner still believed the episodes table held 80 rows and read every
row of it for each retrieval's "which turn is this from" lookup (retrieve p50 470 ms
where 21 ms was right).  ``PRAGMA optimize`` re-analyses exactly the tables whose size
changed a lot since their statistics were taken, with a bound on the work (3.6 s for two
tables of 1,000,000 rows; a few milliseconds when nothing changed), so the places that
grow a store call it: the job worker as it goes idle and every few thousand jobs,
``maintain`` and ``import``.  PostgreSQL's autovacuum keeps its own statistics.
"""

from __future__ import annotations

import logging

from memdesk.core.store.memory_store import MemoryStore

log = logging.getLogger(__name__)
# 0x10000: check every table's size, not only those this connection has queried;
# 0x2: analyse the tables that need it (with SQLite's own limit on the work).
OPTIMIZE = "PRAGMA optimize(0x10002)"


def refresh_statistics(store: MemoryStore) -> bool:
    """Bring the planner's statistics up to date where they have gone stale.  Never
    raises: stale statistics cost speed, never data, so a locked or read-only store
    is left as it is (and says so in the log).  Returns whether it ran."""
    if store.dialect != "sqlite":
        return False
    try:
        with store.write() as conn:
            conn.exec_driver_sql(OPTIMIZE)
    except Exception as exc:
        log.info("planner statistics not refreshed: %s", exc)
        return False
    return True
