"""Store settings the operator chooses and the write path obeys (the duplicate threshold,
the secrets lane's action per category): one value per store, so the desk, the CLI, the
MCP server and the job worker use the same one.

Each change is one audit row of the ``setting`` stream in ``memory_events`` (no memory;
``target`` names the setting, ``before``/``after`` hold ``{"value": …}``), and that row
is the storage: a setting's value is the ``after`` of its newest row, its default while
it has none.  Undo writes a new row back to the ``before`` value (so "newest row" stays
the truth, and redo is undoing the undo); it refuses when the setting was changed again
since, as a memory's undo does.  No table of its own: the audit log already keeps who
changed what when, and a settings table would be a second copy to keep in step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select, update

from memdesk.core import taxonomy as tx
from memdesk.core.errors import UndoConflictError, ValidationError
from memdesk.core.guard import SecretAction, SecretCategory, SecretPolicy, check_action
from memdesk.core.ids import new_id
from memdesk.core.store import actions as acts
from memdesk.core.store import audit
from memdesk.core.store.records import Changed, Changes, EventRecord, decode_values
from memdesk.core.write.duplicates import DEFAULT_THRESHOLD, check_threshold

DUPLICATE_THRESHOLD = "duplicate_threshold"


@dataclass(frozen=True)
class Setting:
    key: str
    default: Any
    check: Callable[[Any], Any]  # raises ValidationError on bad input
    label: str


SECRETS_PREFIX = "secrets."


def secret_key(category: SecretCategory) -> str:
    """The setting that says what the store does with one category of secret."""
    return SECRETS_PREFIX + category.value


SETTINGS: dict[str, Setting] = {
    DUPLICATE_THRESHOLD: Setting(DUPLICATE_THRESHOLD, DEFAULT_THRESHOLD, check_threshold,
                                 "duplicate threshold"),
    **{secret_key(c): Setting(secret_key(c), SecretPolicy().action(c).value, check_action,
                              f"secrets policy for {c.label}")
       for c in SecretCategory},
}


def secret_policy_in(conn: Connection) -> SecretPolicy:
    """The store's secrets policy: what it holds, masks and stores, per category."""
    return SecretPolicy({c: SecretAction(get_in(conn, secret_key(c))) for c in SecretCategory})


def _setting(key: str) -> Setting:
    try:
        return SETTINGS[key]
    except KeyError:
        raise ValidationError("setting", f"{key!r} is not a store setting (known: "
                              f"{', '.join(sorted(SETTINGS))})") from None


def get_in(conn: Connection, key: str) -> Any:
    """The setting's value (its default when never set, or when the stored value no
    longer passes its check: a hand-edited store must not stop the write path)."""
    s = _setting(key)
    # memory_id IS NULL: the rows about no memory, read through ix_memory_events_memory
    # (a few: jobs' and store-wide rows), newest first.
    raw = conn.execute(select(audit.E.after).where(
        audit.E.memory_id.is_(None), audit.E.stream == acts.Stream.SETTING.value,
        audit.E.target == key).order_by(audit.E.id.desc()).limit(1)).scalar()
    if raw is None:
        return s.default
    try:
        return s.check(decode_values(raw)["value"])
    except (ValidationError, KeyError, TypeError, ValueError):
        return s.default


def set_in(conn: Connection, key: str, value: Any, *, actor: str = "operator",
           group_id: str | None = None, note: str | None = None) -> int | None:
    """Change a setting in ``conn``'s transaction; its audit row's id, or None when the
    value is the one in force (nothing written)."""
    s = _setting(key)
    new = s.check(value)
    old = get_in(conn, key)
    if new == old:
        return None
    return audit.log_in(conn, None, str(tx.Actor(actor)), acts.SET_SETTING.name,
                        {"value": old}, {"value": new}, group_id=group_id,
                        note=note or f"{s.label} {old} → {new}",
                        stream=acts.Stream.SETTING, target=key)


def changes_of(event_id: int | None, group_id: str) -> Changes:
    if event_id is None:
        return Changes(kinds=Changed.NOTHING)
    return Changes(event_ids=(event_id,), group_id=group_id,
                   kinds=acts.SET_SETTING.kinds, action=acts.SET_SETTING)


def set_value(store: Any, key: str, value: Any, *, actor: str = "operator",
              note: str | None = None) -> Changes:
    """Change a setting: one audited, undoable step (``Changes.kinds`` NOTHING when the
    value was already in force)."""
    note = tx.check_optional_str("note", note, 10_000)
    gid = new_id()
    with store.write() as conn:
        ev = set_in(conn, key, value, actor=actor, group_id=gid, note=note)
    return changes_of(ev, gid)


def get(store: Any, key: str) -> Any:
    with store.read() as conn:
        return get_in(conn, key)


def undo_setting_event(store: Any, conn: Connection, ev: EventRecord, actor: str,
                       group_id: str | None) -> int:
    """The setting stream's undo handler (bound in ``memdesk.core.undo.registry``): the value
    back to the row's ``before``, if the setting still has the row's ``after``."""
    if ev.undone_by is not None:
        raise UndoConflictError(f"Action {ev.id} was already undone.")
    key = str(ev.target)
    s = _setting(key)
    now = get_in(conn, key)
    if now != ev.after.get("value"):
        raise UndoConflictError(
            f"Cannot undo: the {s.label} was changed again since (it is {now} now, not "
            f"{ev.after.get('value')}). Undo the later change first.")
    before = ev.before.get("value", s.default)
    new_ev = audit.log_in(conn, None, actor, acts.UNDO_SETTING.name, dict(ev.after),
                          {"value": before}, group_id=group_id, undoes=ev.id,
                          note=f"{s.label} back to {before}",
                          stream=acts.Stream.SETTING, target=key)
    conn.execute(update(audit.ET).where(audit.E.id == ev.id).values(undone_by=new_ev))
    return new_ev
