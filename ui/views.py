"""The sidebar's views, in order.  A feature adds one line here when its view exists.

Each factory takes ``(store, window)`` and returns a QWidget.  Factories import their
module lazily so the window opens fast.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from memdesk.core.store.memory_store import MemoryStore


@dataclass(frozen=True)
class ViewSpec:
    key: str
    title: str
    shortcut: str
    factory: Callable[[MemoryStore, object], QWidget]


def _browse(store, window):  # type: ignore[no-untyped-def]
    from .browser import BrowserView

    return BrowserView(store, window)


def _overview(store, window):  # type: ignore[no-untyped-def]
    from .overview import OverviewView

    return OverviewView(store, window)


def _snapshots(store, window):  # type: ignore[no-untyped-def]
    from .snapshots_view import SnapshotsView

    return SnapshotsView(store, window)


def _drift(store, window):  # type: ignore[no-untyped-def]
    from .drift_view import DriftView

    return DriftView(store, window)


def _sweep(store, window):  # type: ignore[no-untyped-def]
    from .sweep_view import SweepView

    return SweepView(store, window)


def _contradictions(store, window):  # type: ignore[no-untyped-def]
    from .contradictions_view import ContradictionsView

    return ContradictionsView(store, window)


def _jobs(store, window):  # type: ignore[no-untyped-def]
    from .jobs_view import JobsView

    return JobsView(store, window)


VIEWS: list[ViewSpec] = [
    ViewSpec("browse", "Browse", "Ctrl+1", _browse),
    ViewSpec("sweep", "Revaluation sweep", "Ctrl+2", _sweep),
    ViewSpec("contradictions", "Contradictions", "Ctrl+3", _contradictions),
    ViewSpec("overview", "Overview", "Ctrl+0", _overview),
    ViewSpec("snapshots", "Snapshots", "Ctrl+5", _snapshots),
    ViewSpec("drift", "Drift review", "Ctrl+4", _drift),
    ViewSpec("jobs", "Jobs", "Ctrl+6", _jobs),
]
