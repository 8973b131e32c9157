"""The secrets lane's face on the write path: the store's policy, and a direct add that
goes through it.

The guard recognises and judges (core/guard/secrets.py, core/guard/secret_lane.py); the
policy is a store setting per category (core/write/settings.py: audited, undoable); the
write paths apply it — the queue masks a turn as it is queued
(``JobQueue.enqueue_screened_in``), the worker holds a job's secrets with the guard's
other holds, the importer and the agents' corrections do the same to their rows, and
:meth:`SecretsLane.add` to ``memdesk add``'s.
"""

from __future__ import annotations

from typing import Any

from memdesk.core.guard import (
    SecretAction,
    SecretCategory,
    SecretPolicy,
    SecretScreen,
    apply_policy,
    mask_fields,
    record_reasons_in,
    secret_check,
)
from memdesk.core.ids import utcnow
from memdesk.core.store import actions as acts
from memdesk.core.store.memory_store import MemoryStore, validate_fields
from memdesk.core.store.records import MEMORY_EDIT, RECORD_COLUMNS, AddedRecord, Changes
from memdesk.core.write import settings


class SecretsLane:
    """The secrets policy of one store and writes through it.  Cheap to construct."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

    # -- the policy ---------------------------------------------------------------------
    def policy(self) -> SecretPolicy:
        with self.store.read() as conn:
            return settings.secret_policy_in(conn)

    def set_action(self, category: SecretCategory | str, action: SecretAction | str, *,
                   actor: str = "operator", note: str | None = None) -> Changes:
        """What the store does with one category from now on (one audited, undoable
        setting change; ``kinds`` NOTHING when it already does that).  Memories written
        before keep what was done to them."""
        from memdesk.core.guard.secret_lane import check_category

        cat = category if isinstance(category, SecretCategory) else check_category(category)
        return settings.set_value(self.store, settings.secret_key(cat), str(action),
                                  actor=actor, note=note)

    # -- writing ------------------------------------------------------------------------
    def scan(self, text: str, preceding: str | None = None) -> SecretScreen:
        """What the lane would do to ``text`` under this store's policy (a dry run)."""
        return apply_policy(text, self.policy(), preceding)

    def add(self, *, actor: str = "operator", note: str | None = None,
            **fields: Any) -> tuple[AddedRecord, SecretScreen]:
        """``MemoryStore.add`` through the lane: what the policy masks is masked before
        the insert (so its audit row never holds it); what it holds is inserted held,
        with its reasons (one event: ``memdesk undo`` takes it back)."""
        values = validate_fields(fields, creating=True)
        with self.store.write() as conn:
            policy = settings.secret_policy_in(conn)
            values, screened = mask_fields(values, policy)
            values = validate_fields(values, creating=True)
            findings = secret_check(policy, values["text"])(values, [])
            if findings:  # held from its first row: no reader ever sees it active
                values["quarantined_at"] = utcnow()
            ev = self.store.add_in(conn, values, actor=actor, note=note)
            if findings:
                record_reasons_in(conn, values["id"], findings)
            rec = self.store.get(values["id"], conn)
        changes = Changes((rec.id,), (ev,), None, MEMORY_EDIT, action=acts.ADD,
                          new_memory_ids=(rec.id,))
        return (AddedRecord(**{k: getattr(rec, k) for k in RECORD_COLUMNS}, changes=changes),
                screened)
