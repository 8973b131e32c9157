"""The sidebar's views, in order.  A feature adds one line here when its view exists.

Each factory takes the window's ``Desk`` (store, settings, action pipeline) and returns
a widget that keeps the ``memdesk.ui.desk.view.View`` contract (subclass ``DeskView``).
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

    from memdesk.ui.desk.actions import Desk


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
    ViewSpec("browse", "Browse", "Ctrl+1", lazy("browse.browser", "BrowserView")),
    ViewSpec("sweep", "Revaluation sweep", "Ctrl+2", lazy("sweep.view", "SweepView")),
    ViewSpec("contradictions", "Contradictions", "Ctrl+3",
             lazy("contradictions.view", "ContradictionsView")),
    ViewSpec("overview", "Overview", "Ctrl+0", lazy("browse.overview", "OverviewView")),
    ViewSpec("snapshots", "Snapshots", "Ctrl+5", lazy("delta.snapshots_view", "SnapshotsView")),
    ViewSpec("drift", "Drift review", "Ctrl+4", lazy("delta.drift_view", "DriftView")),
    ViewSpec("jobs", "Jobs", "Ctrl+6", lazy("jobs.view", "JobsView")),
    ViewSpec("review", "Review inbox", "Ctrl+7", lazy("review.view", "ReviewView")),
    ViewSpec("retrieval", "Retrieval inspector", "Ctrl+8",
             lazy("retrieval.view", "RetrievalView")),
    ViewSpec("duplicates", "Duplicates", "Ctrl+9", lazy("duplicates.view", "DuplicatesView")),
    ViewSpec("checks", "Recall checks", "Ctrl+Shift+C", lazy("checks.view", "ChecksView")),
]
