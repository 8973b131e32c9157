"""Memories that were erased permanently (``erased_memories``, core/erasure/): their
ids outlive them, so whoever names one is told it was erased, and when, rather than
that it never existed."""

from __future__ import annotations

from sqlalchemy import Connection, select

from memdesk.core.store.models import ErasedMemory

_C = ErasedMemory.__table__.c


def not_found_message(conn: Connection, memory_id: str) -> str:
    """What a reader of a missing memory is told: that it was erased, and when, or
    plainly that there is none."""
    at = conn.execute(select(_C.at).where(_C.memory_id == memory_id)).scalar()
    if at is not None:
        return (f"Memory {memory_id!r} was erased permanently on {at:%Y-%m-%d %H:%M} UTC "
                "(memdesk forget --purge); nothing of it is left to show or change")
    return f"No memory with id {memory_id!r}"
