"""The sidebar's views, in order.  A feature adds one line here when its view exists.

Each factory takes the window's ``Desk`` (store, settings, action pipeline) and returns
a widget that keeps the ``memdesk.ui.view.View`` contract (subclass ``DeskView``).
Factories import their module lazily so the window opens fast.  See
docs/architecture.md, "Adding a view".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from memdesk.ui.actions import Desk


@dataclass(frozen=True)
class ViewSpec:
    key: str
    title: str
    shortcut: str
    factory: Callable[[Desk], QWidget]


def lazy(module: str, cls: str) -> Callable[[Desk], QWidget]:
    """A factory that imports ``memdesk.ui.<module>`` only when the view is first shown."""

    def build(desk: Desk) -> QWidget:
        view: QWidget = getattr(import_module(f"memdesk.ui.{module}"), cls)(desk)
        return view

    return build


VIEWS: list[ViewSpec] = [
    ViewSpec("browse", "Browse", "Ctrl+1", lazy("browser", "BrowserView")),
    ViewSpec("sweep", "Revaluation sweep", "Ctrl+2", lazy("sweep_view", "SweepView")),
    ViewSpec("contradictions", "Contradictions", "Ctrl+3",
             lazy("contradictions_view", "ContradictionsView")),
    ViewSpec("overview", "Overview", "Ctrl+0", lazy("overview", "OverviewView")),
    ViewSpec("snapshots", "Snapshots", "Ctrl+5", lazy("snapshots_view", "SnapshotsView")),
    ViewSpec("drift", "Drift review", "Ctrl+4", lazy("drift_view", "DriftView")),
    ViewSpec("jobs", "Jobs", "Ctrl+6", lazy("jobs_view", "JobsView")),
    ViewSpec("review", "Review inbox", "Ctrl+7", lazy("review_view", "ReviewView")),
    ViewSpec("retrieval", "Retrieval inspector", "Ctrl+8",
             lazy("retrieval_view", "RetrievalView")),
    ViewSpec("duplicates", "Duplicates", "Ctrl+9", lazy("duplicates_view", "DuplicatesView")),
]
