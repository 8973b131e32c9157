"""The window's views by key, each built on first use (``LazyViews``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from PySide6.QtWidgets import QWidget

from memdesk.ui.desk.view import View
from memdesk.ui.desk.views import ViewSpec


class LazyViews:
    """The window's views by key, each built on first use.

    Building every view at start-up costs about a second (the snapshots view alone
    pulls in pyqtgraph and numpy); only the first view shown is built then.  Until a
    view is built, its stack slot holds an empty placeholder; ``values()`` yields only
    built views (an unbuilt view has nothing to refresh and reads fresh data when built).
    """

    def __init__(self, build: Callable[[ViewSpec, QWidget], QWidget]) -> None:
        self._build = build  # builds a view into its placeholder's stack slot
        self._specs: dict[str, ViewSpec] = {}
        self._placeholders: dict[str, QWidget] = {}
        self._built: dict[str, QWidget] = {}

    def add(self, spec: ViewSpec, placeholder: QWidget) -> None:
        key = spec.key
        self._specs[key] = spec
        self._placeholders[key] = placeholder

    def __contains__(self, key: object) -> bool:
        return key in self._specs

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __getitem__(self, key: str) -> QWidget:
        if key not in self._specs:
            raise KeyError(key)
        if key not in self._built:
            self._built[key] = self._build(self._specs[key], self._placeholders[key])
        return self._built[key]

    def get(self, key: str, default: QWidget | None = None) -> QWidget | None:
        return self[key] if key in self._specs else default

    def is_built(self, key: str) -> bool:
        return key in self._built

    def values(self) -> list[QWidget]:
        return list(self._built.values())

    def slots(self) -> list[QWidget]:
        """What the stack holds now for every view (the view, or its placeholder)."""
        return [self._built.get(k) or self._placeholders[k] for k in self._specs]


def shutdown(view: QWidget, msecs: int = 5000) -> None:
    if isinstance(view, View):
        view.wait_idle(msecs)
