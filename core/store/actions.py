"""Every audited action, declared once (as Anki declares its ops in one ``Op`` enum).

An :class:`Action` names one kind of audited change: the audit *stream* its rows are
written to, the :class:`Changed` kinds it produces (so views refresh), the words of its
undo label ("Undo soft-delete of 1 memory") and whether, and by which stream handler,
it is undone.  Code that writes an audit row names its action by one of the constants
below, never by a free string; ``memdesk.core.undo.generic`` dispatches on the declaration, so
adding an action is one entry here and nothing in the undo.

Streams
    ``memory``  ``memory_events`` rows about one memory (undo: restore its fields).
    ``job``     ``memory_events`` rows about a write-path job's status (undo: the job's
                status back, ``memdesk.core.write.jobs``).
    ``delta``   ``delta_events`` groups (source edits, drift reviews; undo:
                ``memdesk.core.delta.audit``).
    ``store``   store-wide records (an embedding pass, a decay run, the demo load):
                history only, nothing to undo.
    ``setting`` ``memory_events`` rows changing a store setting the operator chooses
                (``target`` names it; undo: the value back, ``memdesk.core.write.settings``).
    ``check``   ``memory_events`` rows adding or removing a recall check (``target``
                names it; undo: removed or back, ``memdesk.core.store.recall_checks``).

The undo handler of each stream is declared here as a protocol and bound by the one
module above every stream, ``memdesk.core.undo.registry`` (the store cannot import the write
path or delta memory: they sit above it).

Old stores hold free-string actions ("bulk_edit", "retag", anything a caller passed)
and ``memory_id="*"`` rows; :func:`declared` maps them, here and nowhere else.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy import Connection

from memdesk.core.store.records import MEMORY_EDIT, Changed, EventRecord

if TYPE_CHECKING:  # the store names its actions from here
    from memdesk.core.store.memory_store import MemoryStore

# What ``MemoryStore.events`` takes for "the rows about no memory", and what callers
# written before migration 0014 passed as the memory id of a job's or a store-wide row
# (:func:`home_of` files those; migration 0014 mapped the stored ones).
STORE_WIDE = "*"


class Stream(StrEnum):
    """Where an action's audit rows live and who undoes them."""

    MEMORY = "memory"
    JOB = "job"
    DELTA = "delta"
    STORE = "store"
    SETTING = "setting"
    CHECK = "check"


@dataclass(frozen=True)
class Action:
    """One declared action.

    ``verb`` is the undo label's noun phrase ("soft-delete", "edit"); ``noun`` and
    ``plural`` the things it counts.  ``planned``: declared for work still to come,
    written by no code yet (a test checks the rest are all written somewhere).
    ``irreversible``: it destroys what undo would need (a permanent erasure), so it is
    never undoable and every interface asks for confirmation before running it
    (``--yes`` on the command line, a dialog in the desk).
    """

    name: str
    stream: Stream
    kinds: Changed
    verb: str
    noun: str = "memory"
    plural: str = "memories"
    undoable: bool = True
    planned: bool = False
    irreversible: bool = False

    def __post_init__(self) -> None:
        if self.irreversible and self.undoable:
            raise ValueError(f"action {self.name!r} is irreversible, so it cannot be undoable")

    def label(self, count: int = 1, target: str | None = None) -> str:
        """What Edit → Undo says after the word "Undo": "soft-delete of 3 memories", or
        with one named target, "acceptance of change #12"."""
        if count == 1 and target:
            return f"{self.verb} of {self.noun} {target}"
        return f"{self.verb} of {count:,} {self.noun if count == 1 else self.plural}"

    def undo_label(self, count: int = 1, target: str | None = None) -> str:
        return f"Undo {self.label(count, target)}"

    def __str__(self) -> str:  # the stored name, so an Action can go where a str went
        return self.name


_SWEPT = Changed.SWEEPS | Changed.HISTORY
_RESOLVED = Changed.CONTRADICTIONS | MEMORY_EDIT
_HISTORY_ONLY = Changed.HISTORY

# -- memory stream -------------------------------------------------------------------
ADD = Action("add", Stream.MEMORY, MEMORY_EDIT, "add")
EDIT = Action("edit", Stream.MEMORY, MEMORY_EDIT, "edit")
BULK_EDIT = Action("bulk_edit", Stream.MEMORY, MEMORY_EDIT, "edit")
DELETE = Action("delete", Stream.MEMORY, MEMORY_EDIT, "soft-delete")
SUPERSEDE = Action("supersede", Stream.MEMORY, MEMORY_EDIT, "supersede")
IMPORT = Action("import", Stream.MEMORY, MEMORY_EDIT, "import")
UNDO = Action("undo", Stream.MEMORY, MEMORY_EDIT, "undo")
# sweeps (core/curation/sweep.py)
REVALUE = Action("revalue", Stream.MEMORY, _SWEPT | Changed.MEMORIES, "revaluation")
REVIEW_KEEP = Action("review_keep", Stream.MEMORY, _SWEPT, "keep decision")
REVIEW_SKIP = Action("review_skip", Stream.MEMORY, _SWEPT, "skip decision")
# calibrated importance suggested by the operator's sweep decisions (core/curation/calibration.py)
CALIBRATE = Action("calibrate", Stream.MEMORY, MEMORY_EDIT, "calibrated importance")
# contradictions (core/curation/contradictions.py)
RESOLVE_KEEP = Action("resolve_keep", Stream.MEMORY, _RESOLVED, "contradiction resolution")
# "Keep both" changes no memory: one audit row per member records the dismissal.
RESOLVE_KEEP_ALL = Action("resolve_keep_all", Stream.MEMORY,
                          Changed.CONTRADICTIONS | Changed.HISTORY, "keep-both resolution")
RESOLVE_EDIT = Action("resolve_edit", Stream.MEMORY, _RESOLVED, "edit-and-keep resolution")
RESOLVE_MERGE = Action("resolve_merge", Stream.MEMORY, _RESOLVED, "merge resolution")
# duplicates (core/curation/duplicates.py): a merge supersedes the others by the one
# kept; "not duplicates" changes no memory (one audit row per member records it).
MERGE = Action("merge", Stream.MEMORY, MEMORY_EDIT, "merge of duplicates")
# The operator's bulk removal of old episodes (turns kept as said): a soft delete.
PRUNE_EPISODES = Action("prune_episodes", Stream.MEMORY, MEMORY_EDIT, "prune", "episode",
                        "episodes")
DISMISS_DUPLICATES = Action("dismiss_duplicates", Stream.MEMORY, Changed.HISTORY,
                            "not-duplicates decision")
# archive (core/store/archive.py): kept and shown, never recalled, until unarchived
ARCHIVE = Action("archive", Stream.MEMORY, MEMORY_EDIT, "archive")
UNARCHIVE = Action("unarchive", Stream.MEMORY, MEMORY_EDIT, "unarchive")
# the poisoning guard (core/guard/)
QUARANTINE = Action("quarantine", Stream.MEMORY, MEMORY_EDIT, "hold for review")
APPROVE = Action("approve", Stream.MEMORY, MEMORY_EDIT, "approval")
REJECT = Action("reject", Stream.MEMORY, MEMORY_EDIT, "rejection")
# an agent's own changes through the MCP tools (core/guard/agent_actions.py)
FORGET = Action("forget", Stream.MEMORY, MEMORY_EDIT, "agent's forget")
CORRECT = Action("correct", Stream.MEMORY, MEMORY_EDIT, "agent's correction")
# An agent asked to forget a memory an operator curated: nothing changed, the request
# waits in the memory's history for the operator (who may delete it from the desk).
FORGET_HELD = Action("forget_held", Stream.MEMORY, Changed.HISTORY,
                     "agent's held forget request", undoable=False)
# A permanent erasure (core/erasure/): the memory, its episode or units and every copy
# of their text are gone, so there is nothing to undo with.  Its rows: one per erased
# memory (the tombstone: id, kind, when, by whom), and one per memory that a purged
# correction had superseded (it stays retired).
PURGE = Action("purge", Stream.MEMORY, MEMORY_EDIT, "permanent erasure", undoable=False,
               irreversible=True)
# Planned: declared so the work that adds them names them here (no caller yet).
HOLD_CURATED = Action("hold_curated", Stream.MEMORY, MEMORY_EDIT,
                      "hold of a curated change", planned=True)
APPROVE_CURATED = Action("approve_curated", Stream.MEMORY, MEMORY_EDIT,
                         "approval of a curated change", planned=True)

# -- job stream ----------------------------------------------------------------------
CANCEL_JOB = Action("cancel_job", Stream.JOB, Changed.JOBS | Changed.HISTORY, "cancel",
                    "job", "jobs")
UNDO_JOB = Action("undo", Stream.JOB, Changed.JOBS | Changed.HISTORY, "undo", "job", "jobs")

# -- delta stream (``delta_events``; names are per stream) ----------------------------
SOURCE_ADD = Action("add", Stream.DELTA, Changed.SOURCES, "add", "source", "sources")
SOURCE_EDIT = Action("edit", Stream.DELTA, Changed.SOURCES, "edit", "source", "sources")
SOURCE_NORMALIZE = Action("normalize", Stream.DELTA, Changed.SOURCES,
                          "weight normalisation", "source", "sources")
REVIEW_ACCEPT = Action("accept", Stream.DELTA, Changed.REVIEWS, "acceptance",
                       "change", "changes")
REVIEW_DAMPEN = Action("dampen", Stream.DELTA, Changed.REVIEWS | Changed.SOURCES,
                       "dampening", "change", "changes")
REVIEW_REJECT = Action("reject", Stream.DELTA, Changed.REVIEWS, "rejection",
                       "change", "changes")
REVIEW_INVESTIGATED = Action("investigated", Stream.DELTA, Changed.REVIEWS,
                             "investigated mark", "change", "changes")
UNDO_DELTA = Action("undo", Stream.DELTA, Changed.DELTA, "undo", "change", "changes")

# -- setting stream (store settings: the duplicate threshold; core/write/settings.py) --
SET_SETTING = Action("set", Stream.SETTING, Changed.SETTINGS | Changed.HISTORY, "change",
                     "setting", "settings")
UNDO_SETTING = Action("undo", Stream.SETTING, Changed.SETTINGS | Changed.HISTORY, "undo",
                      "setting", "settings")

# -- check stream (recall checks: core/store/recall_checks.py, core/read/checks.py) ----
_CHECKED = Changed.CHECKS | Changed.HISTORY
CHECK_ADD = Action("add", Stream.CHECK, _CHECKED, "add", "recall check", "recall checks")
CHECK_REMOVE = Action("remove", Stream.CHECK, _CHECKED, "removal", "recall check",
                      "recall checks")
UNDO_CHECK = Action("undo", Stream.CHECK, _CHECKED, "undo", "recall check", "recall checks")

# -- store-wide records (history only) ------------------------------------------------
EMBED = Action("embed", Stream.STORE, _HISTORY_ONLY, "embedding pass", "pass", "passes",
               undoable=False)
REEMBED = Action("reembed", Stream.STORE, _HISTORY_ONLY, "vector reset", "store", "stores",
                 undoable=False)
DECAY = Action("decay", Stream.STORE, _HISTORY_ONLY, "decay run", "run", "runs",
               undoable=False)
DEMO_LOAD = Action("demo_load", Stream.STORE, _HISTORY_ONLY, "demo load", "store", "stores",
                   undoable=False)
# MCP bearer tokens (core/guard/tokens.py).  Not undoable: undoing a revocation would
# re-arm a secret that may have leaked, and a creation is withdrawn by revoking.
TOKEN_ADD = Action("token_add", Stream.STORE, _HISTORY_ONLY, "token creation", "token",
                   "tokens", undoable=False)
TOKEN_REVOKE = Action("token_revoke", Stream.STORE, _HISTORY_ONLY, "token revocation",
                      "token", "tokens", undoable=False)
# Pausing stops a token's calls and keeps its secret; resuming lets them through again.
# Not undoable either: each is the other's reversal, audited as its own action.
TOKEN_PAUSE = Action("token_pause", Stream.STORE, _HISTORY_ONLY, "token pause", "token",
                     "tokens", undoable=False)
TOKEN_RESUME = Action("token_resume", Stream.STORE, _HISTORY_ONLY, "token resumption",
                      "token", "tokens", undoable=False)

# Every Action above, in declaration order (the registry: tests walk it).
ACTIONS: tuple[Action, ...] = tuple(
    v for v in list(globals().values()) if isinstance(v, Action))
_BY_KEY: dict[tuple[Stream, str], Action] = {(a.stream, a.name): a for a in ACTIONS}
assert len(_BY_KEY) == len(ACTIONS), "two actions share a stream and a name"


def lookup(stream: Stream, name: str) -> Action | None:
    """The declared action ``name`` of ``stream`` (None: not declared)."""
    return _BY_KEY.get((stream, name))


def home_of(memory_id: str | None, stream: str, target: str | None,
            before: dict[str, Any], after: dict[str, Any]
            ) -> tuple[str | None, Stream, str | None]:
    """Where a new ``memory_events`` row belongs: (memory id, stream, target).  A caller
    that still passes the old sentinel ``"*"`` gets the row filed as migration 0014
    files the stored ones: a row naming a ``job_id`` is the job's, others the store's."""
    if memory_id != STORE_WIDE:
        return memory_id, Stream(stream), target
    job = {**after, **before}.get("job_id")
    if job is not None:
        return None, Stream.JOB, target or str(job)
    return None, (Stream.STORE if stream == Stream.MEMORY else Stream(stream)), target


def stream_of_event(ev: EventRecord) -> Stream:
    """Which stream a ``memory_events`` row belongs to (its ``stream`` column)."""
    return Stream(ev.stream)


def declared(ev: EventRecord) -> Action:
    """The declared action of a stored ``memory_events`` row, old stores' included.

    Rows written before the registry may carry any string a caller chose (``update``
    takes ``action=``; tests and scripts passed "retag", "bulk_edit"…): a memory row
    with an undeclared name is an edit of that memory, undone like one.
    """
    stream = stream_of_event(ev)
    found = lookup(stream, ev.action)
    if found is not None:
        return found
    if stream is Stream.MEMORY:
        return EDIT
    if stream is Stream.JOB:
        return CANCEL_JOB
    return Action(ev.action, Stream.STORE, _HISTORY_ONLY, ev.action, "record", "records",
                  undoable=False)


def declared_delta(name: str) -> Action:
    """The declared action of a ``delta_events`` row (old or unknown names: an edit)."""
    return lookup(Stream.DELTA, name) or SOURCE_EDIT


class EventUndo(Protocol):
    """How a ``memory_events`` stream (memory, job) undoes one of its rows inside the
    caller's write transaction; returns the new (undo) event's id."""

    def __call__(self, store: MemoryStore, conn: Connection, ev: EventRecord, actor: str,
                 group_id: str | None) -> int: ...


@dataclass(frozen=True)
class GroupUndone:
    """What undoing one stream's rows of a group touched (for the ``Changes``)."""

    kinds: Changed = Changed.NOTHING
    sources: tuple[str, ...] = ()
    diff_ids: tuple[int, ...] = ()


class GroupUndo(Protocol):
    """How a stream with its own audit table (delta) undoes its rows of a group inside
    the caller's transaction, under the redo group id ``redo``; None: it has none."""

    def __call__(self, conn: Connection, group_id: str, actor: str,
                 redo: str) -> GroupUndone | None: ...
