"""The action registry's public face, and the one place each stream's undo is bound.

Every action is declared in :mod:`memdesk.core.store.actions` (name, audit stream,
change kinds, undo label; re-exported here), low enough that the store itself names
its actions by those declarations.  Undoing a stream's rows needs code that lives with
the stream's tables: the memory stream's in the store, the job stream's in the write
path, the delta stream's in delta memory.  This module sits above all three and binds
them, so ``memdesk.core.undo.generic`` dispatches through the registry and imports none of them.
"""

from __future__ import annotations

from collections.abc import Mapping

from memdesk.core.delta import audit as delta_audit
from memdesk.core.store.actions import *  # noqa: F403 - the registry, re-exported
from memdesk.core.store.actions import EventUndo, GroupUndo, Stream
from memdesk.core.store.recall_checks import undo_check_event
from memdesk.core.store.undo import undo_memory_event_in
from memdesk.core.write.jobs import undo_job_event
from memdesk.core.write.settings import undo_setting_event

# ``memory_events`` streams: one handler per row.
EVENT_UNDO: Mapping[Stream, EventUndo] = {
    Stream.MEMORY: undo_memory_event_in,
    Stream.JOB: undo_job_event,
    Stream.SETTING: undo_setting_event,
    Stream.CHECK: undo_check_event,
}
# Streams with their own audit table: one handler per group.
GROUP_UNDO: Mapping[Stream, GroupUndo] = {
    Stream.DELTA: delta_audit.undo_group_in,
}
