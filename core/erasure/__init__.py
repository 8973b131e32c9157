"""Proven erasure: ``memdesk forget ID --purge`` (CLI, MCP, desk).

A purge removes a memory's text from every place memdesk keeps it and then proves it:

- ``plan``: what a purge takes (the memory; an episode's units; a unit's episode and
  that episode's other units; the jobs that carried the turn) and what it searches for
  afterwards (every version of every text, their distinctive words, their vectors).
- ``purge``: the erasure in one write transaction (rows deleted, audit rows turned
  into tombstones, copies in logs and snapshots redacted, the full-text index merged),
  then the scrub of the file (secure delete, WAL checkpoint, VACUUM when bytes remain;
  on PostgreSQL a VACUUM of the touched tables).
- ``proof``: every channel searched again — every column of every table, the full-text
  index, nearest vectors, and on SQLite the raw bytes of the file and its WAL.
- ``receipt``: the erasure receipt (JSON, never the text) and what still holds it (the
  store's backups by date, with the command to purge those too).
- ``service``: the façade, :class:`~memdesk.core.erasure.service.Erasure`.
"""
