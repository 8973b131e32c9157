"""Scoping a retrieval to the memories one agent or one run wrote (``agent_id``,
``run_id``, migration 0019): a mask over the user's snapshot, so every channel, the
recent pools and the preference injection see only the scoped rows.

The snapshot does not keep these two columns (most retrievals are not scoped, and
the snapshot is rebuilt on every write); the scoped rows are looked up per call
instead, through ``ix_memories_user_agent``: one index range over one user's rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import Connection, select

from memdesk.core.store.models import Memory

if TYPE_CHECKING:
    import numpy as np

    from memdesk.core.read.snapshot import UserSnapshot

M = Memory.__table__.c


def scope_mask(conn: Connection, snap: UserSnapshot, user_id: str, agent_id: str | None,
               run_id: str | None) -> np.ndarray:
    """Boolean mask over the snapshot's rows: written by ``agent_id`` and in ``run_id``
    (either may be None: not scoped by it)."""
    import numpy as np

    q = select(M.seq).where(M.user_id == user_id)
    if agent_id is not None:
        q = q.where(M.agent_id == agent_id)
    if run_id is not None:
        q = q.where(M.run_id == run_id)
    seqs = np.fromiter(conn.execute(q).scalars(), dtype=np.int64)
    return np.isin(snap.seqs, seqs)
