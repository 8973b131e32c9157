"""The poisoning guard: agents' writes that read as instructions wait for review.

- :mod:`rules`: the rules, as data (id, description, pattern or predicate, reason);
- :mod:`screen`: evaluates them on the units a job produced, inside the worker's
  write transaction, and quarantines the ones that match (with the reasons);
- :mod:`origin`: the immutable agent provenance of a job (client, session, source)
  and the curated-memory check agents are held to;
- :mod:`review`: the operator's inbox: list, approve, edit, reject (audited, undoable).

The guard sits below the write path and above the store.  What it offers the write
path is this package's interface, below; the write path imports nothing else of it
(pyproject.toml's import contracts check both):

- :func:`screen_job_in` — the worker's hook, inside the transaction that inserted a
  job's memories: hold the suspicious ones before any reader can see them;
- :class:`AgentOrigin` and :func:`record_origin_in` — the agent intake records who
  handed a job over, in the transaction that enqueued it.
"""

from memdesk.core.guard.origin import AgentOrigin, record_origin_in
from memdesk.core.guard.screen import screen_job_in

__all__ = ["AgentOrigin", "record_origin_in", "screen_job_in"]
