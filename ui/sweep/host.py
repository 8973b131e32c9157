"""The sweep view as its pages and its learning panel see it.

The pages (ui/sweep/pages.py) and the learning panel (ui/sweep/learning.py) act
through the view that holds them: start a sweep, resume one, decide, undo, pause, run
an action on the desk's pipeline.  They take this interface, which ``SweepView`` keeps,
so the view imports them and none of them imports the view back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLabel

    from memdesk.core.store.memory_store import MemoryStore
    from memdesk.ui.desk.actions import Op


class StatusLine(Protocol):
    """A page with a status line (the start page: what training found)."""

    @property
    def status(self) -> QLabel: ...


class SweepHost(Protocol):
    """What the sweep's pages and learning panel use of the sweep view."""

    pending_note: str | None  # the note for the next decision (N on the review page)

    @property
    def store(self) -> MemoryStore: ...

    @property
    def start(self) -> StatusLine: ...

    def run(self, op: Op[Any]) -> bool: ...

    def start_from_form(self) -> None: ...

    def resume_row(self, row: int) -> None: ...

    def decide(self, decision: str, importance: float | None = None) -> None: ...

    def undo(self) -> None: ...

    def pause(self) -> None: ...
