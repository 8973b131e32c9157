"""Agent intake: an agent's turn becomes a pending job together with its origin.

The MCP server calls :func:`enqueue_from_agent`; the job and who handed it over (the
guard's ``job_origins`` row) are written in one transaction, so a worker never sees the
job without its origin.  It lives in the write path, which depends on the guard (the
worker screens what it writes), never the other way round.
"""

from __future__ import annotations

from memdesk.core.guard import AgentOrigin, SecretScreen, record_origin_in
from memdesk.core.store.memory_store import MemoryStore
from memdesk.core.write.jobs import JobQueue
from memdesk.core.write.units import Turn


def enqueue_from_agent(store: MemoryStore, turn: Turn, origin: AgentOrigin) -> str:
    """The agent's ``store_memory``: the job and its origin, atomically; the job id."""
    return enqueue_screened_from_agent(store, turn, origin)[0]


def enqueue_screened_from_agent(store: MemoryStore, turn: Turn, origin: AgentOrigin
                                ) -> tuple[str, SecretScreen]:
    """``enqueue_from_agent`` that also says what the secrets lane did to the turn
    (masked, or to be held), for the agent's answer."""
    with store.write() as conn:
        job_id, screened = JobQueue(store).enqueue_screened_in(conn, turn)
        record_origin_in(conn, job_id, origin)
    return job_id, screened
